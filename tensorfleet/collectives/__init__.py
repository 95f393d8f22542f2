"""collectives: groups of ranks that all-reduce, all-gather and broadcast tensors.

Also usable Horovod-style, as one module::

    import tensorfleet.collectives as hvd
    hvd.init()                                  # from TF_CONFIG, or init(addresses, rank)
    opt = hvd.DistributedOptimizer(tf.train.AdamOptimizer(1e-3 * hvd.size()))
    hooks = [hvd.BroadcastGlobalVariablesHook(0)]
"""

from tensorfleet.collectives.group import (  # noqa: F401
    FP16, MAX, MEAN, MIN, SUM, Group, LocalGroup)
from tensorfleet.collectives.ring import RingGroup  # noqa: F401
from tensorfleet.collectives.registry import (  # noqa: F401
    get_group, init, is_initialized, rank, register_group, shutdown, size)
from tensorfleet.ops.collective_ops import (  # noqa: F401
    all_gather, all_reduce, barrier, broadcast, reduce_scatter)
from tensorfleet.collectives.strategy import (  # noqa: F401
    CollectiveAllReduceStrategy, MultiWorkerMirroredStrategy, ReduceOp)

allreduce = all_reduce
allgather = all_gather

# The training side (DistributedOptimizer and friends) lives in training/, a layer
# below this one; it is re-exported lazily so that ``import tensorfleet.collectives as
# hvd; hvd.DistributedOptimizer(...)`` works as with Horovod.
_TRAINING_NAMES = ("DEFAULT_FUSION_THRESHOLD", "BroadcastGlobalVariablesHook", "Compression",
                   "DistributedOptimizer", "broadcast_global_variables",
                   "broadcast_variables", "plan_buckets")


def __getattr__(name: str):
    if name in _TRAINING_NAMES:
        # Inline: training imports this package, so a module-level import would be a cycle.
        from tensorfleet.training import distributed_optimizer
        return getattr(distributed_optimizer, name)
    raise AttributeError(f"module 'tensorfleet.collectives' has no attribute {name!r}")

__all__ = [
    "Group", "LocalGroup", "RingGroup", "SUM", "MEAN", "MAX", "MIN", "FP16",
    "init", "get_group", "is_initialized", "rank", "size", "register_group", "shutdown",
    "DEFAULT_FUSION_THRESHOLD", "plan_buckets",
    "all_reduce", "all_gather", "broadcast", "reduce_scatter", "barrier", "allreduce",
    "allgather", "DistributedOptimizer", "Compression", "broadcast_variables",
    "broadcast_global_variables", "BroadcastGlobalVariablesHook",
    "CollectiveAllReduceStrategy", "MultiWorkerMirroredStrategy", "ReduceOp",
]
