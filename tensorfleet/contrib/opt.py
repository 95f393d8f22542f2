"""``tf.contrib.opt``: optimizers outside ``tf.train``."""

from tensorfleet.training.optimizers_more import LazyAdamOptimizer  # noqa: F401

__all__ = ["LazyAdamOptimizer"]
