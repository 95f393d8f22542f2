"""``tf.train.experimental``: loss scaling for low-precision training, and Python state
in checkpoints."""

from tensorfleet.training.python_state import PythonState
from tensorfleet.training.loss_scale import DynamicLossScale, FixedLossScale, LossScale
from tensorfleet.training.loss_scale_optimizer import (MixedPrecisionLossScaleOptimizer,
    disable_mixed_precision_graph_rewrite, enable_mixed_precision_graph_rewrite)

__all__ = ["DynamicLossScale", "FixedLossScale", "LossScale",
           "MixedPrecisionLossScaleOptimizer", "disable_mixed_precision_graph_rewrite",
           "enable_mixed_precision_graph_rewrite", "PythonState"]
