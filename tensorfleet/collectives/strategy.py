"""``tf.distribute.experimental.MultiWorkerMirroredStrategy`` for graph programs.

Every worker process is one replica: it builds the same graph and trains on
its own slice of the data; gradients are averaged with ring all-reduce, so
there are no parameter servers. The strategy reads the cluster from
``TF_CONFIG`` (chief first, then the workers, as TensorFlow orders them) and
creates the process's collective group on first use.

In TensorFlow the optimizer consults the strategy by itself; here the
optimizer is wrapped explicitly, which also works outside the strategy::

    strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
    with strategy.scope():
        loss = model(...)
        opt = tf.distribute.DistributedOptimizer(tf.train.AdamOptimizer(1e-3))
        train_op = opt.minimize(loss, global_step=global_step)
    hooks = [tf.distribute.BroadcastGlobalVariablesHook(0)]

Inside ``scope()``, ``DistributedOptimizer`` and the broadcast helpers use the
strategy's group; ``strategy.reduce``, ``extended.batch_reduce_to`` and the
replica context's ``all_reduce`` build collective ops directly.
"""

from __future__ import annotations

import contextlib
import json
import threading
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from tensorfleet.collectives import registry
from tensorfleet.distributed.cluster import ClusterSpec
from tensorfleet.distributed.resolver import TFConfigClusterResolver
from tensorfleet.ops import collective_ops, math_ops_reduce
from tensorfleet.runtime import process


class ReduceOp:
    """How values from the replicas combine: ``SUM`` or ``MEAN``."""

    SUM = "SUM"
    MEAN = "MEAN"


class CollectiveCommunication:
    """Communication choice; every choice is the ring over TCP here (no NCCL on CPU)."""

    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


_STATE = threading.local()


def _stack() -> List[Any]:
    st = getattr(_STATE, "stack", None)
    if st is None:
        st = _STATE.stack = []
    return st


def current_strategy() -> Optional["CollectiveAllReduceStrategy"]:
    """The strategy whose ``scope()`` this thread is in, or None."""
    st = _stack()
    return st[-1] if st else None


def _reduction(reduce_op: Any) -> str:
    name = str(getattr(reduce_op, "value", reduce_op)).upper()
    if name not in (ReduceOp.SUM, ReduceOp.MEAN):
        raise ValueError(f"reduce_op must be ReduceOp.SUM or ReduceOp.MEAN, got {reduce_op!r}")
    return name.lower()


class ReplicaContext:
    """What the code of one replica sees: its id, the replica count, and all-reduce."""

    def __init__(self, strategy: "CollectiveAllReduceStrategy"):
        self.strategy = strategy

    @property
    def num_replicas_in_sync(self) -> int:
        """The number of replicas (worker processes)."""
        return self.strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self) -> int:
        """This replica's rank."""
        return self.strategy.rank

    def all_reduce(self, reduce_op: Any, value: Any) -> Any:
        """``value`` (a tensor or a list of them) summed or averaged over the replicas."""
        return collective_ops.all_reduce(value, _reduction(reduce_op), self.strategy.group_key)

    def merge_call(self, merge_fn: Callable[..., Any], args: Sequence[Any] = (),
                   kwargs: Optional[Dict[str, Any]] = None) -> Any:
        """Calls ``merge_fn(strategy, *args)``: with one replica per process, in place."""
        return merge_fn(self.strategy, *args, **(kwargs or {}))


class _Extended:
    """``strategy.extended``: the lower-level calls of the strategy."""

    experimental_between_graph = True

    def __init__(self, strategy: "CollectiveAllReduceStrategy"):
        self._s = strategy

    @property
    def experimental_should_init(self) -> bool:
        """Every worker initializes its variables (then the chief's are broadcast)."""
        return True

    @property
    def should_checkpoint(self) -> bool:
        """Only the chief writes checkpoints."""
        return self._s.is_chief

    @property
    def should_save_summary(self) -> bool:
        """Only the chief writes summaries."""
        return self._s.is_chief

    @property
    def worker_devices(self) -> Tuple[str, ...]:
        """This worker's device."""
        return (self._s.worker_device,)

    @property
    def parameter_devices(self) -> Tuple[str, ...]:
        """Variables live on the worker itself (mirrored on every worker)."""
        return (self._s.worker_device,)

    def call_for_each_replica(self, fn: Callable[..., Any], args: Sequence[Any] = (),
                              kwargs: Optional[Dict[str, Any]] = None) -> Any:
        """Runs ``fn`` once, for this process's replica, in its replica context."""
        return self._s.run(fn, args, kwargs)

    def reduce_to(self, reduce_op: Any, value: Any, destinations: Any = None) -> Any:
        """``value`` reduced over the replicas."""
        return collective_ops.all_reduce(value, _reduction(reduce_op), self._s.group_key)

    def batch_reduce_to(self, reduce_op: Any,
                        value_destination_pairs: Sequence[Tuple[Any, Any]]) -> List[Any]:
        """Several values reduced in one fused collective."""
        values = [v for v, _ in value_destination_pairs]
        if not values:
            return []
        out = collective_ops.all_reduce(list(values), _reduction(reduce_op), self._s.group_key)
        return list(out)


