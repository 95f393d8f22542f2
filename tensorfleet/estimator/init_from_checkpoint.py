"""``tf.train.init_from_checkpoint``: variables that start from named checkpoint tensors.

The checkpoint-to-graph mapping (``assignment_map``) is resolved here into
variables and the checkpoint names they come from; the work of replacing each
initializer by a read of the checkpoint (partitioned variables included) is
``warm_start``'s. Keys are checkpoint names or scopes, values the current
variables (names, scopes, ``Variable`` or ``PartitionedVariable`` objects, or
lists of partitions):

* ``{"old/w": "new/w"}`` or ``{"old/w": w}``: one variable;
* ``{"old/": "new/"}``: every current variable under ``new/`` from the
  checkpoint tensor of the same name under ``old/``;
* ``{"/": "new/"}`` or ``{"old/": "/"}``: the root on either side.
"""

from __future__ import annotations

import logging
from typing import Any, Dict, List, Mapping

from tensorfleet.estimator.warm_starting import _full_name, _resolve_checkpoint, warm_start
from tensorfleet.framework.graph import GraphKeys, get_default_graph
from tensorfleet.ops.partitioned_variables import PartitionedVariable
from tensorfleet.ops.variables import Variable
from tensorfleet.training import checkpoint_management as cm

logger = logging.getLogger(__name__)


def _graph_groups() -> Dict[str, List[Variable]]:
    """Global variables of the default graph by full name (partitions together)."""
    groups: Dict[str, List[Variable]] = {}
    for v in get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES):
        if isinstance(v, Variable):
            groups.setdefault(_full_name(v), []).append(v)
    return groups


def _ckpt_names(index: cm.CheckpointIndex) -> set:
    """Checkpoint tensor names, a partitioned tensor also under its full name."""
    names = set(index.tensors)
    for n in index.tensors:
        base, sep, part = n.rpartition("/part_")
        if sep and part.isdigit():
            names.add(base)
    return names


def _as_variables(value: Any) -> List[Variable]:
    if isinstance(value, PartitionedVariable):
        return list(value)
    if isinstance(value, (list, tuple)):
        return [p for v in value for p in _as_variables(v)]
    if isinstance(value, Variable):
        return [value]
    raise ValueError(f"init_from_checkpoint: assignment_map values must be variable names, "
                     f"scopes or variables, got {value!r}")


def init_from_checkpoint(ckpt_dir_or_file: str, assignment_map: Mapping[str, Any]) -> None:
    """Makes the mapped variables of the default graph start from the checkpoint
    (their initializers read it; a session restoring its own checkpoint ignores it).

    Raises:
      ValueError: no checkpoint there, a key naming no checkpoint tensor, a value
        naming no variable of the graph, or shapes or dtypes that differ.
    """
    prefix = _resolve_checkpoint(ckpt_dir_or_file)
    index = cm.read_index(prefix)
    in_ckpt = _ckpt_names(index)
    groups = _graph_groups()
    chosen: Dict[str, List[Variable]] = {}
    renames: Dict[str, str] = {}
    for ckpt_key, current in assignment_map.items():
        if isinstance(current, str) and (current.endswith("/") or ckpt_key.endswith("/")):
            scope = "" if current == "/" else current
            ckpt_scope = "" if ckpt_key == "/" else ckpt_key
            if not scope.endswith("/") and scope:
                scope += "/"
            if ckpt_scope and not ckpt_scope.endswith("/"):
                ckpt_scope += "/"
            matched = [n for n in groups if n.startswith(scope)]
            for name in matched:
                source = ckpt_scope + name[len(scope):]
                if source not in in_ckpt:
                    raise ValueError(f"init_from_checkpoint: tensor {source} (for variable "
                                     f"{name}) is not in checkpoint {prefix}")
                chosen[name] = groups[name]
                renames[name] = source
            if not matched:
                raise ValueError(f"init_from_checkpoint: no variable of the graph is under "
                                 f"scope {current!r}")
            continue
        if ckpt_key not in in_ckpt:
            raise ValueError(f"init_from_checkpoint: tensor {ckpt_key} is not in checkpoint "
                             f"{prefix}")
        if isinstance(current, str):
            if current not in groups:
                raise ValueError(f"init_from_checkpoint: variable {current} is not in the "
                                 f"graph")
            variables = groups[current]
        else:
            variables = _as_variables(current)
        name = _full_name(variables[0])
        chosen[name] = variables
        renames[name] = ckpt_key
    parts = [v for name in sorted(chosen) for v in chosen[name]]
    if parts:
        warm_start(prefix, vars_to_warm_start=parts, var_name_to_prev_var_name=renames)
    logger.info("Initialized %d variables from %s", len(chosen), prefix)


__all__ = ["init_from_checkpoint"]
