"""``tf.image``: resizing, JPEG/PNG codecs, colour spaces and dtype conversion.

Flips, crops, pads and colour adjustments are in ``ops/image_adjust_ops.py``.
Kernels are in ``kernels/numpy/image_kernels.py`` (resize, colour) and
``kernels/numpy/image_codec_kernels.py`` (Pillow's JPEG and PNG codecs); gradients of
the resizes in ``gradients/image_grad.py``.

Resizing follows TensorFlow 1.x's ``resize_images``: corners are not
half-pixel-centred, ``align_corners`` maps corner pixels onto corner pixels,
bilinear, bicubic and area resizes return float32 and nearest-neighbour keeps
the dtype. Images are ``[height, width, channels]`` or a batch of them.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, scalar, unknown_shape
from tensorfleet.ops import array_ops, math_ops
from tensorfleet.ops.op_util import const_value, make_tensor, same_shape


def _resize_shape(op: Operation) -> List[TensorShape]:
    s = op.inputs[0].shape
    if s.ndims is not None and s.ndims != 4:
        raise ValueError(f"images must be 4-D, got shape {s}")
    size = const_value(op.inputs[1])
    hw = [None, None] if size is None else [int(v) for v in size]
    n, c = (None, None) if s.ndims is None else (s.as_list()[0], s.as_list()[3])
    return [TensorShape([n] + hw + [c])]


def _decoded_shape(op: Operation) -> List[TensorShape]:
    ch = int(op.attrs.get("channels", 0))
    if op.type == "DecodeImage" and op.attrs.get("expand_animations", False):
        return [unknown_shape()]
    return [TensorShape([None, None, ch or None])]


def _encode_shape(op: Operation) -> List[TensorShape]:
    s = op.inputs[0].shape
    if s.ndims is not None and s.ndims != 3:
        raise ValueError(f"image must be 3-D [height, width, channels], got shape {s}")
    return [scalar()]


for _t in ("ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic", "ResizeArea"):
    register_op(_t, _resize_shape)
register_op("ResizeBilinearGrad", lambda op: [op.inputs[1].shape])
register_op("ResizeBicubicGrad", lambda op: [op.inputs[1].shape])
register_op("ResizeNearestNeighborGrad", _resize_shape)
for _t in ("DecodeJpeg", "DecodePng", "DecodeImage"):
    register_op(_t, _decoded_shape)
register_op("DecodeGif", lambda op: [TensorShape([None, None, None, 3])])
register_op("DecodeBmp", _decoded_shape)
register_op("ExtractJpegShape", lambda op: [TensorShape([3])])
register_op("EncodeJpeg", _encode_shape)
register_op("EncodePng", _encode_shape)
for _t in ("RGBToHSV", "HSVToRGB", "AdjustHue", "AdjustSaturation"):
    register_op(_t, same_shape)


class ResizeMethod:
    """The ``method`` of ``resize_images``."""

    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


_RESIZE_OPS = {ResizeMethod.BILINEAR: "ResizeBilinear",
               ResizeMethod.NEAREST_NEIGHBOR: "ResizeNearestNeighbor",
               ResizeMethod.BICUBIC: "ResizeBicubic", ResizeMethod.AREA: "ResizeArea"}


def image_rank(image: Tensor, what: str = "image") -> int:
    """The static rank of ``image``, which must be 3 or 4 (ValueError otherwise)."""
    nd = image.shape.ndims
    if nd not in (3, 4):
        raise ValueError(f"'{what}' (shape {image.shape}) must have either 3 or 4 dimensions.")
    return nd


def _size_tensor(size: Any) -> Tuple[Tensor, Optional[List[int]]]:
    if isinstance(size, Tensor):
        if size.shape.ndims is not None and (size.shape.ndims != 1 or
                                             size.shape.as_list()[0] not in (None, 2)):
            raise ValueError(f"'size' must be a 1-D Tensor of 2 elements: new_height, "
                             f"new_width, got shape {size.shape}")
        value = const_value(size)
        return size, None if value is None else [int(v) for v in value]
    vals = list(size) if isinstance(size, (list, tuple)) else None
    if vals is None or len(vals) != 2 or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in vals):
        raise ValueError(f"'size' must be a 1-D Tensor of 2 elements: new_height, new_width, "
                         f"got {size!r}")
    if min(vals) <= 0:
        raise ValueError(f"'size' must be positive, got {vals}")
    return convert_to_tensor(vals, dtype=_dtypes.int32, name="size"), vals


def _resize(op_type: str, images: Any, size: Any, align_corners: bool,
            half_pixel_centers: bool, name: Optional[str]) -> Tensor:
    if half_pixel_centers and align_corners:
        raise ValueError(f"{op_type}: if half_pixel_centers is True, align_corners must be "
                         f"False")
    if half_pixel_centers and op_type == "ResizeBicubic":
        raise ValueError("ResizeBicubic: half_pixel_centers=True is not supported (its "
                         "thresholded a = -0.5 kernel is not implemented); use "
                         "half_pixel_centers=False")
    with name_scope(name, op_type):
        images = convert_to_tensor(images, name="images")
        size_t, _ = _size_tensor(size)
        return make_tensor(op_type, [images, size_t],
                           images.dtype if op_type == "ResizeNearestNeighbor" else _dtypes.float32,
                           {"align_corners": bool(align_corners),
                            "half_pixel_centers": bool(half_pixel_centers)}, name=op_type)


def resize_bilinear(images: Any, size: Any, align_corners: bool = False,
                    name: Optional[str] = None, half_pixel_centers: bool = False) -> Tensor:
    """Bilinear resize of a 4-D batch to ``size`` (float32 result)."""
    return _resize("ResizeBilinear", images, size, align_corners, half_pixel_centers, name)


def resize_nearest_neighbor(images: Any, size: Any, align_corners: bool = False,
                            name: Optional[str] = None,
                            half_pixel_centers: bool = False) -> Tensor:
    """Nearest-neighbour resize of a 4-D batch to ``size`` (same dtype)."""
    return _resize("ResizeNearestNeighbor", images, size, align_corners, half_pixel_centers,
                   name)


def resize_bicubic(images: Any, size: Any, align_corners: bool = False,
                   name: Optional[str] = None, half_pixel_centers: bool = False) -> Tensor:
    """Bicubic (Keys, a = -0.75) resize of a 4-D batch to ``size`` (float32 result)."""
    return _resize("ResizeBicubic", images, size, align_corners, half_pixel_centers, name)


def resize_area(images: Any, size: Any, align_corners: bool = False,
                name: Optional[str] = None) -> Tensor:
    """Area-averaging resize of a 4-D batch to ``size`` (float32 result)."""
    return _resize("ResizeArea", images, size, align_corners, False, name)


def resize_images(images: Any, size: Any, method: int = ResizeMethod.BILINEAR,
                  align_corners: bool = False, preserve_aspect_ratio: bool = False) -> Tensor:
    """Resizes an image or a batch of images to ``size`` = ``[new_height, new_width]``.

    An image already of that size is returned as it is. ``preserve_aspect_ratio``
    picks the largest size within ``size`` with the image's aspect ratio (the
    image's size must then be known when the graph is built).

    Raises:
      ValueError: images of another rank than 3 or 4, a bad ``size``, or an
        unknown ``method``.
    """
    with name_scope(None, "resize_images"):
        images = convert_to_tensor(images, name="images")
        rank = image_rank(images, "images")
        if method not in _RESIZE_OPS:
            raise ValueError(f"Resize method {method!r} is not implemented; use one of "
                             f"ResizeMethod.BILINEAR, NEAREST_NEIGHBOR, BICUBIC, AREA")
        batch = images if rank == 4 else array_ops.expand_dims(images, 0)
        hw = batch.shape.as_list()[1:3]
        size_t, static = _size_tensor(size)
        if preserve_aspect_ratio:
            if static is None or None in hw:
                raise ValueError("preserve_aspect_ratio needs the image size and 'size' known "
                                 "when the graph is built")
            ratio = min(static[0] / hw[0], static[1] / hw[1])
            static = [max(int(round(hw[0] * ratio)), 1), max(int(round(hw[1] * ratio)), 1)]
            # Matches TensorFlow: the scaled side that limits the ratio is exact.
            size_t = convert_to_tensor(static, dtype=_dtypes.int32, name="size")
        if static is not None and static == hw:
            return images
        out = make_tensor(_RESIZE_OPS[method], [batch, size_t],
                          batch.dtype if method == ResizeMethod.NEAREST_NEIGHBOR
                          else _dtypes.float32,
                          {"align_corners": bool(align_corners), "half_pixel_centers": False})
        return out if rank == 4 else array_ops.squeeze(out, [0])


# -- codecs -------------------------------------------------------------------------------

def _check_channels(channels: Any, allowed: Tuple[int, ...], what: str) -> int:
    if channels is None:
        return 0
    if not isinstance(channels, int) or channels not in allowed:
        raise ValueError(f"{what}: channels must be one of {allowed}, got {channels!r}")
    return channels


def decode_jpeg(contents: Any, channels: int = 0, ratio: int = 1, fancy_upscaling: bool = True,
                try_recover_truncated: bool = False, acceptable_fraction: float = 1,
                dct_method: str = "", name: Optional[str] = None) -> Tensor:
    """A JPEG-encoded string scalar to a uint8 ``[height, width, channels]`` image.

    ``channels``: 0 keeps the file's, 1 gives greyscale, 3 RGB. ``ratio`` (1, 2, 4 or
    8) downscales while decoding. The decoder always uses libjpeg's accurate integer
    DCT, so pixels equal TensorFlow's with ``dct_method="INTEGER_ACCURATE"``;
    ``dct_method`` is a hint, which TensorFlow also documents it may ignore (its
    default fast DCT can differ by a few levels).

    Raises:
      ValueError: another ``ratio``, or ``fancy_upscaling=False``,
        ``try_recover_truncated=True`` or ``acceptable_fraction`` below 1 (not
        supported by this decoder).
    """
    ch = _check_channels(channels, (0, 1, 3), "decode_jpeg")
    if ratio not in (1, 2, 4, 8):
        raise ValueError(f"decode_jpeg: ratio must be 1, 2, 4 or 8, got {ratio!r}")
    if dct_method not in ("", "INTEGER_FAST", "INTEGER_ACCURATE"):
        raise ValueError(f"decode_jpeg: dct_method must be '', 'INTEGER_FAST' or "
                         f"'INTEGER_ACCURATE', got {dct_method!r}")
    if not fancy_upscaling or try_recover_truncated or acceptable_fraction != 1:
        raise ValueError("decode_jpeg: only fancy_upscaling=True, try_recover_truncated=False "
                         "and acceptable_fraction=1 are supported")
    c = convert_to_tensor(contents, dtype=_dtypes.string, name="contents")
    return make_tensor("DecodeJpeg", [c], _dtypes.uint8,
                       {"channels": ch, "ratio": int(ratio), "dct_method": str(dct_method)},
                       name=name or "DecodeJpeg")


def decode_png(contents: Any, channels: int = 0, dtype: Any = _dtypes.uint8,
               name: Optional[str] = None) -> Tensor:
    """A PNG-encoded string scalar to a ``[height, width, channels]`` image of ``dtype``
    (uint8, or uint16 for 16-bit greyscale files)."""
    ch = _check_channels(channels, (0, 1, 2, 3, 4), "decode_png")
    dt = _dtypes.as_dtype(dtype)
    if dt not in (_dtypes.uint8, _dtypes.uint16):
        raise ValueError(f"decode_png: dtype must be uint8 or uint16, got {dt.name}")
    c = convert_to_tensor(contents, dtype=_dtypes.string, name="contents")
    return make_tensor("DecodePng", [c], dt, {"channels": ch, "dtype": dt},
                       name=name or "DecodePng")


def decode_gif(contents: Any, name: Optional[str] = None) -> Tensor:
    """A GIF-encoded string scalar to uint8 ``[num_frames, height, width, 3]``: every
    frame, composed as displayed, in RGB."""
    c = convert_to_tensor(contents, dtype=_dtypes.string, name="contents")
    return make_tensor("DecodeGif", [c], _dtypes.uint8, {}, name=name or "DecodeGif")


def decode_bmp(contents: Any, channels: int = 0, name: Optional[str] = None) -> Tensor:
    """A BMP-encoded string scalar to uint8 ``[height, width, channels]``: ``channels`` 0
    keeps the file's (1 for 8-bit greyscale, 3, or 4 with alpha), 3 gives RGB, 4 RGBA
    (opaque alpha when the file has none)."""
    ch = _check_channels(channels, (0, 3, 4), "decode_bmp")
    c = convert_to_tensor(contents, dtype=_dtypes.string, name="contents")
    return make_tensor("DecodeBmp", [c], _dtypes.uint8, {"channels": ch},
                       name=name or "DecodeBmp")


def extract_jpeg_shape(contents: Any, output_type: Any = _dtypes.int32,
                       name: Optional[str] = None) -> Tensor:
    """``[height, width, channels]`` of a JPEG-encoded string scalar, read from its
    header without decoding the pixels."""
    dt = _dtypes.as_dtype(output_type)
    if dt not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"extract_jpeg_shape: output_type must be int32 or int64, got "
                        f"{dt.name}")
    c = convert_to_tensor(contents, dtype=_dtypes.string, name="contents")
    return make_tensor("ExtractJpegShape", [c], dt, {"output_type": dt},
                       name=name or "ExtractJpegShape")


def decode_image(contents: Any, channels: Optional[int] = None, dtype: Any = _dtypes.uint8,
                 name: Optional[str] = None, expand_animations: bool = True) -> Tensor:
    """Decodes a JPEG, PNG, GIF or BMP string scalar: ``[height, width, channels]``, or
    ``[frames, height, width, 3]`` for a GIF when ``expand_animations``. A float
    ``dtype`` gives values in [0, 1] (``convert_image_dtype``)."""
    ch = _check_channels(channels, (0, 1, 3, 4), "decode_image")
    dt = _dtypes.as_dtype(dtype)
    if dt not in (_dtypes.uint8, _dtypes.uint16, _dtypes.float32, _dtypes.float64,
                  _dtypes.float16):
        raise ValueError(f"decode_image: dtype must be uint8, uint16 or a float type, got "
                         f"{dt.name}")
    with name_scope(name, "decode_image"):
        c = convert_to_tensor(contents, dtype=_dtypes.string, name="contents")
        raw = _dtypes.uint16 if dt is _dtypes.uint16 else _dtypes.uint8
        img = make_tensor("DecodeImage", [c], raw, {"channels": ch, "dtype": raw,
                                                   "expand_animations": bool(expand_animations)})
        return img if dt is raw else convert_image_dtype(img, dt)


def encode_jpeg(image: Any, format: str = "", quality: int = 95,  # noqa: A002 (TF's name)
                progressive: bool = False, optimize_size: bool = False,
                chroma_downsampling: bool = True, density_unit: str = "in",
                x_density: int = 300, y_density: int = 300, xmp_metadata: str = "",
                name: Optional[str] = None) -> Tensor:
    """A uint8 ``[height, width, channels]`` image (1 or 3 channels) as a JPEG string.

    ``format`` ``"grayscale"`` or ``"rgb"`` forces the channel count; ``quality`` is
    0-100; ``chroma_downsampling=False`` keeps full-resolution colour.
    """
    if format not in ("", "grayscale", "rgb"):
        raise ValueError(f"encode_jpeg: format must be '', 'grayscale' or 'rgb', got {format!r}")
    if not isinstance(quality, int) or not 0 <= quality <= 100:
        raise ValueError(f"encode_jpeg: quality must be in [0, 100], got {quality!r}")
    if density_unit not in ("in", "cm"):
        raise ValueError(f"encode_jpeg: density_unit must be 'in' or 'cm', got {density_unit!r}")
    img = convert_to_tensor(image, name="image")
    if img.dtype is not _dtypes.uint8:
        raise TypeError(f"encode_jpeg needs a uint8 image, got {img.dtype.name}")
    return make_tensor("EncodeJpeg", [img], _dtypes.string,
                       {"format": format, "quality": quality, "progressive": bool(progressive),
                        "optimize_size": bool(optimize_size),
                        "chroma_downsampling": bool(chroma_downsampling),
                        "density_unit": density_unit, "x_density": int(x_density),
                        "y_density": int(y_density), "xmp_metadata": str(xmp_metadata)},
                       name=name or "EncodeJpeg")


def encode_png(image: Any, compression: int = -1, name: Optional[str] = None) -> Tensor:
    """A uint8 or uint16 ``[height, width, channels]`` image as a PNG string;
    ``compression`` 0-9, -1 for the default."""
    if not isinstance(compression, int) or not -1 <= compression <= 9:
        raise ValueError(f"encode_png: compression must be in [-1, 9], got {compression!r}")
    img = convert_to_tensor(image, name="image")
    if img.dtype not in (_dtypes.uint8, _dtypes.uint16):
        raise TypeError(f"encode_png needs a uint8 or uint16 image, got {img.dtype.name}")
    return make_tensor("EncodePng", [img], _dtypes.string, {"compression": compression},
                       name=name or "EncodePng")


# -- colour spaces and dtypes ------------------------------------------------------------

def _float_rgb(images: Any, what: str) -> Tensor:
    t = convert_to_tensor(images, name="images")
    if not t.dtype.is_floating:
        raise TypeError(f"{what} needs float images, got {t.dtype.name}")
    if t.shape.ndims is not None and t.shape.as_list()[-1] not in (None, 3):
        raise ValueError(f"{what}: the last dimension must be 3 (channels), got {t.shape}")
    return t


def rgb_to_hsv(images: Any, name: Optional[str] = None) -> Tensor:
    """RGB (floats in [0, 1], last dimension 3) to HSV, hue in [0, 1)."""
    t = _float_rgb(images, "rgb_to_hsv")
    return make_tensor("RGBToHSV", [t], t.dtype, {}, name=name or "RGBToHSV")


def hsv_to_rgb(images: Any, name: Optional[str] = None) -> Tensor:
    """HSV (floats, hue in [0, 1]) to RGB."""
    t = _float_rgb(images, "hsv_to_rgb")
    return make_tensor("HSVToRGB", [t], t.dtype, {}, name=name or "HSVToRGB")


def _saturate_cast(x: Tensor, dtype: _dtypes.DType) -> Tensor:
    lo, hi = dtype.min, dtype.max
    if x.dtype.is_floating or x.dtype.min < lo or x.dtype.max > hi:
        x = math_ops.minimum(math_ops.maximum(x, array_ops.cast(max(lo, x.dtype.min), x.dtype)),
                             array_ops.cast(min(hi, x.dtype.max), x.dtype))
    return array_ops.cast(x, dtype)


def convert_image_dtype(image: Any, dtype: Any, saturate: bool = False,
                        name: Optional[str] = None) -> Tensor:
    """Converts between image dtypes, rescaling: floats span [0, 1], integers
    [0, dtype max]. Integer to integer shifts the value range; float to integer
    multiplies by ``max + 0.5`` and truncates (``saturate`` clips first).

    Raises:
      AttributeError/TypeError: ``dtype`` is not a numeric image dtype.
    """
    with name_scope(name, "convert_image"):
        image = convert_to_tensor(image, name="image")
        dt = _dtypes.as_dtype(dtype)
        src = image.dtype
        for d in (src, dt):
            if not (d.is_floating or d.is_integer):
                raise TypeError(f"convert_image_dtype: {d.name} is not an image dtype")
        if dt is src:
            return array_ops.identity(image)
        if src.is_integer and dt.is_integer:
            if src.max > dt.max:
                scale = (int(src.max) + 1) // (int(dt.max) + 1)
                scaled = math_ops.floordiv(image, array_ops.cast(scale, src))
                return _saturate_cast(scaled, dt) if saturate else array_ops.cast(scaled, dt)
            cast = _saturate_cast(image, dt) if saturate else array_ops.cast(image, dt)
            scale = (int(dt.max) + 1) // (int(src.max) + 1)
            return math_ops.multiply(cast, array_ops.cast(scale, dt))
        if src.is_floating and dt.is_floating:
            return array_ops.cast(image, dt)
        if src.is_integer:
            return math_ops.multiply(array_ops.cast(image, dt),
                                     array_ops.cast(1.0 / float(src.max), dt))
        scaled = math_ops.multiply(image, array_ops.cast(float(dt.max) + 0.5, src))
        return _saturate_cast(scaled, dt) if saturate else array_ops.cast(scaled, dt)


__all__ = ["ResizeMethod", "image_rank", "resize_images", "resize_bilinear",
           "resize_nearest_neighbor", "resize_bicubic", "resize_area", "decode_jpeg",
           "decode_png", "decode_gif", "decode_bmp", "extract_jpeg_shape", "decode_image",
           "encode_jpeg", "encode_png", "rgb_to_hsv", "hsv_to_rgb", "convert_image_dtype"]
