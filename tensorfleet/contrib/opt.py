"""``tf.contrib.opt``: optimizers outside ``tf.train``."""

from tensorfleet.training.sparse_optimizers import LazyAdamOptimizer  # noqa: F401
from tensorfleet.contrib.opt_weight_decay import (  # noqa: F401,E402
    AdamWOptimizer, DecoupledWeightDecayExtension, MomentumWOptimizer,
    extend_with_decoupled_weight_decay)
from tensorfleet.training.moving_averages import MovingAverageOptimizer  # noqa: F401,E402

__all__ = ["LazyAdamOptimizer"]
__all__ += ["AdamWOptimizer", "DecoupledWeightDecayExtension", "MomentumWOptimizer",
            "extend_with_decoupled_weight_decay", "MovingAverageOptimizer"]
