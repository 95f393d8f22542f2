"""``tf.contrib.training``: ps placement strategies for ``replica_device_setter``."""

from tensorfleet.training.device_setter import (  # noqa: F401
    GreedyLoadBalancingStrategy, RandomStrategy, byte_size_load_fn)
