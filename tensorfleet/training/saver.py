"""``tf.train.Saver``: checkpoints of a graph's variables in TensorFlow's tensor-bundle
format (``tensor_bundle``), one data file per task that holds variables.

With ``sharded=True`` (the default here) variables are grouped by the task
that holds them; each group gets a save op and a restore op colocated with its
first variable, so on a cluster every parameter server writes and reads its
own data file and no variable value travels to the chief. The chief's Python code
only feeds the checkpoint prefix, collects each tensor's index entry (offset,
size, CRC-32C), and writes the ``.index`` table and the ``checkpoint`` state file
(see ``checkpoint_management`` for the crash-safety order).

The parts of a partitioned variable (and their optimizer slots) are saved as
slices of one tensor under the full name, as TensorFlow saves them, so a
checkpoint moves between the two in both directions. Safetensors checkpoints of
earlier releases are still restored.

All ops are built when the Saver is constructed (or at ``build()`` with
``defer_build=True``), so save and restore work on a finalized graph, as under
``MonitoredTrainingSession``.

"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import time
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.framework.graph import Graph, GraphKeys, get_default_graph
from tensorfleet.kernels.numpy.io_kernels import os_error
from tensorfleet.ops import array_ops, control_flow_ops, io_ops, state_ops
from tensorfleet.platform import tensor_bundle as bundle
from tensorfleet.training import checkpoint_management as cm
from tensorfleet.training.meta_graph_def import (MetaGraphDef, export_meta_graph,
                                                 write_meta_graph_file)

logger = logging.getLogger(__name__)

META_GRAPH_FORMAT = "tensorfleet-meta-graph"
# TensorFlow's GraphKeys.SAVEABLE_OBJECTS: saved by default besides the global variables.
_SAVEABLE_OBJECTS = getattr(GraphKeys, "SAVEABLE_OBJECTS", "saveable_objects")


class SaverDef:
    """What a Saver's graph elements are called (TensorFlow's ``SaverDef``), as plain data."""

    LEGACY = 0
    V1 = 1
    V2 = 2

    def __init__(self, filename_tensor_name: str = "", save_tensor_name: str = "",
                 restore_op_name: str = "", max_to_keep: int = 0, sharded: bool = False,
                 keep_checkpoint_every_n_hours: float = 10000.0, version: int = 2):
        self.filename_tensor_name = filename_tensor_name
        self.save_tensor_name = save_tensor_name
        self.restore_op_name = restore_op_name
        self.max_to_keep = max_to_keep
        self.sharded = sharded
        self.keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self.version = version

    def to_plain(self) -> Dict[str, Any]:
        """The fields as a JSON-compatible dict."""
        return dict(vars(self))


class _Group:
    """The ops of one shard: save outputs and the placeholders its restore is fed."""

    def __init__(self, items: List[Tuple[str, Any]], save_out: Tuple[Any, ...],
                 files: Any, shas: Any, sizes: Any):
        self.items = items
        self.save_out = save_out
        self.files, self.shas, self.sizes = files, shas, sizes


# Where a saved item sits in a tensor saved in slices: (full name, full shape, offsets, lengths).
_Slice = Tuple[str, List[int], List[int], List[int]]


def _slice_of(var: Any, full_name: Optional[str] = None) -> Optional[_Slice]:
    info = var._get_save_slice_info() if hasattr(var, "_get_save_slice_info") else None
    if info is None:
        return None
    return (full_name or info.full_name, list(info.full_shape), list(info.var_offset),
            list(info.var_shape))


def _var_slices(var_list: Any, items: List[Tuple[str, Any]]) -> Dict[str, _Slice]:
    """Checkpoint name -> slice, for the items that are parts of partitioned variables.
    A dict key naming a PartitionedVariable becomes the full name of its slices."""
    renamed: Dict[int, str] = {}
    if isinstance(var_list, dict):
        for k, v in var_list.items():
            parts = getattr(v, "_get_variable_list", None)
            if parts is not None and getattr(v, "_checkpoint_items", None) is None:
                renamed.update((id(p), str(k)) for p in parts())
    out: Dict[str, _Slice] = {}
    for name, v in items:
        sl = _slice_of(v, renamed.get(id(v)))
        if sl is not None:
            out[name] = sl
    return out


def _var_items(var_list: Any) -> List[Tuple[str, Any]]:
    """``(checkpoint name, variable)`` pairs from None, a dict or a sequence."""
    if var_list is None:
        g = get_default_graph()
        var_list = (g.get_collection(GraphKeys.GLOBAL_VARIABLES)
                    + g.get_collection(_SAVEABLE_OBJECTS))
    items: List[Tuple[Any, Any]] = []
    # The parts of a PartitionedVariable are items of their own; ``_var_slices`` says
    # which full tensor each is a slice of (safetensors checkpoints of earlier
    # releases name them ``<name>/part_<i>``, which is how they are still found).
    if isinstance(var_list, dict):
        for k, v in var_list.items():
            parts = getattr(v, "_get_variable_list", None)
            saveables = getattr(v, "_checkpoint_items", None)
            if saveables is not None:
                # A table saved as several tensors; a dict key renames its prefix.
                own = str(getattr(v, "name", k))
                items.extend((str(k) + n[len(own):] if n.startswith(own) else n, t)
                             for n, t in saveables())
            elif parts is not None:
                items.extend((f"{k}/part_{i}", p) for i, p in enumerate(parts()))
            else:
                items.append((str(k), v))
    elif isinstance(var_list, (list, tuple, set, frozenset)):
        for v in var_list:
            saveables = getattr(v, "_checkpoint_items", None)
            if saveables is not None:
                items.extend(saveables())
                continue
            parts = getattr(v, "_get_variable_list", None)
            for p in (parts() if parts is not None else [v]):
                items.append((getattr(getattr(p, "op", None), "name", None), p))
    else:
        raise TypeError(f"Saver: var_list must be None, a dict or a list of Variables, got "
                        f"{type(var_list).__name__}")
    seen: Dict[str, Any] = {}
    for name, v in items:
        if not hasattr(v, "_ref") or not hasattr(v, "op"):
            raise TypeError(f"Saver: can only save Variables, got {v!r} (for {name!r})")
        if name in seen:
            raise ValueError(f"At least two variables have the same name: {name}")
        seen[name] = v
    return items


def _restore_ops(variables: List[Any], restored: List[Any]) -> List[Any]:
    """An assign per variable; a saveable made of several tensors (a dynamic
    embedding shard) gets one restore op taking all of its tensors."""
    ops: List[Any] = []
    owners: Dict[int, Tuple[Any, Dict[str, Any]]] = {}
    for v, t in zip(variables, restored):
        group = getattr(v, "_restore_group", None)
        if group is None:
            ops.append(state_ops.assign(v, t, validate_shape=v.get_shape().is_fully_defined(),
                                        name="Assign").op)
            continue
        owner, field = group()
        owners.setdefault(id(owner), (owner, {}))[1][field] = t
    ops.extend(owner._restore_from(tensors) for owner, tensors in owners.values())
    return ops


def _check_against_index(index: Any, name: str, var: Any, reshape: bool,
                         sliced: Optional[_Slice] = None) -> None:
    """Fails before anything is assigned when the index already shows a mismatch."""
    if sliced is not None:
        full_name, full_shape, offsets, lengths = sliced
        if full_name not in index.tensors:
            raise errors.NotFoundError(None, None, f"Key {full_name} not found in checkpoint "
                                       f"{index.prefix}")
        if index.shape(full_name) != list(full_shape):
            raise errors.InvalidArgumentError(
                None, None, f"Cannot restore variable {var.op.name}: tensor {full_name} in "
                f"checkpoint {index.prefix} has shape {index.shape(full_name)} but the "
                f"partitioned variable has shape {list(full_shape)}")
        name = full_name
    dt = index.dtype(name)
    if dt is not var.dtype.base_dtype:
        raise errors.InvalidArgumentError(
            None, None, f"Cannot restore variable {var.op.name}: tensor {name} in checkpoint "
            f"{index.prefix} has dtype {dt.name} but the variable has dtype {var.dtype.name}")
    if sliced is not None:
        return
    saved, shape = index.shape(name), var.get_shape()
    if shape.is_compatible_with(saved):
        return
    if reshape and shape.is_fully_defined() and shape.num_elements() == int(np.prod(saved)):
        return
    raise errors.InvalidArgumentError(
        None, None, f"Cannot restore variable {var.op.name}: tensor {name} in checkpoint "
        f"{index.prefix} has shape {saved} but the variable has shape {shape.as_list()}")


class Saver:
    """Saves and restores variables as tensor-bundle checkpoints (TensorFlow's format).

    Args:
      var_list: the variables to save: None (all global variables), a list, or a
        dict from checkpoint name to variable.
      reshape: allow restoring a saved tensor into a variable of another shape with
        the same number of elements.
      sharded: one shard per task holding variables (else one file, written from
        the session's task).
      max_to_keep: how many recent checkpoints to keep; None or 0 keeps all files
        and names only the latest in the state file.
      keep_checkpoint_every_n_hours: additionally keep one checkpoint per this many
        hours.
      name: the name scope of the Saver's ops (default ``save``).
      restore_sequentially: restore shard after shard, to bound memory.
      defer_build: build the ops only at ``build()``.
      allow_empty: with no variables, save/restore do nothing instead of raising.
      write_version: ``SaverDef.V2`` (the tensor-bundle format); V1 is refused.
      pad_step_number: name checkpoints ``prefix-00000100`` rather than ``prefix-100``.
      save_relative_paths: store paths relative to the directory in the state file.
      filename: the prefix used when none is fed (``SaverDef.filename_tensor_name``).
    """

    def __init__(self, var_list: Any = None, reshape: bool = False, sharded: bool = True,
                 max_to_keep: Optional[int] = 5, keep_checkpoint_every_n_hours: float = 10000.0,
                 name: Optional[str] = None, restore_sequentially: bool = False,
                 saver_def: Any = None, builder: Any = None, defer_build: bool = False,
                 allow_empty: bool = False, write_version: int = SaverDef.V2,
                 pad_step_number: bool = False, save_relative_paths: bool = False,
                 filename: Optional[str] = None):
        if saver_def is not None or builder is not None:
            raise ValueError("Saver: saver_def and builder are not supported; the Saver "
                             "builds its own sharded checkpoint ops")
        if write_version != SaverDef.V2:
            raise ValueError(f"Saver: write_version={write_version} is not supported; only "
                             f"SaverDef.V2 (the tensor-bundle format) is written")
        self._var_list = var_list
        self._reshape = reshape
        self._sharded = sharded
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._name = name
        self._restore_sequentially = restore_sequentially
        self._allow_empty = allow_empty
        self._write_version = write_version
        self._pad_step_number = pad_step_number
        self._save_relative_paths = save_relative_paths
        self._filename = filename or "model"
        self._next_checkpoint_time = time.time() + keep_checkpoint_every_n_hours * 3600
        self._last_checkpoints: List[Tuple[str, float]] = []
        self._to_delete: List[Tuple[str, float]] = []
        self._built = False
        self._is_empty = False
        self._groups: List[_Group] = []
        self._graph: Optional[Graph] = None
        if not defer_build:
            self.build()

    # -- building ------------------------------------------------------------------------
    def build(self) -> None:
        """Builds the save and restore ops (once)."""
        if self._built:
            return
        items = _var_items(self._var_list)
        self._slices = _var_slices(self._var_list, items)
        self._check_slice_keys(items)
        self._built = True
        if not items:
            if self._allow_empty:
                self._is_empty = True
                return
            raise ValueError("No variables to save")
        g = items[0][1].graph
        self._graph = g
        groups = io_ops.group_by_task(items) if self._sharded else [sorted(items,
                                                                           key=lambda i: i[0])]
        with g.as_default(), g.name_scope(self._name or "save"):
            self._filename_tensor = array_ops.placeholder_with_default(
                np.array(self._filename.encode(), dtype=object), shape=[], name="Const")
            prev: List[Any] = []
            restores: List[Any] = []
            for i, grp in enumerate(groups):
                group, prev = self._build_group(g, grp, i, len(groups), prev)
                self._groups.append(group)
                restores.extend(prev)
            with g.control_dependencies([grp.save_out[0].op for grp in self._groups]):
                self._save_tensor = array_ops.identity(self._filename_tensor,
                                                       name="control_dependency")
            self._restore_op = control_flow_ops.group(*restores, name="restore_all")

    def _check_slice_keys(self, items: List[Tuple[str, Any]]) -> None:
        """Refuses two items that would share one key of the index."""
        plain = {n for n, _ in items if n not in self._slices}
        seen: Dict[Tuple[str, Tuple[int, ...]], str] = {}
        for name, (full, _, offsets, _) in self._slices.items():
            if full in plain:
                raise ValueError(f"Saver: {full} is both a variable and the full name of "
                                 f"partitioned variable part {name}")
            other = seen.setdefault((full, tuple(offsets)), name)
            if other != name:
                raise ValueError(f"Saver: {other} and {name} are the same slice of {full}")

    def _anchor(self, g: Graph, var: Any) -> Any:
        return g.colocate_with(var.op) if self._sharded else contextlib.nullcontext()

    def _build_group(self, g: Graph, items: List[Tuple[str, Any]], i: int, n: int,
                     prev: List[Any]) -> Tuple[_Group, List[Any]]:
        names = [k for k, _ in items]
        variables = [v for _, v in items]
        with self._anchor(g, variables[0]):
            # Sharded: the variable references themselves, read in place on their task.
            # Unsharded: their values, which may travel to wherever the save op runs.
            values = [v._ref() if self._sharded else v.value() for v in variables]
            save_out = (io_ops.save_bundle_shard(self._filename_tensor, names, values, i, n,
                                                 name="save_shard"),)
        files = array_ops.placeholder(_dtypes.string, [len(items)], name="shard_files")
        shas = array_ops.placeholder(_dtypes.string, [len(items)], name="shard_sha256")
        sizes = array_ops.placeholder(_dtypes.int64, [len(items)], name="shard_sizes")
        deps = prev if self._restore_sequentially else []
        with g.control_dependencies(deps):
            with self._anchor(g, variables[0]):
                restored = io_ops.restore_shard(
                    files, shas, sizes, names, [v.dtype for v in variables],
                    [v.get_shape() for v in variables], [v.op.name for v in variables],
                    reshape=self._reshape, name="restore_shard")
            assigns = _restore_ops(variables, restored)
        return _Group(items, save_out, files, shas, sizes), assigns

    def as_saver_def(self) -> SaverDef:
        """The names of this Saver's filename tensor, save tensor and restore op."""
        self.build()
        if self._is_empty:
            return SaverDef(max_to_keep=self._max_to_keep or 0, sharded=self._sharded)
        return SaverDef(self._filename_tensor.name, self._save_tensor.name,
                        self._restore_op.name, self._max_to_keep or 0, self._sharded,
                        self._keep_hours, self._write_version)

    to_proto = as_saver_def

    @property
    def saver_def(self) -> SaverDef:
        """This Saver's ``SaverDef`` (as ``as_saver_def()``)."""
        return self.as_saver_def()

    def export_meta_graph(self, filename: Optional[str] = None,
                          collection_list: Optional[List[str]] = None, as_text: bool = False,
                          export_scope: Optional[str] = None, clear_devices: bool = False,
                          clear_extraneous_savers: bool = False,
                          strip_default_attrs: bool = False,
                          save_debug_info: bool = False) -> MetaGraphDef:
        """``tf.train.export_meta_graph`` of this Saver's graph with its ``saver_def``."""
        return export_meta_graph(filename, saver_def=self.saver_def,
                                 collection_list=collection_list, as_text=as_text,
                                 graph=self._graph or get_default_graph(),
                                 export_scope=export_scope, clear_devices=clear_devices,
                                 clear_extraneous_savers=clear_extraneous_savers,
                                 strip_default_attrs=strip_default_attrs,
                                 save_debug_info=save_debug_info)

    # -- saving --------------------------------------------------------------------------
    def save(self, sess: Any, save_path: str, global_step: Any = None,
             latest_filename: Optional[str] = None, meta_graph_suffix: str = "meta",
             write_meta_graph: bool = True, write_state: bool = True,
             strip_default_attrs: bool = False) -> Optional[str]:
        """Saves the variables; returns the checkpoint prefix (``save_path-<step>``).

        If writing fails, the files this save wrote are removed and the previous
        checkpoint stays the latest.

        Raises:
          ValueError: the parent directory of ``save_path`` does not exist, or
            ``latest_filename`` has directory components.
          ResourceExhaustedError: the disk (or quota) is full, naming the file.
        """
        self.build()
        latest_filename = latest_filename or cm.DEFAULT_STATE_FILENAME
        if os.path.basename(latest_filename) != latest_filename:
            raise ValueError(f"'latest_filename' must not contain path components: "
                             f"{latest_filename!r}")
        step = None
        prefix = save_path
        step_key = None
        if global_step is not None:
            if isinstance(global_step, (int, np.integer)):
                step = int(global_step)
            else:
                step = int(np.asarray(sess.run(global_step)))
                step_key = self._key_of(global_step)
            prefix = self._step_prefix(save_path, step)
        save_dir = os.path.dirname(prefix)
        if save_dir and not os.path.isdir(save_dir):
            raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save.")
        if self._is_empty:
            return None
        prefix = self._save_at(sess, save_path, prefix, step, step_key)
        return self._after_save(prefix, latest_filename, meta_graph_suffix, write_meta_graph,
                                write_state)

    def _step_prefix(self, save_path: str, step: int) -> str:
        return f"{save_path}-{step:08d}" if self._pad_step_number else f"{save_path}-{step}"

    def _key_of(self, global_step: Any) -> Optional[str]:
        """The name under which this saver writes the variable ``global_step`` (a
        variable or a tensor reading one), or None when it does not write it."""
        op = getattr(global_step, "op", None)
        name = getattr(op, "name", None)
        if name is None:
            return None
        base = op.inputs[0].op.name if op.type in ("Identity", "ReadVariableOp") and \
            op.inputs else name  # the ``var/read`` tensor of a variable
        for grp in self._groups:
            for key, var in grp.items:
                if getattr(getattr(var, "op", None), "name", None) in (name, base):
                    return key
        return None

    @staticmethod
    def _staging_prefix(prefix: str) -> Tuple[str, List[str]]:
        # Saving again to a prefix that already has a checkpoint (the same step twice)
        # must not overwrite the files its index names before the new checkpoint is
        # complete: it is written whole under a temporary prefix, then its data files
        # and last its index are renamed over the old ones. A failure before that leaves
        # the old checkpoint as it was; a crash amid the renames leaves data that fails
        # the old index's checksums, which restore reports and falls back from.
        # Returns the prefix to write under and the old files the new ones do not replace.
        legacy: List[str] = []
        staging = prefix
        if cm.checkpoint_exists(prefix):
            try:
                old = cm.read_index(prefix)
                directory = os.path.dirname(prefix)
                legacy = [os.path.join(directory, f) for f in old.shards]
                if not isinstance(old, bundle.BundleIndex):
                    legacy.append(cm.index_path(prefix))
            except errors.OpError:
                pass
            staging = f"{prefix}.tmp-{secrets.token_hex(4)}"
        return staging, legacy

    def _save_at(self, sess: Any, save_path: str, prefix: str, step: Optional[int],
                 step_key: Optional[str]) -> str:
        """Writes the data files and the index; returns the checkpoint's prefix."""
        staging, legacy = self._staging_prefix(prefix)
        n = len(self._groups)
        legacy = [f for f in legacy if f not in
                  {bundle.data_filename(prefix, i, n) for i in range(n)}]
        written = [bundle.data_filename(staging, i, n) for i in range(n)]
        try:
            entries = self._write_shards(sess, staging)
            held = self._scalar_written(staging, entries, step_key, n)
            if held is not None and held != step:
                # Another worker's step landed between reading the global step and
                # writing it: name the checkpoint by the step it holds.
                step = held
                prefix = self._step_prefix(save_path, step)
                new_staging, legacy = self._staging_prefix(prefix)
                legacy = [f for f in legacy if f not in
                          {bundle.data_filename(prefix, i, n) for i in range(n)}]
                renamed = [bundle.data_filename(new_staging, i, n) for i in range(n)]
                for src, dst in zip(written, renamed):
                    os.replace(src, dst)
                staging, written = new_staging, renamed
            data = bundle.build_index(n, entries)
            index_file = bundle.index_path(staging)
            try:
                cm.atomic_write(index_file, data)
            except OSError as e:
                raise os_error(e, f"Failed to write checkpoint index {index_file}") from None
        except (errors.OpError, OSError):
            # No index names these files: remove them, so that a full disk gets its
            # space back and nothing half-saved lies next to the intact checkpoints.
            _remove_quietly(written)
            raise
        if staging != prefix:
            try:
                for i in range(n):
                    os.replace(written[i], bundle.data_filename(prefix, i, n))
                os.replace(bundle.index_path(staging), bundle.index_path(prefix))
            except OSError as e:
                _remove_quietly(written + [bundle.index_path(staging)])
                raise os_error(e, f"Failed to replace checkpoint {prefix}") from None
        _remove_quietly(legacy)
        return prefix

    def _after_save(self, prefix: str, latest_filename: str, meta_graph_suffix: str,
                    write_meta_graph: bool, write_state: bool) -> str:
        save_dir = os.path.dirname(prefix)
        if write_state:
            self._record_last_checkpoint(prefix)
            recorded = self._last_checkpoints or [(prefix, time.time())]
            cm.update_checkpoint_state(
                save_dir or ".", self._state_entry(prefix),
                [self._state_entry(p) for p, _ in recorded], latest_filename,
                all_model_checkpoint_timestamps=[t for _, t in recorded]
                if all(np.isfinite(t) for _, t in recorded) else None,
                save_relative_paths=self._save_relative_paths)
            self._maybe_delete_old_checkpoints(meta_graph_suffix)
        if write_meta_graph:
            self._write_meta_graph(f"{prefix}.{meta_graph_suffix}")
        logger.info("Saved checkpoint %s (%d shard(s))", prefix, len(self._groups))
        return prefix

    def _write_shards(self, sess: Any, prefix: str) -> List[Tuple[bytes, Any]]:
        """Runs every group's save op; returns the index's ``(key, entry)`` pairs."""
        results = sess.run([g.save_out[0] for g in self._groups],
                           {self._filename_tensor: prefix})
        out: List[Tuple[bytes, Any]] = []
        full: Dict[str, Any] = {}
        for grp, raw in zip(self._groups, results):
            raw = list(np.asarray(raw, dtype=object).reshape(-1))
            if len(raw) != len(grp.items):
                raise errors.InternalError(None, None, f"save op returned {len(raw)} entries "
                                           f"for {len(grp.items)} tensors")
            for (name, _), r in zip(grp.items, raw):
                entry = bundle.BundleEntryProto()
                entry.ParseFromString(r if isinstance(r, bytes) else bytes(r))
                sliced = self._slices.get(name)
                if sliced is None:
                    out.append((name.encode("utf-8"), entry))
                    continue
                full_name, full_shape, offsets, lengths = sliced
                out.append((bundle.slice_key(full_name, offsets, lengths), entry))
                whole = full.get(full_name)
                if whole is None:
                    whole = full[full_name] = bundle.BundleEntryProto(
                        dtype=entry.dtype, shape=bundle.shape_proto(full_shape))
                whole.slices.append(bundle.make_slice_proto(offsets, lengths))
        for full_name, whole in full.items():
            # Slices listed in key order, as TensorFlow lists them.
            order = sorted(range(len(whole.slices)), key=lambda i: [
                e.start for e in whole.slices[i].extent])
            ordered = [whole.slices[i] for i in order]
            del whole.slices[:]
            whole.slices.extend(ordered)
            out.append((full_name.encode("utf-8"), whole))
        return out

    @staticmethod
    def _scalar_written(prefix: str, entries: List[Tuple[bytes, Any]], key: Optional[str],
                        num_shards: int) -> Optional[int]:
        """The integer scalar the checkpoint holds under ``key`` (None without one)."""
        if key is None:
            return None
        for name, entry in entries:
            if name == key.encode("utf-8") and not entry.slices:
                value = np.asarray(bundle.read_entry(prefix, entry, num_shards, key))
                if value.shape == () and np.issubdtype(value.dtype, np.integer):
                    return int(value)
        return None

    def _state_entry(self, prefix: str) -> str:
        # Relative prefixes become absolute: the state file's readers resolve
        # relative entries against its own directory, not the saver's cwd.
        return prefix if self._save_relative_paths else os.path.abspath(prefix)

    def _record_last_checkpoint(self, prefix: str) -> None:
        """Appends ``prefix`` and rotates out what exceeds ``max_to_keep``; the files of
        rotated-out checkpoints are deleted only after the state file stops naming them."""
        if not self._max_to_keep:
            return
        self._last_checkpoints = [(p, t) for p, t in self._last_checkpoints if p != prefix]
        self._last_checkpoints.append((prefix, time.time()))
        while len(self._last_checkpoints) > self._max_to_keep:
            self._to_delete.append(self._last_checkpoints.pop(0))

    def _maybe_delete_old_checkpoints(self, meta_graph_suffix: str) -> None:
        while self._to_delete:
            path, stamp = self._to_delete.pop(0)
            if stamp > self._next_checkpoint_time:
                # One checkpoint per keep_checkpoint_every_n_hours survives rotation.
                self._next_checkpoint_time += self._keep_hours * 3600
                continue
            cm.remove_checkpoint(path, meta_graph_suffix=meta_graph_suffix)

    def _write_meta_graph(self, path: str) -> None:
        g = self._graph or get_default_graph()
        try:
            # Every collection with a plain form (variables, train_op, global step...)
            # goes in, so tf.train.import_meta_graph can resume training from it.
            meta = export_meta_graph(saver_def=self.as_saver_def(), graph=g)
        except (TypeError, ValueError) as e:
            logger.warning("Not writing meta graph %s: the graph is not plain data (%s)",
                           path, e)
            return
        try:
            write_meta_graph_file(path, meta)
        except OSError as e:
            raise os_error(e, f"Failed to write meta graph {path}") from None

    # -- restoring -----------------------------------------------------------------------
    def restore(self, sess: Any, save_path: Optional[str]) -> None:
        """Restores the variables from checkpoint ``save_path`` (a prefix).

        Raises:
          ValueError: ``save_path`` is None.
          NotFoundError: no checkpoint at ``save_path``, or a variable missing from it.
          InvalidArgumentError: a saved dtype or shape differs from its variable's.
          DataLossError: a shard or the index is missing, truncated or corrupt (the
            message names the file). To fall back to an older checkpoint instead,
            restore through ``checkpoint_management.restore_newest_intact``.
        """
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        self.build()
        if self._is_empty:
            return
        index = cm.read_index(save_path)
        logger.info("Restoring parameters from %s", save_path)
        feed: Dict[Any, Any] = {}
        shard_files: Set[str] = set()
        is_bundle = isinstance(index, bundle.BundleIndex)
        for grp in self._groups:
            files, shas, sizes = [], [], []
            for name, var in grp.items:
                sliced = self._slices.get(name) if is_bundle else None
                _check_against_index(index, name, var, self._reshape, sliced)
                if sliced is not None:
                    path, sha, size = index.locate_slice(sliced[0], sliced[2], sliced[3])
                else:
                    path, sha, size = index.locate(name)
                files.append(path)
                shas.append(sha)
                sizes.append(size)
            feed[grp.files] = np.array(files, dtype=object)
            feed[grp.shas] = np.array(shas, dtype=object)
            feed[grp.sizes] = np.array(sizes, dtype=np.int64)
            shard_files.update(files)
        try:
            sess.run(self._restore_op, feed)
        except errors.NotFoundError as e:
            # Every key was found in the index above, so what is missing now is a
            # file the index names: the checkpoint has lost data.
            if not any(f in e.message for f in shard_files) and \
                    f"{save_path}.data-" not in e.message:
                raise
            raise errors.DataLossError(e.node_def, e.op, f"Checkpoint {save_path} is damaged: "
                                       f"{e.message}", task=e.task) from None

    # -- bookkeeping ---------------------------------------------------------------------
    @property
    def last_checkpoints(self) -> List[str]:
        """The prefixes of the checkpoints not yet deleted, oldest first."""
        return [p for p, _ in self._last_checkpoints]

    def set_last_checkpoints(self, last_checkpoints: Sequence[str]) -> None:
        """Deprecated: sets the list without times (such checkpoints are never deleted)."""
        self._last_checkpoints = [(p, float("inf")) for p in last_checkpoints]

    def set_last_checkpoints_with_time(self,
                                       last_checkpoints_with_time: Sequence[Tuple[str, float]]
                                       ) -> None:
        """Sets the ``(prefix, timestamp)`` list that ``max_to_keep`` rotates."""
        self._last_checkpoints = [(str(p), float(t)) for p, t in last_checkpoints_with_time]

    def recover_last_checkpoints(self, checkpoint_paths: Sequence[str]) -> None:
        """Takes over the existing checkpoints among ``checkpoint_paths`` (e.g. after a
        restart, from ``get_checkpoint_state(...).all_model_checkpoint_paths``)."""
        pairs = []
        for p in checkpoint_paths:
            mt = cm.get_checkpoint_mtimes([p])
            if mt:
                pairs.append((p, mt[0]))
        self.set_last_checkpoints_with_time(pairs)


def _remove_quietly(paths: Sequence[str]) -> None:
    # Best effort: a shard written by a parameter server may sit on a disk the chief
    # cannot reach; it is never loaded anyway, as no index names it.
    for path in paths:
        try:
            os.remove(path)
        except OSError:
            pass


__all__ = ["Saver", "SaverDef"]
