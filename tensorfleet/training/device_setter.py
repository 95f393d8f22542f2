"""``tf.train.replica_device_setter``: variables on parameter servers, the rest on workers.

Between-graph replication has every worker build the same graph; a device
function then puts each variable (and other stateful ops that must be shared)
on a parameter-server task and everything else on the worker itself. Which ps
task gets a variable is a *strategy*: round-robin by default, which is cheap but
can pile every weight matrix on one ps and every bias on another when there are
two ps tasks; ``GreedyLoadBalancingStrategy`` with ``byte_size_load_fn`` instead
gives each variable to the ps holding the fewest bytes so far.

The strategies are called once per placed op, in graph-construction order, so
every worker that builds the same graph computes the same placement.
"""

from __future__ import annotations

import hashlib
import logging
from typing import Any, Callable, Dict, List, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.device import DeviceSpec
from tensorfleet.framework.tensor_shape import TensorShape, as_shape
from tensorfleet.distributed.cluster import ClusterSpec

logger = logging.getLogger(__name__)

# Op types holding state that all workers must share, so they live on a ps task.
STANDARD_PS_OPS = (
    "Variable", "VariableV2", "AutoReloadVariable", "VarHandleOp",
    "MutableHashTable", "MutableHashTableV2", "MutableHashTableOfTensors",
    "MutableHashTableOfTensorsV2", "MutableDenseHashTable", "MutableDenseHashTableV2",
    "ResourceConditionalAccumulator",
    "DynamicEmbeddingTable",
)

DeviceFunction = Callable[[Any], str]


def _op_type(op: Any) -> str:
    # Operations carry ``type``; plain node dicts (serialized graphs) carry ``op``.
    if isinstance(op, dict):
        return str(op.get("op", ""))
    return str(getattr(op, "type", ""))


def _op_device(op: Any) -> str:
    if isinstance(op, dict):
        return str(op.get("device", "") or "")
    return str(getattr(op, "device", "") or "")


class _RoundRobinStrategy:
    """Hands out ps tasks 0, 1, ..., n-1, 0, ... in the order ops are placed."""

    def __init__(self, num_tasks: int):
        if num_tasks < 1:
            raise ValueError(f"Round-robin placement needs at least one ps task, got "
                             f"{num_tasks}")
        self._num_tasks = int(num_tasks)
        self._next_task = 0

    def __call__(self, unused_op: Any) -> int:
        task = self._next_task
        self._next_task = (task + 1) % self._num_tasks
        return task


class GreedyLoadBalancingStrategy:
    """Gives each op to the ps task with the least load so far, then adds the op's
    load (``load_fn(op)``, e.g. ``byte_size_load_fn``) to that task.

    Ties go to the lowest task index, so the placement is deterministic.
    """

    def __init__(self, num_tasks: int, load_fn: Callable[[Any], float]):
        if num_tasks < 1:
            raise ValueError(f"GreedyLoadBalancingStrategy needs at least one ps task, got "
                             f"{num_tasks}")
        if not callable(load_fn):
            raise TypeError(f"load_fn must be callable, got {load_fn!r}")
        self._num_tasks = int(num_tasks)
        self._load_fn = load_fn
        self._ps_loads: List[float] = [0.0] * self._num_tasks

    @property
    def loads(self) -> List[float]:
        """The load placed on each ps task so far."""
        return list(self._ps_loads)

    def __call__(self, op: Any) -> int:
        task = min(range(self._num_tasks), key=lambda i: (self._ps_loads[i], i))
        self._ps_loads[task] += float(self._load_fn(op))
        return task


class RandomStrategy:
    """Picks a ps task from a hash of the op's name (and ``seed``): stable across
    workers and runs, independent of construction order."""

    def __init__(self, num_ps_replicas: int, seed: int = 0):
        if num_ps_replicas < 1:
            raise ValueError(f"RandomStrategy needs at least one ps task, got {num_ps_replicas}")
        self._num = int(num_ps_replicas)
        self._seed = int(seed)

    def __call__(self, op: Any) -> int:
        name = op.get("name", "") if isinstance(op, dict) else getattr(op, "name", "")
        # A cryptographic hash only for its stable spread; Python's hash() is salted per process.
        digest = hashlib.md5(f"{name}_{self._seed}".encode("utf-8")).hexdigest()
        return int(digest, 16) % self._num


def byte_size_load_fn(op: Any) -> int:
    """The bytes of a single-output op's output (a variable's storage), from its static
    shape and dtype.

    The output shape of a variable op is not inferred yet when a device function
    sees it, so the op's ``shape`` attr is used when the output shape is unknown.

    Raises:
      ValueError: if the op does not have exactly one output or its shape is not
        fully defined.
    """
    outputs = getattr(op, "outputs", None)
    if outputs is None or len(outputs) != 1:
        raise ValueError(f"byte_size_load_fn: op {getattr(op, 'name', op)!r} must have a "
                         f"single output")
    out = outputs[0]
    shape: TensorShape = out.get_shape()
    if not shape.is_fully_defined():
        attr = getattr(op, "attrs", {}).get("shape")
        if attr is not None:
            shape = as_shape(attr)
    if not shape.is_fully_defined():
        raise ValueError(f"byte_size_load_fn: the shape of {op.name} is not fully defined "
                         f"({shape}); give the variable a static shape")
    dt = _dtypes.as_dtype(out.dtype).base_dtype
    # Strings have no fixed size; count them as a pointer-sized element.
    elem = dt.size if dt.size else 8
    return int(shape.num_elements()) * elem


