"""Gradient of local response normalization (the batch normalizations are composed
from math ops and need none of their own)."""

from __future__ import annotations

from typing import Any

from tensorfleet.gradients.registry import register_gradient
from tensorfleet.ops import nn_norm_ops as NN


@register_gradient("LRN")
def _lrn_grad(op: Any, grad: Any) -> Any:
    a = op.attrs
    return NN.lrn_grad(grad, op.inputs[0], op.outputs[0], a["depth_radius"], a["bias"],
                       a["alpha"], a["beta"])
