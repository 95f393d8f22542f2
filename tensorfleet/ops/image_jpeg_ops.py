"""JPEG and WebP helpers of ``tf.image``: ``is_jpeg``, ``decode_and_crop_jpeg``,
``adjust_jpeg_quality`` / ``random_jpeg_quality`` (the image re-encoded at a quality, as
augmentation; the ``EncodeJpegVariableQuality`` op takes the quality as a tensor) and
``decode_webp``."""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.functional_ops import map_fn
from tensorfleet.ops.image_ops import convert_image_dtype, decode_jpeg
from tensorfleet.ops.op_util import make_tensor, scalar_shape
from tensorfleet.ops.random_ops import random_uniform
from tensorfleet.ops.string_manip_ops import substr

register_op("EncodeJpegVariableQuality", scalar_shape)
register_op("DecodeWebP", lambda op: [TensorShape([None, None, None, None])])


def is_jpeg(contents: Any, name: Optional[str] = None) -> Tensor:
    """Whether the string scalar ``contents`` starts like a JPEG file (``FF D8 FF``)."""
    with name_scope(name, "is_jpeg"):
        head = substr(convert_to_tensor(contents, dtype=_dtypes.string), 0, 3)
        return M.equal(head, b"\xff\xd8\xff")


def decode_and_crop_jpeg(contents: Any, crop_window: Any, channels: int = 0, ratio: int = 1,
                         fancy_upscaling: bool = True, try_recover_truncated: bool = False,
                         acceptable_fraction: float = 1, dct_method: str = "",
                         name: Optional[str] = None) -> Tensor:
    """The ``[y, x, height, width]`` window ``crop_window`` of a decoded JPEG."""
    with name_scope(name, "decode_and_crop_jpeg"):
        image = decode_jpeg(contents, channels, ratio, fancy_upscaling, try_recover_truncated,
                            acceptable_fraction, dct_method)
        win = A.cast(convert_to_tensor(crop_window), _dtypes.int32)
        begin = A.concat([win[:2], A.zeros([1], _dtypes.int32)], 0)
        size = A.concat([win[2:], A.constant([-1], _dtypes.int32)], 0)
        return A.slice(image, begin, size)


def encode_jpeg_variable_quality(images: Any, quality: Any,
                                 name: Optional[str] = None) -> Tensor:
    """A uint8 ``[height, width, channels]`` image as JPEG at the int32 ``quality``."""
    img = convert_to_tensor(images)
    if img.dtype is not _dtypes.uint8:
        raise TypeError(f"encode_jpeg_variable_quality takes a uint8 image, got "
                        f"{img.dtype.name}")
    q = A.cast(convert_to_tensor(quality), _dtypes.int32)
    return make_tensor("EncodeJpegVariableQuality", [img, q], _dtypes.string,
                       name=name or "EncodeJpegVariableQuality")


def _requality(image: Any, quality: Tensor, dct_method: str) -> Tensor:
    img = convert_to_tensor(image)
    channels = img.shape.as_list()[-1] if img.shape.ndims else None
    if img.shape.ndims not in (3, 4) or channels not in (1, 3):
        raise ValueError(f"the image must be [height, width, 1 or 3] (or a batch of them), "
                         f"got shape {img.shape}")
    as_u8 = convert_image_dtype(img, _dtypes.uint8, saturate=True)

    def one(x: Tensor) -> Tensor:
        return decode_jpeg(encode_jpeg_variable_quality(x, quality), channels=channels,
                           dct_method=dct_method)
    if img.shape.ndims == 4:
        out = map_fn(one, as_u8, dtype=_dtypes.uint8)
    else:
        out = one(as_u8)
    return convert_image_dtype(out, img.dtype, saturate=True)


def adjust_jpeg_quality(image: Any, jpeg_quality: Any, dct_method: str = "",
                        name: Optional[str] = None) -> Tensor:
    """``image`` after a JPEG round trip at ``jpeg_quality`` (0-100), in its dtype."""
    with name_scope(name, "adjust_jpeg_quality"):
        q = convert_to_tensor(jpeg_quality, dtype=_dtypes.int32)
        return _requality(image, q, dct_method)


def random_jpeg_quality(image: Any, min_jpeg_quality: int, max_jpeg_quality: int,
                        seed: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    """``adjust_jpeg_quality`` at a quality drawn uniformly from
    ``[min_jpeg_quality, max_jpeg_quality)`` each run."""
    lo, hi = int(min_jpeg_quality), int(max_jpeg_quality)
    if not 0 <= lo < hi <= 100:
        raise ValueError(f"need 0 <= min_jpeg_quality < max_jpeg_quality <= 100, got {lo} "
                         f"and {hi}")
    with name_scope(name, "random_jpeg_quality"):
        q = random_uniform([], lo, hi, dtype=_dtypes.int32, seed=seed)
        return _requality(image, q, "")


def decode_webp(contents: Any, channels: int = 0, name: Optional[str] = None) -> Tensor:
    """A WebP string scalar to a uint8 ``[frames, height, width, channels]`` tensor
    (``channels`` 0 keeps the file's, 3 RGB, 4 RGBA)."""
    if channels not in (0, 3, 4):
        raise ValueError(f"decode_webp: channels must be 0, 3 or 4, got {channels}")
    c = convert_to_tensor(contents, dtype=_dtypes.string)
    return make_tensor("DecodeWebP", [c], _dtypes.uint8, {"channels": int(channels)},
                       name=name or "DecodeWebP")
