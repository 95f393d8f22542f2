"""Gradients of the transposed, depthwise and 3-D convolutions and the 3-D pools.

``Conv2DBackpropInput`` (which is also ``conv2d_transpose``) is linear in its
filter and in its incoming gradient: its own gradient is a forward ``conv2d``
for the second and a filter backprop for the first. ``Conv2DBackpropFilter``
likewise, which gives ``conv2d`` second derivatives. The 3-D backprops
(``Conv3DBackpropInputV2``, which ``conv3d_transpose`` is built on, and
``Conv3DBackpropFilterV2``) are differentiated the same way with ``conv3d``.
"""

from __future__ import annotations

from typing import Any, List

from tensorfleet.framework.graph import Tensor
from tensorfleet.gradients.registry import register_gradient
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import nn_conv_variant_ops as CM
from tensorfleet.ops import nn_conv_ops as C
from tensorfleet.ops.op_util import make_tensor


def _shape_of(t: Tensor) -> Any:
    if t.shape.is_fully_defined():
        return t.shape.as_list()
    return A.shape(t)


@register_gradient("Conv2DBackpropInput")
def _conv2d_backprop_input_grad(op: Any, grad: Any) -> List[Any]:
    _, w, dy = op.inputs
    a = op.attrs
    common = dict(strides=a["strides"], padding=a["padding"], dilations=a["dilations"])
    return [None, C.conv2d_backprop_filter(grad, _shape_of(w), dy, **common),
            C.conv2d(grad, w, data_format="NHWC", **common)]


@register_gradient("Conv2DBackpropFilter")
def _conv2d_backprop_filter_grad(op: Any, grad: Any) -> List[Any]:
    # The filter gradient is bilinear in the input and the output gradient.
    x, _, dy = op.inputs
    a = op.attrs
    common = dict(strides=a["strides"], padding=a["padding"], dilations=a["dilations"])
    return [C.conv2d_backprop_input(_shape_of(x), grad, dy, **common), None,
            C.conv2d(x, grad, data_format="NHWC", **common)]


@register_gradient("DepthwiseConv2dNative")
def _depthwise_grad(op: Any, grad: Any) -> List[Any]:
    x, w = op.inputs
    a = op.attrs
    common = dict(strides=a["strides"], padding=a["padding"], dilations=a["dilations"])
    return [CM.depthwise_conv2d_native_backprop_input(_shape_of(x), w, grad, **common),
            CM.depthwise_conv2d_native_backprop_filter(x, _shape_of(w), grad, **common)]


@register_gradient("Conv3D")
def _conv3d_grad(op: Any, grad: Any) -> List[Any]:
    x, w = op.inputs
    a = op.attrs
    common = dict(strides=a["strides"], padding=a["padding"], dilations=a["dilations"])
    return [CM.conv3d_backprop_input_v2(_shape_of(x), w, grad, **common),
            CM.conv3d_backprop_filter_v2(x, _shape_of(w), grad, **common)]


def _conv3d_common(op: Any) -> dict:
    a = op.attrs
    return dict(strides=list(a["strides"]), padding=a["padding"],
                dilations=list(a["dilations"]))


@register_gradient("Conv3DBackpropInputV2")
def _conv3d_backprop_input_grad(op: Any, grad: Any) -> List[Any]:
    _, w, dy = op.inputs
    common = _conv3d_common(op)
    return [None, CM.conv3d_backprop_filter_v2(grad, _shape_of(w), dy, **common),
            CM.conv3d(grad, w, **common)]


@register_gradient("Conv3DBackpropFilterV2")
def _conv3d_backprop_filter_grad(op: Any, grad: Any) -> List[Any]:
    x, _, dy = op.inputs
    common = _conv3d_common(op)
    return [CM.conv3d_backprop_input_v2(_shape_of(x), grad, dy, **common), None,
            CM.conv3d(x, grad, **common)]


def _pool3d_attrs(op: Any) -> dict:
    a = op.attrs
    return {"ksize": list(a["ksize"]), "strides": list(a["strides"]), "padding": a["padding"],
            "data_format": "NDHWC"}


@register_gradient("MaxPool3D")
def _max_pool3d_grad(op: Any, grad: Any) -> Any:
    x = op.inputs[0]
    return make_tensor("MaxPool3DGrad", [x, op.outputs[0], grad], x.dtype, _pool3d_attrs(op),
                       name="MaxPool3DGrad")


@register_gradient("AvgPool3D")
def _avg_pool3d_grad(op: Any, grad: Any) -> Any:
    x = op.inputs[0]
    sizes = _shape_of(x)
    if not isinstance(sizes, Tensor):
        sizes = A.constant(sizes, dtype="int32")
    return make_tensor("AvgPool3DGrad", [sizes, grad], x.dtype, _pool3d_attrs(op),
                       name="AvgPool3DGrad")
