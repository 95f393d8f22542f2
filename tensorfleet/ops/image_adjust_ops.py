"""``tf.image`` flips, crops, pads and colour adjustments, and their random forms.

They are built from array and math ops (strided slices, pads, reductions), so
they run wherever those run and have their gradients. Images are
``[height, width, channels]`` or ``[batch, height, width, channels]``; the rank
must be known when the graph is built. Random variants draw one value per
image for batches where TensorFlow does (flips), one per call otherwise.
"""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.ops import array_ops, control_flow_ops, math_ops, random_ops
from tensorfleet.ops.image_ops import convert_image_dtype, image_rank
from tensorfleet.ops.op_util import const_value, make_tensor


def _image(image: Any, name: str = "image") -> Tensor:
    return convert_to_tensor(image, name=name)


def _reverse(image: Tensor, axis: int) -> Tensor:
    index: List[Any] = [slice(None)] * image.shape.ndims
    index[axis] = slice(None, None, -1)
    return image[tuple(index)]


def flip_left_right(image: Any) -> Tensor:
    """Mirrors the width axis."""
    with name_scope(None, "flip_left_right"):
        image = _image(image)
        return _reverse(image, image_rank(image) - 2)


def flip_up_down(image: Any) -> Tensor:
    """Mirrors the height axis."""
    with name_scope(None, "flip_up_down"):
        image = _image(image)
        return _reverse(image, image_rank(image) - 3)


def _random_flip(image: Any, seed: Optional[int], axis_from_end: int, scope: str) -> Tensor:
    with name_scope(None, scope):
        image = _image(image)
        rank = image_rank(image)
        flipped = _reverse(image, rank - axis_from_end)
        if rank == 3:
            u = random_ops.random_uniform([], 0, 1.0, seed=seed)
            return control_flow_ops.cond(math_ops.less(u, 0.5), lambda: flipped,
                                         lambda: image)
        # One coin per image of the batch.
        n = array_ops.shape(image)[0:1]
        u = random_ops.random_uniform(n, 0, 1.0, seed=seed)
        mask = array_ops.reshape(math_ops.less(u, 0.5), [-1, 1, 1, 1])
        mask = math_ops.logical_and(mask, array_ops.ones_like(image, dtype=_dtypes.bool))
        return array_ops.where(mask, flipped, image)


def random_flip_left_right(image: Any, seed: Optional[int] = None) -> Tensor:
    """Mirrors the width axis with probability 1/2 (per image of a batch)."""
    return _random_flip(image, seed, 2, "random_flip_left_right")


def random_flip_up_down(image: Any, seed: Optional[int] = None) -> Tensor:
    """Mirrors the height axis with probability 1/2 (per image of a batch)."""
    return _random_flip(image, seed, 3, "random_flip_up_down")


def transpose_image(image: Any) -> Tensor:
    """Swaps height and width."""
    with name_scope(None, "transpose_image"):
        image = _image(image)
        perm = [1, 0, 2] if image_rank(image) == 3 else [0, 2, 1, 3]
        return array_ops.transpose(image, perm)


def rot90(image: Any, k: int = 1, name: Optional[str] = None) -> Tensor:
    """Rotates by ``k`` quarter turns counter-clockwise.

    Raises:
      TypeError: ``k`` is not a Python int (a tensor ``k`` is not supported).
    """
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"rot90: k must be a Python int, got {k!r}")
    with name_scope(name, "rot90"):
        image = _image(image)
        rank = image_rank(image)
        h, w = rank - 3, rank - 2
        k %= 4
        if k == 0:
            return array_ops.identity(image)
        if k == 2:
            return _reverse(_reverse(image, h), w)
        if k == 1:
            return transpose_image(_reverse(image, w))
        return _reverse(transpose_image(image), w)


def _hw(image: Tensor) -> List[Optional[int]]:
    shape = image.shape.as_list()
    return shape[-3:-1]


