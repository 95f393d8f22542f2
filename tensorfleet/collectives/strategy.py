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
from tensorfleet.collectives.buckets import plan_buckets, static_nbytes
from tensorfleet.collectives.communication_options import (CommunicationImplementation,
    CommunicationOptions, resolve_options)
from tensorfleet.collectives.run_options import RunOptions, check_run_options
from tensorfleet.distributed.cluster import ClusterSpec
from tensorfleet.distributed.resolver import TFConfigClusterResolver
from tensorfleet.framework.graph import convert_to_tensor
from tensorfleet.ops import collective_ops, math_ops_reduce
from tensorfleet.runtime import process


class ReduceOp:
    """How values from the replicas combine: ``SUM`` or ``MEAN``."""

    SUM = "SUM"
    MEAN = "MEAN"


# TensorFlow's older name of the same choices.
CollectiveCommunication = CommunicationImplementation


_STATE = threading.local()


def _stack() -> List[Any]:
    st = getattr(_STATE, "stack", None)
    if st is None:
        st = _STATE.stack = []
    return st


# The strategy ``experimental_set_strategy`` made current for every thread.
_GLOBAL: Dict[str, Any] = {"strategy": None}


def current_strategy() -> Optional["Strategy"]:
    """The strategy whose ``scope()`` this thread is in (or the one set by
    ``experimental_set_strategy``), or None."""
    st = _stack()
    return st[-1] if st else _GLOBAL["strategy"]


def experimental_set_strategy(strategy: Optional["Strategy"]) -> None:
    """Makes ``strategy`` current for the whole program, as if its ``scope()`` were
    entered and never left; ``None`` leaves the one set before.

    Raises:
      RuntimeError: called inside a strategy's ``scope()``.
      TypeError: ``strategy`` is neither a ``Strategy`` nor None.
    """
    if _stack():
        raise RuntimeError("Must not be called inside a `tf.distribute.Strategy` scope.")
    if strategy is not None and not isinstance(strategy, Strategy):
        raise TypeError(f"experimental_set_strategy expects a tf.distribute.Strategy or None, "
                        f"got {type(strategy).__name__}")
    if strategy is not None:
        strategy._prepare_scope()
    _GLOBAL["strategy"] = strategy


def _reduction(reduce_op: Any) -> str:
    name = str(getattr(reduce_op, "value", reduce_op)).upper()
    if name not in (ReduceOp.SUM, ReduceOp.MEAN):
        raise ValueError(f"reduce_op must be ReduceOp.SUM or ReduceOp.MEAN, got {reduce_op!r}")
    return name.lower()


class ReplicaContext:
    """What the code of one replica sees: its id, the replica count, and all-reduce."""

    def __init__(self, strategy: "Strategy"):
        self.strategy = strategy

    @property
    def num_replicas_in_sync(self) -> int:
        """The number of replicas in sync."""
        return self.strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self) -> int:
        """This replica's rank."""
        return self.strategy.rank

    def all_reduce(self, reduce_op: Any, value: Any, options: Any = None) -> Any:
        """``value`` (a tensor or a list of them) summed or averaged over the replicas,
        with ``options`` (a ``CommunicationOptions``) for the collective."""
        return self.strategy.extended.reduce_to(reduce_op, value, options=options)

    def merge_call(self, merge_fn: Callable[..., Any], args: Sequence[Any] = (),
                   kwargs: Optional[Dict[str, Any]] = None) -> Any:
        """Calls ``merge_fn(strategy, *args)``: with one replica per process, in place."""
        return merge_fn(self.strategy, *args, **(kwargs or {}))