class CollectiveAllReduceStrategy:
    """Synchronous training on every worker, gradients averaged by ring all-reduce.

    Args:
      communication: accepted for compatibility; the ring is always used.
      cluster_resolver: where the cluster comes from (default ``TF_CONFIG``).
      group_key: the collective group's key in this process.
      timeout: seconds a worker may stay silent in a collective.
      port_offset: added to each worker's port for its collective service
        (set it when the task also runs a ``tf.train.Server`` on its address).
    """

    def __init__(self, communication: str = CollectiveCommunication.AUTO,
                 cluster_resolver: Any = None, *, group_key: str = registry.DEFAULT_KEY,
                 timeout: Optional[float] = None, port_offset: Optional[int] = None,
                 num_gpus_per_worker: int = 0):
        self.communication = communication
        self.cluster_resolver = cluster_resolver or TFConfigClusterResolver()
        self.group_key = group_key
        self.timeout = timeout
        self.port_offset = port_offset
        self.extended = _Extended(self)
        self._members, self._rank = self._resolve_members()

    def _resolve_members(self) -> Tuple[List[str], int]:
        spec = self.cluster_resolver.cluster_spec()
        ttype, tid = self.cluster_resolver.task_type, self.cluster_resolver.task_id
        if not spec or ttype is None:
            return ["localhost:0"], 0
        return self._members_of(spec, ttype, tid)

    def _members_of(self, spec: Any, ttype: str, tid: Any) -> Tuple[List[str], int]:
        jobs = {j: spec.job_tasks(j) for j in spec.jobs}
        cfg = json.dumps({"cluster": jobs, "task": {"type": ttype, "index": int(tid or 0)}})
        return registry.members_from_tf_config(cfg, self.port_offset)

    # -- what the program asks ------------------------------------------------------------
    @property
    def num_replicas_in_sync(self) -> int:
        """The number of workers (the chief counts as one)."""
        return len(self._members)

    @property
    def rank(self) -> int:
        """This worker's rank in the group (the chief is 0)."""
        return self._rank

    @property
    def is_chief(self) -> bool:
        """Whether this worker is rank 0."""
        return self._rank == 0

    @property
    def worker_device(self) -> str:
        """``/job:<type>/task:<index>`` of this worker ("" alone)."""
        r = self.cluster_resolver
        return "" if r.task_type is None else f"/job:{r.task_type}/task:{int(r.task_id or 0)}"

    def group(self) -> Any:
        """This process's collective group, connecting to the other workers on first use."""
        if len(self._members) == 1:
            return registry.init(["localhost:0"], 0, key=self.group_key)
        return registry.init(self._members, self._rank, key=self.group_key,
                             timeout=self.timeout)

    @contextlib.contextmanager
    def scope(self) -> Iterator["CollectiveAllReduceStrategy"]:
        """Makes this the current strategy (for ``get_strategy`` and ``DistributedOptimizer``)."""
        self.group()
        _stack().append(self)
        try:
            yield self
        finally:
            _stack().pop()

    def run(self, fn: Callable[..., Any], args: Sequence[Any] = (),
            kwargs: Optional[Dict[str, Any]] = None) -> Any:
        """Calls ``fn(*args, **kwargs)`` for this worker's replica."""
        with self.scope():
            _replica_stack().append(ReplicaContext(self))
            try:
                return fn(*args, **(kwargs or {}))
            finally:
                _replica_stack().pop()

    experimental_run_v2 = run

    def reduce(self, reduce_op: Any, value: Any, axis: Optional[int] = None) -> Any:
        """``value`` reduced over the replicas (and over ``axis`` of each, if given)."""
        if axis is not None:
            local = (math_ops_reduce.reduce_sum if _reduction(reduce_op) == "sum"
                     else math_ops_reduce.reduce_mean)
            value = local(value, axis=axis)
        return collective_ops.all_reduce(value, _reduction(reduce_op), self.group_key)

    def configure(self, session_config: Any = None, cluster_spec: Any = None,
                  task_type: Optional[str] = None, task_id: Optional[int] = None) -> None:
        """Re-reads the membership from an explicit cluster, as TensorFlow allows."""
        if cluster_spec is not None and task_type is not None:
            spec = cluster_spec if isinstance(cluster_spec, ClusterSpec) \
                else ClusterSpec(cluster_spec)
            self._members, self._rank = self._members_of(spec, task_type, task_id)

    def update_config_proto(self, config_proto: Any) -> Any:
        """Returns ``config_proto`` unchanged (no device filters are needed)."""
        return config_proto


class MultiWorkerMirroredStrategy(CollectiveAllReduceStrategy):
    """The name TensorFlow 1.14+ gives ``CollectiveAllReduceStrategy``."""


_REPLICA = threading.local()


def _replica_stack() -> List[ReplicaContext]:
    st = getattr(_REPLICA, "stack", None)
    if st is None:
        st = _REPLICA.stack = []
    return st


def get_replica_context() -> Optional[ReplicaContext]:
    """The replica context inside ``strategy.run``; outside a strategy, one of one replica."""
    st = _replica_stack()
    if st:
        return st[-1]
    strategy = current_strategy()
    return None if strategy is not None else ReplicaContext(_default_strategy())


def get_strategy() -> CollectiveAllReduceStrategy:
    """The current strategy, or a default one of a single local replica."""
    return current_strategy() or _default_strategy()


def has_strategy() -> bool:
    """Whether the caller is inside a strategy's ``scope()``."""
    return current_strategy() is not None


def in_cross_replica_context() -> bool:
    """Inside ``scope()`` but not inside ``run``."""
    return has_strategy() and not _replica_stack()


def _default_strategy() -> CollectiveAllReduceStrategy:
    # One per runtime (``ProcessRuntime`` component), made on first use.
    return process.current().component(
        "collectives.default_strategy", lambda: CollectiveAllReduceStrategy(
            cluster_resolver=TFConfigClusterResolver(tf_config="{}"), group_key="local"))


__all__ = ["ReduceOp", "CollectiveCommunication", "ReplicaContext",
           "CollectiveAllReduceStrategy", "MultiWorkerMirroredStrategy", "current_strategy",
           "get_replica_context", "get_strategy", "has_strategy", "in_cross_replica_context"]
