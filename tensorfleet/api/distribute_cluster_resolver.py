"""``tf.distribute.cluster_resolver``: where a task finds its cluster."""

from tensorfleet.distributed.resolver import TFConfigClusterResolver
from tensorfleet.distributed.cluster_resolvers import (ClusterResolver,
    KubernetesClusterResolver, KubernetesExecutableLocation, SimpleClusterResolver,
    SlurmClusterResolver, UnionResolver)

__all__ = ["TFConfigClusterResolver", "ClusterResolver", "KubernetesClusterResolver",
           "KubernetesExecutableLocation", "SimpleClusterResolver", "SlurmClusterResolver",
           "UnionResolver"]
