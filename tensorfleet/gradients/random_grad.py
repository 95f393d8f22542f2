"""Gradient of ``random_gamma`` with respect to its concentration ``alpha``.

A gamma sample is a smooth function of alpha at a fixed quantile, so the gradient
is that function's derivative (implicit reparameterisation, as in TensorFlow),
computed by the ``RandomGammaGrad`` kernel; the draws of the sample dimensions
(the leading ``len(shape)`` axes) are summed for each alpha.
"""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet.framework.graph import Operation
from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops import array_ops, math_ops
from tensorfleet.ops.op_util import make_tensor


@register_gradient("RandomGamma")
def _random_gamma_grad(op: Operation, grad: Any) -> List[Optional[Any]]:
    shape, alpha = op.inputs[0], op.inputs[1]
    sample = op.outputs[0]
    n = array_ops.size(shape)
    lead = array_ops.ones(array_ops.expand_dims(n, 0), dtype=shape.dtype)
    alpha_b = array_ops.reshape(alpha, array_ops.concat(
        [lead, array_ops.shape(alpha, out_type=shape.dtype)], 0))
    partial = make_tensor("RandomGammaGrad", [alpha_b, sample], sample.dtype, {},
                          shape=sample.shape)
    return [None, math_ops.reduce_sum(grad * partial, axis=array_ops.range(n))]


no_gradient("RandomGammaGrad")
# Poisson draws are integers (also when stored as floats): no gradient, as in TensorFlow.
no_gradient("RandomPoissonV2")
