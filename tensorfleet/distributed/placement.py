"""Placement: which task of the cluster runs each op of a step.

Pure functions of the graph and the cluster, so tests drive them directly:
device scopes choose a task, ops colocated with a variable (``_class`` attrs and
ops that take a variable reference) follow it, and specs that name only a device
(``/cpu:0``) land on the session's own task.
"""

from __future__ import annotations

import logging
from typing import Dict, List, Optional, Sequence

from tensorfleet import errors
from tensorfleet.distributed.cluster import ClusterSpec
from tensorfleet.framework.device import DeviceSpec
from tensorfleet.framework.graph import Operation
from tensorfleet.kernels.registry import registered_device_types

logger = logging.getLogger(__name__)


class _UnionFind:
    def __init__(self) -> None:
        self.parent: Dict[str, str] = {}

    def find(self, x: str) -> str:
        p = self.parent.setdefault(x, x)
        while p != self.parent[p]:
            self.parent[p] = self.parent[self.parent[p]]
            p = self.parent[p]
        self.parent[x] = p
        return p

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


def _group_key(op: Operation) -> str:
    groups = op.attrs.get("_class")
    if groups:
        return groups[0][len("loc:@"):] if groups[0].startswith("loc:@") else groups[0]
    return op.name


def task_of(spec: DeviceSpec, default_task: DeviceSpec, cluster: ClusterSpec,
            op_name: str, allow_soft_placement: bool) -> str:
    """The ``/job:x/task:n`` an op with device ``spec`` runs on; InvalidArgumentError
    naming the op when the cluster has no such task or device."""
    if spec.device_type is not None and spec.device_type not in registered_device_types():
        if not allow_soft_placement:
            raise errors.InvalidArgumentError(
                op_name, None, f"Cannot assign a device for operation {op_name}: "
                f"{spec.to_string()} was requested but this cluster has only CPU devices. "
                f"Set allow_soft_placement=True in the ConfigProto to place it on a CPU.")
    if spec.job is None:
        job, task = default_task.job, default_task.task or 0
        if spec.task is not None and allow_soft_placement:
            task = spec.task
    else:
        job, task = spec.job, (spec.task or 0)
    if job not in cluster.jobs:
        raise errors.InvalidArgumentError(
            op_name, None, f"Cannot assign a device for operation {op_name}: job {job!r} is "
            f"not in the cluster (jobs: {cluster.jobs}); device was {spec.to_string()!r}")
    if task not in cluster.task_indices(job):  # type: ignore[arg-type]
        raise errors.InvalidArgumentError(
            op_name, None, f"Cannot assign a device for operation {op_name}: /job:{job} has no "
            f"task {task} (tasks: {cluster.task_indices(job)})")  # type: ignore[arg-type]
    return f"/job:{job}/task:{task}"


def place(ops: Sequence[Operation], cluster: ClusterSpec, default_task: str,
          allow_soft_placement: bool = False,
          device_filters: Optional[Sequence[str]] = None) -> Dict[Operation, str]:
    """Assigns every op to a task name.

    Colocation groups are formed from ``_class`` attrs and from variable reference
    inputs; a group takes the device of its variable (the op with a ref output)
    if it has one, else of its first member with an explicit job.
    """
    default = DeviceSpec.from_string(default_task)
    uf = _UnionFind()
    for op in ops:
        uf.union(_group_key(op), op.name)
        for i in op.op_def.ref_indices(op):
            if i < len(op.inputs):
                uf.union(_group_key(op.inputs[i].op), op.name)
    members: Dict[str, List[Operation]] = {}
    for op in ops:
        members.setdefault(uf.find(op.name), []).append(op)
    by_name = {op.name: op for op in ops}
    placement: Dict[Operation, str] = {}
    task_of_root: Dict[str, str] = {}
    # Groups holding a variable first: when a device names a task that does not exist,
    # the error names the variable the user placed, not a constant feeding it.
    order = sorted(members.items(), key=lambda kv: not any(o.op_def.ref_output
                                                           for o in kv[1]))
    for root, group in order:
        anchor = by_name.get(root)
        chosen = None
        for cand in ([anchor] if anchor is not None else []) + group:
            if cand is not None and cand.op_def.ref_output and cand.device:
                chosen = cand
                break
        if chosen is None:
            chosen = next((o for o in group if DeviceSpec.from_string(o.device).job), None)
        if chosen is None:
            chosen = next((o for o in group if o.device), group[0])
        spec = DeviceSpec.from_string(chosen.device)
        task_of_root[root] = task_of(spec, default, cluster, chosen.name, allow_soft_placement)
    for root, group in members.items():
        for op in group:
            placement[op] = task_of_root[root]
    if device_filters:
        allowed = [DeviceSpec.from_string(f) for f in device_filters]
        for op, task in placement.items():
            t = DeviceSpec.from_string(task)
            if not any(_matches(t, a) for a in allowed):
                raise errors.InvalidArgumentError(
                    op.name, None, f"Operation {op.name} is placed on {task}, which the "
                    f"session's device_filters {list(device_filters)} exclude")
    return placement


def _matches(task: DeviceSpec, pattern: DeviceSpec) -> bool:
    return ((pattern.job is None or pattern.job == task.job)
            and (pattern.task is None or pattern.task == task.task))


# tf.debugging.set_log_device_placement: log placements for every session.
_LOG_ALWAYS = [False]


def set_log_device_placement(enabled: bool) -> None:
    """Logs where each op runs, as ``ConfigProto(log_device_placement=True)`` does, for
    every session whatever its config (while ``enabled``)."""
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool, got {enabled!r}")
    _LOG_ALWAYS[0] = enabled


def get_log_device_placement() -> bool:
    """Whether ``set_log_device_placement(True)`` is in effect."""
    return _LOG_ALWAYS[0]


def log_placement(placement: Dict[Operation, str]) -> List[str]:
    """One ``op: (type): /job:x/task:n/device:CPU:0`` line per op, also logged."""
    lines = [f"{op.name}: ({op.type}): {task}/replica:0/device:CPU:0"
             for op, task in placement.items()]
    for line in lines:
        logger.info("%s", line)
    return lines


__all__ = ["place", "task_of", "log_placement", "set_log_device_placement",
           "get_log_device_placement"]
