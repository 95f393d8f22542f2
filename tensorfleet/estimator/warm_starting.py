"""Warm-starting: variables whose first value comes from another model's checkpoint.

``warm_start`` (``tf.train.warm_start``) is called while a graph is built. For
every selected variable it replaces the variable's initializer by an assign
from a ``RestoreShard`` op that reads the value from the checkpoint, placed
with the variable (so on a cluster the parameter server that holds the
variable reads it; the checkpoint must be visible there). Because only the
initializer changes, a session that restores a checkpoint of its own (a
training run that resumes) never looks at the warm-start checkpoint.

Partitioned variables (parts ``<name>/part_<i>``) are warm-started from the
parts of the same name when the checkpoint was partitioned alike, otherwise
from the full tensor, assembled from the checkpoint's parts if it has no
unpartitioned one, and sliced along the current partitioning.
"""

from __future__ import annotations

import collections
import logging
import os
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import GraphKeys, Tensor, get_default_graph
from tensorfleet.ops import array_ops, io_ops, state_ops
from tensorfleet.ops.variables import Variable
from tensorfleet.training import checkpoint_management as cm

logger = logging.getLogger(__name__)


class VocabInfo(collections.namedtuple("VocabInfo", [
        "new_vocab", "new_vocab_size", "num_oov_buckets", "old_vocab", "old_vocab_size",
        "backup_initializer", "axis"])):
    """How a vocabulary-indexed variable maps to its old vocabulary (``tf.estimator.VocabInfo``).

    Accepted so that settings written for TensorFlow construct; ``warm_start``
    rejects it, as vocabulary remapping is not implemented.
    """

    def __new__(cls, new_vocab: str, new_vocab_size: int, num_oov_buckets: int, old_vocab: str,
                old_vocab_size: int = -1, backup_initializer: Any = None,
                axis: int = 0) -> "VocabInfo":
        if axis not in (0, 1):
            raise ValueError(f"The only supported values for the axis argument are 0 and 1. "
                             f"Provided axis: {axis}")
        return super().__new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab,
                               old_vocab_size, backup_initializer, axis)


class WarmStartSettings(collections.namedtuple("WarmStartSettings", [
        "ckpt_to_initialize_from", "vars_to_warm_start", "var_name_to_vocab_info",
        "var_name_to_prev_var_name"])):
    """What to warm-start from (``tf.estimator.WarmStartSettings``).

    Args:
      ckpt_to_initialize_from: a checkpoint prefix, or a directory (its latest
        checkpoint is used).
      vars_to_warm_start: a regular expression matched against the names of the
        trainable variables; a list of regular expressions matched against all
        global variables; a list of Variables; or None (nothing, vocabularies aside).
      var_name_to_vocab_info: vocabulary remappings (unsupported: must be empty).
      var_name_to_prev_var_name: new variable name -> its name in the checkpoint.
    """

    def __new__(cls, ckpt_to_initialize_from: str, vars_to_warm_start: Any = ".*",
                var_name_to_vocab_info: Optional[Dict[str, VocabInfo]] = None,
                var_name_to_prev_var_name: Optional[Dict[str, str]] = None
                ) -> "WarmStartSettings":
        if not ckpt_to_initialize_from or not isinstance(ckpt_to_initialize_from, (str, bytes)):
            raise ValueError(f"Cannot warm-start without ckpt_to_initialize_from, a checkpoint "
                             f"path or directory; got {ckpt_to_initialize_from!r}")
        if isinstance(ckpt_to_initialize_from, bytes):
            ckpt_to_initialize_from = ckpt_to_initialize_from.decode()
        return super().__new__(cls, ckpt_to_initialize_from, vars_to_warm_start,
                               var_name_to_vocab_info or {}, var_name_to_prev_var_name or {})


def _var_name(v: Variable) -> str:
    return v.op.name


def _full_name(v: Variable) -> str:
    info = v._get_save_slice_info() if hasattr(v, "_get_save_slice_info") else None
    return info.full_name if info is not None else _var_name(v)