class StrategyExtended:
    """``strategy.extended``: the lower-level calls every strategy offers. A strategy
    with one replica per process reduces across processes (or not at all) in
    ``_reduce_values``."""

    experimental_between_graph = True

    def __init__(self, strategy: "Strategy"):
        self._s = strategy

    @property
    def experimental_should_init(self) -> bool:
        """Whether this process runs the variable initializers."""
        return True

    @property
    def should_checkpoint(self) -> bool:
        """Whether this process writes checkpoints."""
        return self._s.is_chief

    @property
    def should_save_summary(self) -> bool:
        """Whether this process writes summaries."""
        return self._s.is_chief

    @property
    def worker_devices(self) -> Tuple[str, ...]:
        """The devices this process's replica runs on."""
        return (self._s.worker_device,)

    @property
    def parameter_devices(self) -> Tuple[str, ...]:
        """The devices variables are placed on."""
        return self._s.parameter_devices

    def call_for_each_replica(self, fn: Callable[..., Any], args: Sequence[Any] = (),
                              kwargs: Optional[Dict[str, Any]] = None) -> Any:
        """Runs ``fn`` once, for this process's replica, in its replica context."""
        return self._s.run(fn, args, kwargs)

    def _reduce_values(self, reduction: str, values: List[Any], options: Any) -> List[Any]:
        # One replica: its sum and its mean are the value itself.
        return [convert_to_tensor(v) for v in values]

    def reduce_to(self, reduce_op: Any, value: Any, destinations: Any = None,
                  options: Any = None) -> Any:
        """``value`` (a tensor or a list of them) reduced over the replicas; ``options``
        is a ``CommunicationOptions``."""
        options = resolve_options(options)
        reduction = _reduction(reduce_op)
        if isinstance(value, (list, tuple)):
            return self._reduce_values(reduction, list(value), options)
        return self._reduce_values(reduction, [value], options)[0]

    def batch_reduce_to(self, reduce_op: Any,
                        value_destination_pairs: Sequence[Tuple[Any, Any]],
                        options: Any = None) -> List[Any]:
        """Several values reduced together, fused into messages of at most
        ``options.bytes_per_pack`` bytes (0: one message)."""
        options = resolve_options(options)
        values = [v for v, _ in value_destination_pairs]
        if not values:
            return []
        return self._reduce_values(_reduction(reduce_op), values, options)


class Strategy:
    """A distribution strategy: how replicas of the model are laid out and how their
    values combine. ``scope()`` makes it current; ``run(fn)`` calls ``fn`` in the
    replica context; ``reduce`` combines a value over the replicas.

    The base class is TensorFlow's default strategy: one replica on the default device.
    """

    def __init__(self, extended: StrategyExtended):
        self.extended = extended

    @property
    def num_replicas_in_sync(self) -> int:
        """The number of replicas kept in sync (one, unless the strategy says more)."""
        return 1

    @property
    def rank(self) -> int:
        """This process's replica id (0 for strategies of one process)."""
        return 0

    @property
    def is_chief(self) -> bool:
        """Whether this process is the first replica."""
        return self.rank == 0

    @property
    def worker_device(self) -> str:
        """The device of this process's replica ("" for the default device)."""
        return ""

    @property
    def parameter_devices(self) -> Tuple[str, ...]:
        """Where variables go: with the replica, unless the strategy says otherwise."""
        return (self.worker_device,)

    def _prepare_scope(self) -> None:
        """What must exist before the strategy becomes current (a collective group)."""

    @contextlib.contextmanager
    def scope(self) -> Iterator["Strategy"]:
        """Makes this the current strategy (for ``get_strategy`` and ``DistributedOptimizer``)."""
        self._prepare_scope()
        _stack().append(self)
        try:
            yield self
        finally:
            _stack().pop()

    @contextlib.contextmanager
    def _replica_scope(self) -> Iterator[None]:
        """Where a replica function's ops are created."""
        yield

    def run(self, fn: Callable[..., Any], args: Sequence[Any] = (),
            kwargs: Optional[Dict[str, Any]] = None, options: Optional[RunOptions] = None) -> Any:
        """Calls ``fn(*args, **kwargs)`` for this process's replica; ``options`` is a
        ``tf.distribute.RunOptions``."""
        check_run_options(options)
        with self.scope(), self._replica_scope():
            _replica_stack().append(ReplicaContext(self))
            try:
                return fn(*args, **(kwargs or {}))
            finally:
                _replica_stack().pop()

    def experimental_run_v2(self, fn: Callable[..., Any], args: Sequence[Any] = (),
                            kwargs: Optional[Dict[str, Any]] = None,
                            options: Optional[RunOptions] = None) -> Any:
        """The TensorFlow 1.15 name of ``run``."""
        return self.run(fn, args, kwargs, options)

    def reduce(self, reduce_op: Any, value: Any, axis: Optional[int] = None) -> Any:
        """``value`` reduced over the replicas (and over ``axis`` of each, if given)."""
        if axis is not None:
            local = (math_ops_reduce.reduce_sum if _reduction(reduce_op) == "sum"
                     else math_ops_reduce.reduce_mean)
            value = local(value, axis=axis)
        return self.extended.reduce_to(reduce_op, value)

    def experimental_local_results(self, value: Any) -> Tuple[Any, ...]:
        """The values of this process's replicas: one per process here."""
        return (value,)

    def configure(self, session_config: Any = None, cluster_spec: Any = None,
                  task_type: Optional[str] = None, task_id: Optional[int] = None) -> None:
        """Nothing to configure for a strategy of one process."""

    def update_config_proto(self, config_proto: Any) -> Any:
        """Returns ``config_proto`` unchanged (no device filters are needed)."""
        return config_proto


