"""``tf.mixed_precision.experimental``: the loss scales."""

from tensorfleet.training.loss_scale import DynamicLossScale, FixedLossScale, LossScale

__all__ = ["DynamicLossScale", "FixedLossScale", "LossScale"]
