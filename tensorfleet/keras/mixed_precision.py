"""``tf.keras.mixed_precision``: loss scaling for float16 training."""

from tensorfleet.keras.loss_scale_optimizer import LossScaleOptimizer

__all__ = ["LossScaleOptimizer"]
