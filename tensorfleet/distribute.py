"""``tf.distribute``: cluster resolvers and the all-reduce strategies.

``tf.distribute.experimental.MultiWorkerMirroredStrategy`` (alias
``CollectiveAllReduceStrategy``) trains with ring all-reduce between the
workers of ``TF_CONFIG``. ``DistributedOptimizer`` and
``BroadcastGlobalVariablesHook`` are the pieces a graph program uses with it
(see ``tensorfleet.collectives``).
"""

import types

from tensorfleet.distributed.resolver import TFConfigClusterResolver
from tensorfleet.training.distributed_optimizer import (
    BroadcastGlobalVariablesHook, Compression, DistributedOptimizer, broadcast_global_variables,
    broadcast_variables)
from tensorfleet.collectives.strategy import (
    CollectiveAllReduceStrategy, CollectiveCommunication, MultiWorkerMirroredStrategy, ReduceOp,
    ReplicaContext, get_replica_context, get_strategy, has_strategy, in_cross_replica_context)

cluster_resolver = types.SimpleNamespace(TFConfigClusterResolver=TFConfigClusterResolver)

experimental = types.SimpleNamespace(
    CollectiveAllReduceStrategy=CollectiveAllReduceStrategy,
    MultiWorkerMirroredStrategy=MultiWorkerMirroredStrategy,
    CollectiveCommunication=CollectiveCommunication,
)
"""``tf.distribute.experimental``: the multi-worker strategies of TensorFlow 1.x."""

__all__ = [
    "cluster_resolver", "experimental", "CollectiveAllReduceStrategy",
    "MultiWorkerMirroredStrategy", "CollectiveCommunication", "ReduceOp", "ReplicaContext",
    "get_replica_context", "get_strategy", "has_strategy", "in_cross_replica_context",
    "DistributedOptimizer", "Compression", "BroadcastGlobalVariablesHook",
    "broadcast_global_variables", "broadcast_variables",
]
