"""``tf.contrib.image``: projective transforms of images (``transform``, ``rotate``,
``translate``) and the helpers that build and compose the transforms.

A transform is 8 numbers ``[a0, a1, a2, b0, b1, b2, c0, c1]`` mapping each *output*
pixel ``(x, y)`` (column, row) to the input point ``((a0 x + a1 y + a2) / k,
(b0 x + b1 y + b2) / k)`` with ``k = c0 x + c1 y + 1``; points outside the input read
0. Kernels are in ``kernels/numpy/image_transform_kernels.py``. The gradient with respect
to the images (``gradients/image_grad.py``) is the exact adjoint of the sampling,
scattering each output gradient back to the pixels it read.
"""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops import array_ops, math_ops
from tensorfleet.ops.op_util import const_value, make_tensor


def _transform_shape(op: Operation) -> List[TensorShape]:
    s = op.inputs[0].shape
    size = const_value(op.inputs[2])
    hw = [None, None] if size is None else [int(v) for v in size]
    if s.ndims is None:
        return [TensorShape([None] + hw + [None])]
    if s.ndims != 4:
        raise ValueError(f"images must be 4-D [batch, height, width, channels], got {s}")
    return [TensorShape([s.as_list()[0]] + hw + [s.as_list()[3]])]


register_op("ImageProjectiveTransformV2", _transform_shape)
register_op("ImageProjectiveTransformV2Grad", lambda op: [TensorShape(
    [None] * 4) if const_value(op.inputs[2]) is None else TensorShape(
    [int(v) for v in const_value(op.inputs[2])])])

_INTERPOLATIONS = ("NEAREST", "BILINEAR")


def transform(images: Any, transforms: Any, interpolation: str = "NEAREST",
              output_shape: Any = None, name: Optional[str] = None) -> Tensor:
    """Applies projective transforms to an image ``[h, w, c]``, ``[h, w]`` or a batch.

    Args:
      transforms: ``[8]`` for every image or ``[batch, 8]``, one per image.
      interpolation: ``"NEAREST"`` or ``"BILINEAR"``.
      output_shape: ``[height, width]`` of the result (default: the input's).

    Raises:
      ValueError: an unknown interpolation, or images/transforms of another rank.
    """
    if interpolation.upper() not in _INTERPOLATIONS:
        raise ValueError(f"transform: interpolation must be 'NEAREST' or 'BILINEAR', got "
                         f"{interpolation!r}")
    with name_scope(name, "transform"):
        img = convert_to_tensor(images, name="images")
        rank = img.shape.ndims
        if rank not in (2, 3, 4):
            raise ValueError(f"transform: images must have rank 2, 3 or 4, got shape "
                             f"{img.shape}")
        batch = img
        if rank == 2:
            batch = array_ops.expand_dims(array_ops.expand_dims(img, 0), -1)
        elif rank == 3:
            batch = array_ops.expand_dims(img, 0)
        tr = convert_to_tensor(transforms, dtype=_dtypes.float32, name="transforms")
        if tr.shape.ndims == 1:
            tr = array_ops.expand_dims(tr, 0)
        elif tr.shape.ndims != 2:
            raise ValueError(f"transform: transforms must be [8] or [batch, 8], got shape "
                             f"{tr.shape}")
        size = array_ops.shape(batch)[1:3] if output_shape is None else convert_to_tensor(
            output_shape, dtype=_dtypes.int32, name="output_shape")
        out = make_tensor("ImageProjectiveTransformV2", [batch, tr, size], batch.dtype,
                          {"interpolation": interpolation.upper(), "fill_mode": "CONSTANT"},
                          name="ImageProjectiveTransformV2")
        if rank == 2:
            return out[0, :, :, 0]
        return out[0] if rank == 3 else out