class _ReplicaDeviceChooser:
    """The device function returned by ``replica_device_setter``."""

    def __init__(self, ps_tasks: int, ps_device: str, worker_device: str, merge_devices: bool,
                 ps_ops: Sequence[str], ps_strategy: Callable[[Any], int]):
        self._ps_tasks = ps_tasks
        self._ps_device = ps_device
        self._worker_device = worker_device
        self._merge_devices = merge_devices
        self._ps_ops = frozenset(ps_ops)
        self._ps_strategy = ps_strategy
        # Parsed once: the function runs for every op of the graph.
        self._ps_spec = DeviceSpec.from_string(ps_device or "")
        self._worker_spec = DeviceSpec.from_string(worker_device or "")

    def device_function(self, op: Any) -> str:
        """The device of ``op``: a ps task for shared state, else the worker device.

        As in TensorFlow, the fields set by device scopes nested *inside* this one
        are the op's current device: they win over what this function chooses, and
        a variable pinned to another job does not take a ps task's turn. Scopes
        *outside* only fill the fields still unset. With ``merge_devices=False`` an
        op whose current device is set keeps it unchanged.
        """
        current_str = _op_device(op)
        if not self._merge_devices and current_str:
            return DeviceSpec.from_string(current_str).to_string()
        return self._choose(op, DeviceSpec.from_string(current_str)).to_string()

    def _choose(self, op: Any, current: DeviceSpec) -> DeviceSpec:
        if self._ps_tasks and self._ps_device and _op_type(op) in self._ps_ops:
            spec = self._ps_spec.copy()
            # Only ask the strategy when the op may really land on the ps job: an op
            # pinned to another job must not use up a ps task's turn or load.
            if spec.job and (not current.job or current.job == spec.job):
                spec.task = int(self._ps_strategy(op))
            spec.merge_from(current)
            return spec
        spec = self._worker_spec.copy()
        spec.merge_from(current)
        return spec


def _ps_tasks_from_cluster(cluster: Any, ps_device: str) -> Optional[int]:
    spec = cluster if isinstance(cluster, ClusterSpec) else ClusterSpec(cluster)
    job = DeviceSpec.from_string(ps_device or "").job
    if not job or job not in spec.jobs:
        return None
    return len(spec.task_indices(job))


def replica_device_setter(ps_tasks: int = 0, ps_device: str = "/job:ps",
                          worker_device: str = "/job:worker", merge_devices: bool = True,
                          cluster: Any = None, ps_ops: Optional[Sequence[str]] = None,
                          ps_strategy: Optional[Callable[[Any], int]] = None
                          ) -> Optional[DeviceFunction]:
    """A device function for ``tf.device`` that places variables on ps tasks.

    Args:
      ps_tasks: number of ps tasks (ignored when ``cluster`` is given).
      ps_device: device of the ps job; the chosen task index is added to it.
      worker_device: device of every other op, e.g. ``"/job:worker/task:0"``.
      merge_devices: keep the fields an outer device scope already set.
      cluster: a ``ClusterSpec`` (or its dict); the ps task count is that of the
        job named in ``ps_device``.
      ps_ops: op types placed on ps tasks (default ``STANDARD_PS_OPS``).
      ps_strategy: callable ``op -> task index``; default round-robin.

    Returns:
      The device function, or None when there are no ps tasks (so that
      ``tf.device(None)``-style code runs everything locally).

    Raises:
      TypeError: if ``ps_strategy`` is not callable.
    """
    if cluster is not None:
        found = _ps_tasks_from_cluster(cluster, ps_device)
        if found is None:
            return None
        ps_tasks = found
    if not ps_tasks:
        return None
    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)
    if not merge_devices:
        logger.warning("replica_device_setter(merge_devices=False) is deprecated: devices set "
                       "by outer scopes are then kept as they are, unmerged")
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError(f"ps_strategy must be callable (op -> task index), got {ps_strategy!r}")
    chooser = _ReplicaDeviceChooser(int(ps_tasks), ps_device, worker_device, merge_devices,
                                    list(ps_ops), ps_strategy)
    return chooser.device_function


def placement_summary(graph: Any, ps_job: str = "ps") -> Dict[str, int]:
    """Bytes of variable storage per ps task of ``graph`` (``{"/job:ps/task:0": n}``),
    to check how evenly a strategy spread a model."""
    out: Dict[str, int] = {}
    for op in graph.get_operations():
        if op.type not in STANDARD_PS_OPS:
            continue
        spec = DeviceSpec.from_string(op.device)
        if spec.job != ps_job:
            continue
        key = f"/job:{ps_job}/task:{spec.task or 0}"
        out[key] = out.get(key, 0) + byte_size_load_fn(op)
    return out


__all__ = ["replica_device_setter", "GreedyLoadBalancingStrategy", "RandomStrategy",
           "byte_size_load_fn", "placement_summary", "STANDARD_PS_OPS"]
