"""Gradients of the stateless random ops: none for draws that are a function of a shape
and a seed only; the stateless gamma differentiates with respect to its concentration."""

from typing import Any, List

from tensorfleet.gradients.math_grad import sum_to
from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops.array_ops import zeros_like
from tensorfleet.ops.op_util import make_tensor

for _t in ("StatelessRandomUniform", "StatelessRandomUniformInt", "StatelessRandomNormal",
           "StatelessTruncatedNormal", "StatelessMultinomial"):
    no_gradient(_t)

for _t in ("StatelessRandomBinomial", "StatelessRandomPoisson", "StatelessShuffle",
           "StatelessParameterizedTruncatedNormal", "StatelessRandomUniformFullInt",
           "RandomIndexShuffle"):
    no_gradient(_t)


@register_gradient("StatelessRandomGammaV2")
def _stateless_gamma_grad(op: Any, grad: Any) -> List[Any]:
    # Implicit reparameterization, as for random_gamma: d sample / d alpha at a fixed
    # quantile, summed over the sample dimensions alpha was broadcast along.
    alpha, sample = op.inputs[2], op.outputs[0]
    partial = make_tensor("RandomGammaGrad", [alpha + zeros_like(sample), sample],
                          sample.dtype, {}, shape=sample.shape)
    return [None, None, sum_to(grad * partial, alpha, sample.shape)]
