"""Gradients of the fake-quantization ops (``ops/fake_quant_ops.py``): the straight-through
estimator computed by their ``_gradient`` ops."""

from __future__ import annotations

from typing import Any, List

from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops import fake_quant_ops as F

for _t in ("FakeQuantWithMinMaxArgsGradient", "FakeQuantWithMinMaxVarsGradient",
           "FakeQuantWithMinMaxVarsPerChannelGradient"):
    no_gradient(_t)


@register_gradient("FakeQuantWithMinMaxArgs")
def _args_grad(op: Any, grad: Any) -> Any:
    a = op.attrs
    return F.fake_quant_with_min_max_args_gradient(grad, op.inputs[0], a["min"], a["max"],
                                                   a["num_bits"], a["narrow_range"])


@register_gradient("FakeQuantWithMinMaxVars")
def _vars_grad(op: Any, grad: Any) -> List[Any]:
    a = op.attrs
    return list(F.fake_quant_with_min_max_vars_gradient(grad, *op.inputs, a["num_bits"],
                                                        a["narrow_range"]))


@register_gradient("FakeQuantWithMinMaxVarsPerChannel")
def _per_channel_grad(op: Any, grad: Any) -> List[Any]:
    a = op.attrs
    return list(F.fake_quant_with_min_max_vars_per_channel_gradient(
        grad, *op.inputs, a["num_bits"], a["narrow_range"]))