class _Extended(StrategyExtended):
    """``strategy.extended`` of the collective strategy: reductions are ring all-reduces;
    only the chief writes checkpoints and summaries."""

    def _reduce_values(self, reduction: str, values: List[Any], options: Any) -> List[Any]:
        tensors = [convert_to_tensor(v) for v in values]
        packs = (plan_buckets([(static_nbytes(t), t.dtype.name) for t in tensors],
                              options.bytes_per_pack)
                 if options.bytes_per_pack else [list(range(len(tensors)))])
        out: List[Any] = [None] * len(tensors)
        for pack in packs:
            reduced = collective_ops.all_reduce([tensors[i] for i in pack], reduction,
                                                self._s.group_key,
                                                timeout=options.timeout_seconds)
            for i, r in zip(pack, reduced):
                out[i] = r
        return out


class CollectiveAllReduceStrategy(Strategy):
    """Synchronous training on every worker, gradients averaged by ring all-reduce.

    Args:
      communication: a ``CommunicationImplementation``; AUTO and RING are the ring
        (tensorfleet's collectives run on CPU), NCCL raises ValueError.
      cluster_resolver: where the cluster comes from (default ``TF_CONFIG``).
      group_key: the collective group's key in this process.
      timeout: seconds a worker may stay silent in a collective.
      port_offset: added to each worker's port for its collective service
        (set it when the task also runs a ``tf.train.Server`` on its address).
    """

    def __init__(self, communication: Any = CollectiveCommunication.AUTO,
                 cluster_resolver: Any = None, *, group_key: str = registry.DEFAULT_KEY,
                 timeout: Optional[float] = None, port_offset: Optional[int] = None,
                 num_gpus_per_worker: int = 0):
        super().__init__(_Extended(self))
        self.communication = resolve_options(
            CommunicationOptions(implementation=communication)).implementation
        self.cluster_resolver = cluster_resolver or TFConfigClusterResolver()
        self.group_key = group_key
        self.timeout = timeout
        self.port_offset = port_offset
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

    def _prepare_scope(self) -> None:
        self.group()

    def configure(self, session_config: Any = None, cluster_spec: Any = None,
                  task_type: Optional[str] = None, task_id: Optional[int] = None) -> None:
        """Re-reads the membership from an explicit cluster, as TensorFlow allows."""
        if cluster_spec is not None and task_type is not None:
            spec = cluster_spec if isinstance(cluster_spec, ClusterSpec) \
                else ClusterSpec(cluster_spec)
            self._members, self._rank = self._members_of(spec, task_type, task_id)


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


def get_strategy() -> Strategy:
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


__all__ = ["ReduceOp", "CollectiveCommunication", "ReplicaContext", "Strategy",
           "StrategyExtended", "experimental_set_strategy",
           "CollectiveAllReduceStrategy", "MultiWorkerMirroredStrategy", "current_strategy",
           "get_replica_context", "get_strategy", "has_strategy", "in_cross_replica_context"]