def _check_box(image: Tensor, offsets: List[Any], sizes: List[Any], what: str) -> None:
    for v, name in zip(offsets + sizes, ("offset_height", "offset_width", "target_height",
                                         "target_width")):
        if isinstance(v, int) and not isinstance(v, bool):
            lower = 1 if name.startswith("target") else 0
            if v < lower:
                raise ValueError(f"{what}: {name} must be >= {lower}, got {v}")


def crop_to_bounding_box(image: Any, offset_height: Any, offset_width: Any,
                         target_height: Any, target_width: Any) -> Tensor:
    """The ``target_height`` x ``target_width`` window at the given offsets.

    Raises:
      ValueError: the window does not fit (when the sizes are known at build time).
    """
    with name_scope(None, "crop_to_bounding_box"):
        image = _image(image)
        rank = image_rank(image)
        _check_box(image, [offset_height, offset_width], [target_height, target_width],
                   "crop_to_bounding_box")
        h, w = _hw(image)
        if all(isinstance(v, int) for v in (offset_height, target_height)) and h is not None \
                and offset_height + target_height > h:
            raise ValueError("height must be >= target + offset.")
        if all(isinstance(v, int) for v in (offset_width, target_width)) and w is not None \
                and offset_width + target_width > w:
            raise ValueError("width must be >= target + offset.")
        begin = [0, offset_height, offset_width, 0][4 - rank:]
        size = [-1, target_height, target_width, -1][4 - rank:]
        return array_ops.slice(image, array_ops.stack(begin), array_ops.stack(size))


def pad_to_bounding_box(image: Any, offset_height: Any, offset_width: Any,
                        target_height: Any, target_width: Any) -> Tensor:
    """Zero-pads to ``target_height`` x ``target_width`` with the image at the offsets.

    Raises:
      ValueError: the image does not fit (when the sizes are known at build time).
    """
    with name_scope(None, "pad_to_bounding_box"):
        image = _image(image)
        rank = image_rank(image)
        _check_box(image, [offset_height, offset_width], [target_height, target_width],
                   "pad_to_bounding_box")
        h, w = _hw(image)
        shape = array_ops.shape(image)
        hh = h if h is not None else shape[rank - 3]
        ww = w if w is not None else shape[rank - 2]
        after_h = target_height - offset_height - hh
        after_w = target_width - offset_width - ww
        for v, what in ((after_h, "height"), (after_w, "width")):
            if isinstance(v, int) and v < 0:
                raise ValueError(f"{what} must be <= target - offset")
        rows = [[0, 0], [offset_height, after_h], [offset_width, after_w], [0, 0]][4 - rank:]
        paddings = array_ops.stack([array_ops.stack(r) for r in rows])
        out = array_ops.pad(image, paddings)
        static = image.shape.as_list()
        static[rank - 3:rank - 1] = [v if isinstance(v, int) else None
                                     for v in (target_height, target_width)]
        out.set_shape(static)
        return out


