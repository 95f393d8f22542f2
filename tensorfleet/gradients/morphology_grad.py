"""Gradient of ``Dilation2D`` (``ops/morphology_ops.py``)."""

from __future__ import annotations

from typing import Any, List

from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops.morphology_ops import dilation2d_backprop

no_gradient("Dilation2DBackpropInput")
no_gradient("Dilation2DBackpropFilter")


@register_gradient("Dilation2D")
def _dilation_grad(op: Any, grad: Any) -> List[Any]:
    x, f = op.inputs
    return [dilation2d_backprop("input", x, f, grad, op.attrs),
            dilation2d_backprop("filter", x, f, grad, op.attrs)]
