"""Gradients of the image resamplings: the resizes (``ops/image_ops.py``),
``crop_and_resize`` (``ops/image_ops_boxes.py``) and the projective transforms
(``ops/image_ops_transform.py``).

``crop_and_resize`` is differentiable with respect to the image (for float images)
and the boxes; the gradient with respect to the boxes is the bilinear one for both
methods, as in TensorFlow.
"""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation
from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops import array_ops
from tensorfleet.ops import array_indexing_ops
from tensorfleet.ops.op_util import make_tensor


def _attrs(op: Operation) -> dict:
    return {"align_corners": op.attrs["align_corners"],
            "half_pixel_centers": bool(op.attrs.get("half_pixel_centers", False))}


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
    size = array_indexing_ops.strided_slice(array_ops.shape(images), [1], [3])
    return [make_tensor("ResizeNearestNeighborGrad", [grad, size], grad.dtype, _attrs(op),
                        shape=images.shape), None]


@register_gradient("CropAndResize")
def _crop_and_resize_grad(op: Operation, grad: Any) -> List[Optional[Any]]:
    image, boxes, box_ind = op.inputs[0], op.inputs[1], op.inputs[2]
    g_image = None
    if image.dtype.is_floating:
        size = array_ops.shape(image, out_type=_dtypes.int32)
        g_image = make_tensor("CropAndResizeGradImage", [grad, boxes, box_ind, size],
                              image.dtype, {"method": op.attrs["method"], "T": image.dtype},
                              shape=image.shape)
    g_boxes = make_tensor("CropAndResizeGradBoxes", [grad, image, boxes, box_ind],
                          _dtypes.float32, {}, shape=boxes.shape)
    return [g_image, g_boxes, None, None]


@register_gradient("ImageProjectiveTransformV2")
def _projective_transform_grad(op: Operation, grad: Any) -> List[Optional[Any]]:
    # The exact adjoint of the sampling (each output gradient goes back to the pixels
    # it read, with their weights), not an inverse warp of the gradient image.
    images = op.inputs[0]
    if not images.dtype.is_floating:
        return [None, None, None]
    g = make_tensor("ImageProjectiveTransformV2Grad",
                    [grad, op.inputs[1], array_ops.shape(images)], images.dtype,
                    {"interpolation": op.attrs["interpolation"]}, shape=images.shape)
    return [g, None, None]


# The codecs work on bytes and the box selections on indices; the colour-space ops have
# no gradient in TensorFlow 1.x either (asking for one raises, as for any op without a
# registered gradient).
for _t in ("DecodeJpeg", "DecodePng", "DecodeImage", "DecodeGif", "DecodeBmp",
           "ExtractJpegShape", "EncodeJpeg", "EncodePng", "ImageProjectiveTransformV2Grad",
           "NonMaxSuppressionV3", "NonMaxSuppressionV5", "NonMaxSuppressionWithOverlaps",
           "CombinedNonMaxSuppression", "DrawBoundingBoxesV2", "SampleDistortedBoundingBoxV2",
           "CropAndResizeGradImage", "CropAndResizeGradBoxes"):
    no_gradient(_t)