def resize_image_with_crop_or_pad(image: Any, target_height: int, target_width: int) -> Tensor:
    """Centrally crops and/or zero-pads to ``target_height`` x ``target_width``.

    Raises:
      ValueError: non-positive targets, or the image size unknown at build time.
    """
    with name_scope(None, "resize_image_with_crop_or_pad"):
        image = _image(image)
        image_rank(image)
        if target_height <= 0 or target_width <= 0:
            raise ValueError("target_height and target_width must be > 0")
        h, w = _hw(image)
        if h is None or w is None:
            raise ValueError("resize_image_with_crop_or_pad needs the image's height and width "
                             "known when the graph is built")
        crop_h, pad_h = max((h - target_height) // 2, 0), max((target_height - h) // 2, 0)
        crop_w, pad_w = max((w - target_width) // 2, 0), max((target_width - w) // 2, 0)
        cropped = crop_to_bounding_box(image, crop_h, crop_w, min(target_height, h),
                                       min(target_width, w))
        return pad_to_bounding_box(cropped, pad_h, pad_w, target_height, target_width)


def central_crop(image: Any, central_fraction: float) -> Tensor:
    """The central ``central_fraction`` of the height and of the width.

    Raises:
      ValueError: ``central_fraction`` not in (0, 1], or an unknown image size.
    """
    if not 0.0 < central_fraction <= 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    with name_scope(None, "central_crop"):
        image = _image(image)
        image_rank(image)
        if central_fraction == 1.0:
            return image
        h, w = _hw(image)
        if h is None or w is None:
            raise ValueError("central_crop needs the image's height and width known when the "
                             "graph is built")
        top = int((h - h * central_fraction) / 2)
        left = int((w - w * central_fraction) / 2)
        return crop_to_bounding_box(image, top, left, h - 2 * top, w - 2 * left)


def random_crop(value: Any, size: Any, seed: Optional[int] = None,
                name: Optional[str] = None) -> Tensor:
    """A random window of shape ``size`` (one offset per dimension, uniform).

    Raises:
      ValueError: ``size`` larger than ``value`` (when both are known at build time).
    """
    with name_scope(name, "random_crop"):
        value = convert_to_tensor(value, name="value")
        size_t = convert_to_tensor(size, dtype=_dtypes.int32, name="size")
        static = const_value(size_t)
        shape = value.shape.as_list() if value.shape.ndims is not None else None
        if static is not None and shape is not None:
            if len(static) != len(shape):
                raise ValueError(f"random_crop: size {list(static)} and value shape {shape} "
                                 f"differ in rank")
            if any(d is not None and s > d for s, d in zip(static, shape)):
                raise ValueError(f"Need value.shape >= size, got shape {shape} and size "
                                 f"{list(static)}")
        vshape = array_ops.shape(value)
        check = control_flow_ops.Assert(
            math_ops.reduce_all(math_ops.greater_equal(vshape, size_t)),
            ["Need value.shape >= size, got ", vshape, size_t], summarize=1000)
        with value.graph.control_dependencies([check]):
            limit = vshape - size_t + 1
        offset = math_ops.floormod(
            random_ops.random_uniform(array_ops.shape(size_t), dtype=_dtypes.int32,
                                      maxval=_dtypes.int32.max, seed=seed), limit)
        out = array_ops.slice(value, offset, size_t)
        if static is not None:
            out.set_shape([int(v) for v in static])
        return out


# -- colour adjustments -------------------------------------------------------------------

def _cast(x: Any, dtype: _dtypes.DType) -> Tensor:
    return array_ops.cast(convert_to_tensor(x), dtype)


def _as_float(image: Tensor) -> Tensor:
    return image if image.dtype.is_floating else convert_image_dtype(image, _dtypes.float32)


def _back(out: Tensor, dtype: _dtypes.DType) -> Tensor:
    return out if dtype.is_floating else convert_image_dtype(out, dtype, saturate=True)


def adjust_brightness(image: Any, delta: Any) -> Tensor:
    """Adds ``delta`` to every value (in [0, 1] units for integer images, which are
    converted to float and back, saturating)."""
    with name_scope(None, "adjust_brightness"):
        image = _image(image)
        flt = _as_float(image)
        out = math_ops.add(flt, _cast(delta, flt.dtype), name="adjusted")
        return _back(out, image.dtype)


def adjust_contrast(images: Any, contrast_factor: Any) -> Tensor:
    """Moves each channel of each image away from (factor > 1) or towards its mean."""
    with name_scope(None, "adjust_contrast"):
        images = _image(images, "images")
        if images.shape.ndims is not None and images.shape.ndims < 3:
            raise ValueError(f"images must be at least 3-D, got {images.shape}")
        flt = _as_float(images)
        factor = _cast(contrast_factor, flt.dtype)
        return _back(_contrast(flt, factor), images.dtype)


def _contrast(x: Tensor, factor: Tensor) -> Tensor:
    mean = math_ops.reduce_mean(x, axis=[-3, -2], keepdims=True)
    return math_ops.add(math_ops.multiply(math_ops.subtract(x, mean), factor), mean)


def adjust_saturation(image: Any, saturation_factor: Any, name: Optional[str] = None) -> Tensor:
    """Scales the HSV saturation by ``saturation_factor`` (clipped to [0, 1])."""
    with name_scope(name, "adjust_saturation"):
        image = _image(image)
        flt = _as_float(image)
        out = make_tensor("AdjustSaturation", [flt, _cast(saturation_factor, flt.dtype)],
                          flt.dtype, {})
        return _back(out, image.dtype)


def adjust_hue(image: Any, delta: Any, name: Optional[str] = None) -> Tensor:
    """Rotates the HSV hue by ``delta`` (in [-1, 1], a full turn being 1)."""
    with name_scope(name, "adjust_hue"):
        image = _image(image)
        flt = _as_float(image)
        out = make_tensor("AdjustHue", [flt, _cast(delta, flt.dtype)], flt.dtype, {})
        return _back(out, image.dtype)


def random_brightness(image: Any, max_delta: float, seed: Optional[int] = None) -> Tensor:
    """``adjust_brightness`` by a delta uniform in ``[-max_delta, max_delta)``."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


def random_contrast(image: Any, lower: float, upper: float,
                    seed: Optional[int] = None) -> Tensor:
    """``adjust_contrast`` by a factor uniform in ``[lower, upper)``."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    factor = random_ops.random_uniform([], lower, upper, seed=seed)
    return adjust_contrast(image, factor)


def random_saturation(image: Any, lower: float, upper: float,
                      seed: Optional[int] = None) -> Tensor:
    """``adjust_saturation`` by a factor uniform in ``[lower, upper)``."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    factor = random_ops.random_uniform([], lower, upper, seed=seed)
    return adjust_saturation(image, factor)


def random_hue(image: Any, max_delta: float, seed: Optional[int] = None) -> Tensor:
    """``adjust_hue`` by a delta uniform in ``[-max_delta, max_delta)``, max_delta <= 0.5."""
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_hue(image, delta)


def rgb_to_grayscale(images: Any, name: Optional[str] = None) -> Tensor:
    """Luma ``0.2989 R + 0.5870 G + 0.1140 B`` as one channel, in the input's dtype."""
    with name_scope(name, "rgb_to_grayscale"):
        images = _image(images, "images")
        if images.shape.ndims is not None and images.shape.as_list()[-1] not in (None, 3):
            raise ValueError(f"rgb_to_grayscale: the last dimension must be 3, got "
                             f"{images.shape}")
        flt = _as_float(images)
        weights = array_ops.constant([0.2989, 0.5870, 0.1140], dtype=flt.dtype)
        gray = math_ops.reduce_sum(math_ops.multiply(flt, weights), axis=-1, keepdims=True)
        return convert_image_dtype(gray, images.dtype)


def grayscale_to_rgb(images: Any, name: Optional[str] = None) -> Tensor:
    """Repeats the single channel three times."""
    with name_scope(name, "grayscale_to_rgb"):
        images = _image(images, "images")
        nd = images.shape.ndims
        if nd is None or nd < 2 or images.shape.as_list()[-1] not in (None, 1):
            raise ValueError(f"grayscale_to_rgb: the last dimension must be 1, got "
                             f"{images.shape}")
        return array_ops.tile(images, [1] * (nd - 1) + [3])


# Linear colour spaces as 3x3 matrices applied to the last axis (rows: input channel).
_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
               [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1.0, 1.0, 1.0], [0.95598634, -0.27201283, -1.10674021],
               [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
               [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1.0, 1.0, 1.0], [0.0, -0.394642334, 2.03206185],
               [1.13988303, -0.58062185, 0.0]]


def _linear_colour(images: Any, matrix: List[List[float]], what: str) -> Tensor:
    with name_scope(None, what):
        x = _image(images, "images")
        if not x.dtype.is_floating:
            raise TypeError(f"{what} needs float images, got {x.dtype.name}")
        if x.shape.ndims is None or x.shape.as_list()[-1] not in (None, 3):
            raise ValueError(f"{what}: the last dimension must be 3, got {x.shape}")
        m = array_ops.constant(matrix, dtype=x.dtype)
        flat = math_ops.matmul(array_ops.reshape(x, [-1, 3]), m)
        return array_ops.reshape(flat, array_ops.shape(x))


def rgb_to_yiq(images: Any) -> Tensor:
    """RGB (floats in [0, 1], last dimension 3) to YIQ."""
    return _linear_colour(images, _RGB_TO_YIQ, "rgb_to_yiq")


def yiq_to_rgb(images: Any) -> Tensor:
    """YIQ back to RGB."""
    return _linear_colour(images, _YIQ_TO_RGB, "yiq_to_rgb")


def rgb_to_yuv(images: Any) -> Tensor:
    """RGB (floats in [0, 1], last dimension 3) to YUV."""
    return _linear_colour(images, _RGB_TO_YUV, "rgb_to_yuv")


def yuv_to_rgb(images: Any) -> Tensor:
    """YUV back to RGB."""
    return _linear_colour(images, _YUV_TO_RGB, "yuv_to_rgb")


def adjust_gamma(image: Any, gamma: Any = 1, gain: Any = 1) -> Tensor:
    """Gamma correction ``gain * image ** gamma`` on [0, 1] values; integer images are
    scaled there and back (saturating).

    Raises:
      ValueError: a negative ``gamma`` known when the graph is built.
    """
    with name_scope(None, "adjust_gamma"):
        image = _image(image)
        g_value = const_value(convert_to_tensor(gamma)) if isinstance(gamma, Tensor) else gamma
        if g_value is not None and float(g_value) < 0:
            raise ValueError(f"Gamma should be a non-negative real number, got {g_value}")
        keep = image.dtype in (_dtypes.float16, _dtypes.float32)
        flt = image if keep else convert_image_dtype(image, _dtypes.float32)
        out = math_ops.multiply(_cast(gain, flt.dtype), math_ops.pow(flt, _cast(gamma, flt.dtype)))
        return out if keep else convert_image_dtype(out, image.dtype, saturate=True)


def per_image_standardization(image: Any) -> Tensor:
    """``(x - mean) / max(stddev, 1 / sqrt(N))`` per image, N its number of values."""
    with name_scope(None, "per_image_standardization"):
        image = _image(image)
        rank = image_rank(image)
        flt = array_ops.cast(image, _dtypes.float32)
        axes = [-3, -2, -1]
        num = array_ops.cast(math_ops.reduce_prod(array_ops.shape(image)[rank - 3:]),
                             _dtypes.float32)
        mean = math_ops.reduce_mean(flt, axis=axes, keepdims=True)
        var = math_ops.reduce_mean(math_ops.square(flt - mean), axis=axes, keepdims=True)
        # 1 / sqrt(N): the floor that keeps a uniform image from dividing by zero.
        adjusted = math_ops.maximum(math_ops.sqrt(var), math_ops.divide(1.0, math_ops.sqrt(num)))
        return math_ops.divide(flt - mean, adjusted)


__all__ = ["flip_left_right", "flip_up_down", "random_flip_left_right", "random_flip_up_down",
           "transpose_image", "rot90", "crop_to_bounding_box", "pad_to_bounding_box",
           "resize_image_with_crop_or_pad", "central_crop", "random_crop", "adjust_brightness",
           "adjust_contrast", "adjust_saturation", "adjust_hue", "random_brightness",
           "random_contrast", "random_saturation", "random_hue", "rgb_to_grayscale",
           "grayscale_to_rgb", "per_image_standardization", "rgb_to_yiq", "yiq_to_rgb",
           "rgb_to_yuv", "yuv_to_rgb", "adjust_gamma"]
