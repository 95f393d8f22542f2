"""``tf.distribute.cluster_resolver``: where a task finds its cluster."""

from tensorfleet.distributed.resolver import TFConfigClusterResolver

__all__ = ["TFConfigClusterResolver"]