def _select(vars_to_warm_start: Any) -> Dict[str, List[Variable]]:
    """The variables to warm-start, grouped by full name (the parts of a partitioned
    variable form one group, ordered by offset)."""
    g = get_default_graph()
    if vars_to_warm_start is None:
        chosen: List[Any] = []
    elif isinstance(vars_to_warm_start, str):
        pattern = re.compile(vars_to_warm_start)
        chosen = [v for v in g.get_collection(GraphKeys.TRAINABLE_VARIABLES)
                  if pattern.match(v.name)]
    elif isinstance(vars_to_warm_start, (list, tuple)) and all(
            isinstance(x, str) for x in vars_to_warm_start):
        patterns = [re.compile(p) for p in vars_to_warm_start]
        chosen = [v for v in g.get_collection(GraphKeys.GLOBAL_VARIABLES)
                  if any(p.match(v.name) for p in patterns)]
    elif isinstance(vars_to_warm_start, (list, tuple)):
        chosen = []
        for v in vars_to_warm_start:
            parts = getattr(v, "_get_variable_list", None)
            if parts is not None:
                chosen.extend(parts())
            elif isinstance(v, Variable):
                chosen.append(v)
            else:
                raise ValueError(f"vars_to_warm_start: a list must hold only strings or only "
                                 f"Variables, found {v!r}")
    else:
        raise ValueError(f"vars_to_warm_start must be a string, a list of strings, a list of "
                         f"Variables or None; got {vars_to_warm_start!r}")
    groups: Dict[str, List[Variable]] = {}
    for v in chosen:
        if not isinstance(v, Variable):
            continue  # resources such as tables have no initializer to redirect
        group = groups.setdefault(_full_name(v), [])
        if all(v is not w for w in group):
            group.append(v)
    for group in groups.values():
        group.sort(key=lambda v: _offset(v))
    return groups


def _offset(v: Variable) -> Tuple[int, ...]:
    info = v._get_save_slice_info() if hasattr(v, "_get_save_slice_info") else None
    return tuple(info.var_offset) if info is not None else ()


def _resolve_checkpoint(ckpt: str) -> str:
    if os.path.isdir(ckpt):
        prefix = cm.latest_checkpoint(ckpt)
        if prefix is None:
            raise ValueError(f"warm_start: no checkpoint found in directory {ckpt}")
        return os.path.abspath(prefix)
    if not os.path.exists(cm.index_path(ckpt)):
        raise ValueError(f"warm_start: {ckpt} is neither a checkpoint prefix nor a directory "
                         f"holding checkpoints")
    return os.path.abspath(ckpt)


def _ckpt_parts(index: cm.CheckpointIndex, prev: str) -> List[str]:
    parts = []
    while f"{prev}/part_{len(parts)}" in index.tensors:
        parts.append(f"{prev}/part_{len(parts)}")
    return parts


def _restore(index: cm.CheckpointIndex, names: Sequence[str], dtype: _dtypes.DType,
             anchor: Variable) -> List[Tensor]:
    """Tensors reading ``names`` from the checkpoint, placed with ``anchor``."""
    for n in names:
        if index.dtype(n) is not dtype:
            raise ValueError(f"warm_start: checkpoint tensor {n} has dtype {index.dtype(n).name}"
                             f" but variable {anchor.op.name} has dtype {dtype.name}")
    located = [index.locate(n) for n in names]
    g = anchor.graph
    with g.colocate_with(anchor.op):
        return io_ops.restore_shard(
            np.array([p for p, _, _ in located], dtype=object),
            np.array([s for _, s, _ in located], dtype=object),
            np.array([z for _, _, z in located], dtype=np.int64),
            list(names), [dtype] * len(names), [index.shape(n) for n in names],
            [anchor.op.name] * len(names), name="warm_start_restore")


def _concat_axis(shapes: List[List[int]], full: List[int], what: str) -> int:
    for axis in range(len(full)):
        if sum(s[axis] for s in shapes) == full[axis] and all(
                s[:axis] + s[axis + 1:] == full[:axis] + full[axis + 1:] for s in shapes):
            return axis
    raise ValueError(f"warm_start: the checkpoint parts of {what} (shapes {shapes}) do not "
                     f"tile a tensor of shape {full}")


def _redirect(v: Variable, value: Tensor) -> None:
    """Makes ``value`` the variable's initial value (its initializer assigns it)."""
    from_shape = value.shape
    if not from_shape.is_compatible_with(v.get_shape()):
        raise ValueError(f"warm_start: variable {v.op.name} has shape {v.get_shape()} but the "
                         f"checkpoint value has shape {from_shape}")
    g = v.graph
    with g.control_dependencies(None), g.name_scope(v.op.name + "/"):
        op = state_ops.assign(v._ref(), value, name="warm_start_assign").op
    v._initializer_op = op
    v._initial_value = value


