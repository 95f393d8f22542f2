"""Gradients of ``IdentityN`` (``tf.identity_n``; under ``tf.custom_gradient`` its gradient
is overridden) and of the 3-D convolution backprops, which ``tf.nn.conv3d_transpose`` is
built on (and which second derivatives of ``conv3d`` pass through); ``Bitcast`` has none.

``Conv3DBackpropInputV2`` is linear in its filter and in its incoming gradient, so its
gradient is a filter backprop for the first and a forward ``conv3d`` for the second;
``Conv3DBackpropFilterV2`` likewise in the input and the incoming gradient.
"""

from __future__ import annotations

from typing import Any, List

from tensorfleet.framework.graph import Tensor
from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import nn_conv_variant_ops as CM


def _shape_of(t: Tensor) -> Any:
    if t.shape.is_fully_defined():
        return t.shape.as_list()
    return A.shape(t)


def _common(op: Any) -> dict:
    a = op.attrs
    return dict(strides=list(a["strides"]), padding=a["padding"],
                dilations=list(a["dilations"]))


@register_gradient("Conv3DBackpropInputV2")
def _conv3d_backprop_input_grad(op: Any, grad: Any) -> List[Any]:
    _, w, dy = op.inputs
    common = _common(op)
    return [None, CM.conv3d_backprop_filter_v2(grad, _shape_of(w), dy, **common),
            CM.conv3d(grad, w, **common)]


@register_gradient("Conv3DBackpropFilterV2")
def _conv3d_backprop_filter_grad(op: Any, grad: Any) -> List[Any]:
    x, _, dy = op.inputs
    common = _common(op)
    return [CM.conv3d_backprop_input_v2(_shape_of(x), grad, dy, **common), None,
            CM.conv3d(x, grad, **common)]


no_gradient("Bitcast")


@register_gradient("IdentityN")
def _identity_n_grad(op: Any, *grads: Any) -> List[Any]:
    return list(grads)
