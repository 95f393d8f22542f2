"""``tf.nn``: neural-network ops."""

from tensorfleet.ops.nn_ops import *  # noqa: F401,F403
