"""``tf.distribute``: cluster resolvers and the all-reduce strategies.

``tf.distribute.experimental.MultiWorkerMirroredStrategy`` (alias
``CollectiveAllReduceStrategy``) trains with ring all-reduce between the
workers of ``TF_CONFIG``. ``DistributedOptimizer`` and
``BroadcastGlobalVariablesHook`` are the pieces a graph program uses with it
(see ``tensorfleet.collectives``).
"""

from tensorfleet.collectives.one_device_strategy import OneDeviceStrategy, get_loss_reduction
from tensorfleet.collectives.run_options import RunOptions
from tensorfleet.collectives.strategy import (CollectiveAllReduceStrategy,
    CollectiveCommunication, MultiWorkerMirroredStrategy, ReduceOp, ReplicaContext, Strategy,
    StrategyExtended, experimental_set_strategy, get_replica_context, get_strategy,
    has_strategy, in_cross_replica_context)
from tensorfleet.training.distributed_optimizer import (BroadcastGlobalVariablesHook,
    Compression, DistributedOptimizer, broadcast_global_variables, broadcast_variables)
from tensorfleet.distributed.input_context import InputContext, InputReplicationMode
from tensorfleet.distributed.server import Server

from tensorfleet.api import distribute_cluster_resolver as cluster_resolver
from tensorfleet.api import distribute_experimental as experimental

__all__ = ["BroadcastGlobalVariablesHook", "CollectiveAllReduceStrategy",
           "CollectiveCommunication", "Compression", "DistributedOptimizer",
           "MultiWorkerMirroredStrategy", "ReduceOp", "ReplicaContext",
           "broadcast_global_variables", "broadcast_variables", "cluster_resolver",
           "experimental", "get_replica_context", "get_strategy", "has_strategy",
           "in_cross_replica_context",
           "InputContext", "InputReplicationMode", "Server", "OneDeviceStrategy", "RunOptions",
           "Strategy", "StrategyExtended", "experimental_set_strategy", "get_loss_reduction"]
