"""Gradients of the image resizes (``ops/image_ops.py``)."""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet.framework.graph import Operation
from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops import array_ops, array_ops_more
from tensorfleet.ops.op_util import make_tensor


def _attrs(op: Operation) -> dict:
    return {"align_corners": op.attrs["align_corners"], "half_pixel_centers": False}


@register_gradient("ResizeBilinear")
def _resize_bilinear_grad(op: Operation, grad: Any) -> List[Optional[Any]]:
    images = op.inputs[0]
    if not images.dtype.is_floating:
        return [None, None]
    return [make_tensor("ResizeBilinearGrad", [grad, images], images.dtype, _attrs(op)), None]


@register_gradient("ResizeBicubic")
def _resize_bicubic_grad(op: Operation, grad: Any) -> List[Optional[Any]]:
    images = op.inputs[0]
    if not images.dtype.is_floating:
        return [None, None]
    return [make_tensor("ResizeBicubicGrad", [grad, images], images.dtype, _attrs(op)), None]


@register_gradient("ResizeNearestNeighbor")
def _resize_nearest_grad(op: Operation, grad: Any) -> List[Optional[Any]]:
    images = op.inputs[0]
    size = array_ops_more.strided_slice(array_ops.shape(images), [1], [3])
    return [make_tensor("ResizeNearestNeighborGrad", [grad, size], grad.dtype, _attrs(op),
                        shape=images.shape), None]


# The codecs work on bytes; the colour-space ops have no gradient in TensorFlow 1.x either
# (asking for one raises, as for any op without a registered gradient).
for _t in ("DecodeJpeg", "DecodePng", "DecodeImage", "EncodeJpeg", "EncodePng"):
    no_gradient(_t)