def angles_to_projective_transforms(angles: Any, image_height: Any, image_width: Any,
                                    name: Optional[str] = None) -> Tensor:
    """``[n, 8]`` transforms rotating images counterclockwise by ``angles`` (radians, a
    scalar or ``[n]``) about their centres."""
    with name_scope(name, "angles_to_projective_transforms"):
        a = convert_to_tensor(angles, dtype=_dtypes.float32, name="angles")
        a = array_ops.reshape(a, [-1])
        h = array_ops.cast(image_height, _dtypes.float32) - 1.0
        w = array_ops.cast(image_width, _dtypes.float32) - 1.0
        cos, sin = math_ops.cos(a), math_ops.sin(a)
        x_off = (w - (cos * w - sin * h)) / 2.0
        y_off = (h - (sin * w + cos * h)) / 2.0
        zeros = array_ops.zeros_like(a)
        return array_ops.stack([cos, -sin, x_off, sin, cos, y_off, zeros, zeros], axis=1)


def translations_to_projective_transforms(translations: Any,
                                          name: Optional[str] = None) -> Tensor:
    """``[n, 8]`` transforms shifting images by ``[dx, dy]`` (``[2]`` or ``[n, 2]``)."""
    with name_scope(name, "translations_to_projective_transforms"):
        t = convert_to_tensor(translations, dtype=_dtypes.float32, name="translations")
        t = array_ops.reshape(t, [-1, 2])
        ones = array_ops.ones_like(t[:, 0])
        zeros = array_ops.zeros_like(ones)
        return array_ops.stack([ones, zeros, -t[:, 0], zeros, ones, -t[:, 1], zeros, zeros],
                               axis=1)


def rotate(images: Any, angles: Any, interpolation: str = "NEAREST",
           name: Optional[str] = None) -> Tensor:
    """Rotates images counterclockwise by ``angles`` radians (a scalar or one per image);
    corners that leave the frame are cut and uncovered pixels are 0."""
    with name_scope(name, "rotate"):
        img = convert_to_tensor(images, name="images")
        if img.shape.ndims not in (2, 3, 4):
            raise ValueError(f"rotate: images must have rank 2, 3 or 4, got {img.shape}")
        dims = array_ops.shape(img)
        off = {2: 0, 3: 0, 4: 1}[img.shape.ndims]
        tr = angles_to_projective_transforms(angles, dims[off], dims[off + 1])
        return transform(img, tr, interpolation=interpolation)


def translate(images: Any, translations: Any, interpolation: str = "NEAREST",
              name: Optional[str] = None) -> Tensor:
    """Shifts images by ``[dx, dy]`` pixels (one pair, or one per image)."""
    with name_scope(name, "translate"):
        return transform(images, translations_to_projective_transforms(translations),
                         interpolation=interpolation)


def flat_transforms_to_matrices(transforms: Any) -> Tensor:
    """``[n, 8]`` transforms as ``[n, 3, 3]`` matrices (the ninth entry 1)."""
    t = array_ops.reshape(convert_to_tensor(transforms, dtype=_dtypes.float32), [-1, 8])
    ones = array_ops.ones_like(t[:, :1])
    return array_ops.reshape(array_ops.concat([t, ones], axis=1), [-1, 3, 3])


def matrices_to_flat_transforms(transform_matrices: Any) -> Tensor:
    """``[n, 3, 3]`` matrices as ``[n, 8]`` transforms, normalised so the last entry is 1."""
    m = convert_to_tensor(transform_matrices, dtype=_dtypes.float32)
    flat = array_ops.reshape(m, [-1, 9])
    return (flat / flat[:, 8:9])[:, :8]


def compose_transforms(*transforms: Any) -> Tensor:
    """One transform doing what applying ``transforms`` right to left does (the last
    one maps output points first)."""
    if not transforms:
        raise ValueError("compose_transforms needs at least one transform")
    with name_scope(None, "compose_transforms"):
        composed = flat_transforms_to_matrices(transforms[0])
        for t in transforms[1:]:
            composed = math_ops.matmul(composed, flat_transforms_to_matrices(t))
        return matrices_to_flat_transforms(composed)


__all__ = ["transform", "rotate", "translate", "angles_to_projective_transforms",
           "translations_to_projective_transforms", "flat_transforms_to_matrices",
           "matrices_to_flat_transforms", "compose_transforms"]