def _warm_start_group(index: cm.CheckpointIndex, full_name: str, prev: str,
                      parts: List[Variable]) -> None:
    dtype = parts[0].dtype
    infos = [p._get_save_slice_info() if hasattr(p, "_get_save_slice_info") else None
             for p in parts]
    partitioned = infos[0] is not None
    if not partitioned:
        if prev in index.tensors:
            _redirect(parts[0], _restore(index, [prev], dtype, parts[0])[0])
            return
        ck = _ckpt_parts(index, prev)
        if not ck:
            raise ValueError(f"warm_start: variable {full_name} (checkpoint name {prev}) is not "
                             f"in checkpoint {index.prefix}")
        full = parts[0].get_shape().as_list()
        axis = _concat_axis([index.shape(n) for n in ck], full, prev)
        values = _restore(index, ck, dtype, parts[0])
        with parts[0].graph.colocate_with(parts[0].op):
            _redirect(parts[0], array_ops.concat(values, axis, name="warm_start_concat"))
        return
    ck = _ckpt_parts(index, prev)
    same = len(ck) == len(parts) and all(
        index.shape(n) == p.get_shape().as_list() for n, p in zip(ck, parts))
    if same:
        for n, p in zip(ck, parts):
            _redirect(p, _restore(index, [n], dtype, p)[0])
        return
    full = list(infos[0].full_shape)
    if prev in index.tensors:
        whole = _restore(index, [prev], dtype, parts[0])[0]
    elif ck:
        axis = _concat_axis([index.shape(n) for n in ck], full, prev)
        with parts[0].graph.colocate_with(parts[0].op):
            whole = array_ops.concat(_restore(index, ck, dtype, parts[0]), axis,
                                     name="warm_start_concat")
    else:
        raise ValueError(f"warm_start: partitioned variable {full_name} (checkpoint name "
                         f"{prev}) is not in checkpoint {index.prefix}")
    if whole.shape.as_list() != full:
        raise ValueError(f"warm_start: partitioned variable {full_name} has full shape {full} "
                         f"but the checkpoint value has shape {whole.shape.as_list()}")
    for p, info in zip(parts, infos):
        with p.graph.colocate_with(p.op):
            _redirect(p, array_ops.slice(whole, list(info.var_offset), list(info.var_shape),
                                         name="warm_start_slice"))


def warm_start(ckpt_to_initialize_from: str,
               vars_to_warm_start: Union[str, Sequence[Any], None] = ".*",
               var_name_to_vocab_info: Optional[Dict[str, VocabInfo]] = None,
               var_name_to_prev_var_name: Optional[Dict[str, str]] = None) -> None:
    """Makes the selected variables of the default graph start from a checkpoint.

    Call it after the variables exist and before the init op is built; see
    ``WarmStartSettings`` for the arguments.

    Raises:
      ValueError: no checkpoint there, vocabulary remapping (not supported), a
        selected variable missing from the checkpoint or of another shape or
        dtype, or a ``var_name_to_prev_var_name`` entry that names no selected
        variable.
    """
    if var_name_to_vocab_info:
        raise ValueError(f"warm_start: var_name_to_vocab_info (vocabulary remapping) is not "
                         f"supported; got entries for {sorted(var_name_to_vocab_info)}")
    renames = dict(var_name_to_prev_var_name or {})
    prefix = _resolve_checkpoint(ckpt_to_initialize_from)
    index = cm.read_index(prefix)
    groups = _select(vars_to_warm_start)
    for full_name, parts in sorted(groups.items()):
        prev = renames.get(full_name, full_name)
        _warm_start_group(index, full_name, prev, parts)
        logger.info("Warm-starting variable: %s; prev_var_name: %s", full_name,
                    prev if prev != full_name else "Unchanged")
    unused = sorted(set(renames) - set(groups))
    if unused:
        raise ValueError(f"warm_start: var_name_to_prev_var_name names variables that were "
                         f"not warm-started: {unused}")
    logger.info("Warm-started %d variables from %s.", len(groups), prefix)


def to_warm_start_settings(warm_start_from: Any) -> Optional[WarmStartSettings]:
    """``Estimator``'s ``warm_start_from`` (None, a path or ``WarmStartSettings``) as
    settings."""
    if warm_start_from is None:
        return None
    if isinstance(warm_start_from, (str, bytes)):
        return WarmStartSettings(ckpt_to_initialize_from=warm_start_from)
    if isinstance(warm_start_from, WarmStartSettings):
        return warm_start_from
    raise ValueError(f"warm_start_from must be a string or a WarmStartSettings, instead got "
                     f"{type(warm_start_from)}")


__all__ = ["VocabInfo", "WarmStartSettings", "warm_start", "to_warm_start_settings"]
