"""``slim.learning``: slim's ``create_train_op``, with per-gradient clipping and multipliers.

(The training loop ``slim.learning.train`` is not provided: ``MonitoredTrainingSession``
is its replacement.)
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence

from tensorfleet.contrib.train_op import (  # noqa: F401
    _USE_GLOBAL_STEP, GradsAndVars, add_gradients_summaries, clip_gradient_norms,
    create_train_op as _create_train_op, multiply_gradients)
from tensorfleet.training.optimizer import Optimizer


def create_train_op(total_loss: Any, optimizer: Optimizer, global_step: Any = _USE_GLOBAL_STEP,
                    update_ops: Optional[Sequence[Any]] = None,
                    variables_to_train: Optional[Sequence[Any]] = None,
                    clip_gradient_norm: float = 0, summarize_gradients: bool = False,
                    gate_gradients: int = 1, aggregation_method: Any = None,
                    colocate_gradients_with_ops: bool = False,
                    gradient_multipliers: Optional[Dict[Any, Any]] = None,
                    check_numerics: bool = True) -> Any:
    """``tf.contrib.training.create_train_op`` whose gradients are first scaled by
    ``gradient_multipliers`` (keyed by variable or op name), then each clipped to
    norm ``clip_gradient_norm`` when it is positive."""

    def transform(grads: GradsAndVars) -> GradsAndVars:
        if gradient_multipliers:
            grads = multiply_gradients(grads, gradient_multipliers)
        if clip_gradient_norm > 0:
            grads = clip_gradient_norms(grads, clip_gradient_norm)
        return grads

    return _create_train_op(total_loss, optimizer, global_step=global_step,
                            update_ops=update_ops, variables_to_train=variables_to_train,
                            transform_grads_fn=transform,
                            summarize_gradients=summarize_gradients,
                            gate_gradients=gate_gradients, aggregation_method=aggregation_method,
                            colocate_gradients_with_ops=colocate_gradients_with_ops,
                            check_numerics=check_numerics)


__all__ = ["create_train_op", "add_gradients_summaries", "clip_gradient_norms",
           "multiply_gradients"]
from tensorfleet.contrib.slim_train import train, train_step  # noqa: F401,E402
__all__ += ["train", "train_step"]
