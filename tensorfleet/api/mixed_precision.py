"""``tf.mixed_precision``: loss scaling for low-precision training (see
``training/loss_scale_optimizer``)."""

from tensorfleet.training.loss_scale import DynamicLossScale, FixedLossScale, LossScale
from tensorfleet.training.loss_scale_optimizer import (MixedPrecisionLossScaleOptimizer,
    disable_mixed_precision_graph_rewrite, enable_mixed_precision_graph_rewrite)
from tensorfleet.api import mixed_precision_experimental as experimental

__all__ = ["DynamicLossScale", "FixedLossScale", "LossScale",
           "MixedPrecisionLossScaleOptimizer", "disable_mixed_precision_graph_rewrite",
           "enable_mixed_precision_graph_rewrite", "experimental"]
