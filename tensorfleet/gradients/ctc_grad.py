"""Gradient of the CTC loss (``ops/ctc_ops.py``).

The loss kernel already returns d(loss)/d(logits) as its second output, so the
gradient only scales it by the incoming per-entry gradient. That output is a
constant of the graph as far as differentiation goes: a second derivative of the
CTC loss is not defined (as in TensorFlow).
"""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet.framework.graph import Operation
from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops import array_ops, math_ops


@register_gradient("CTCLoss")
def _ctc_loss_grad(op: Operation, grad_loss: Any, _grad_grad: Any) -> List[Optional[Any]]:
    scale = array_ops.expand_dims(array_ops.expand_dims(grad_loss, 0), 2)  # [1, B, 1]
    return [math_ops.multiply(scale, array_ops.stop_gradient(op.outputs[1])),
            None, None, None]


for _t in ("CTCGreedyDecoder", "CTCBeamSearchDecoder"):
    no_gradient(_t)
