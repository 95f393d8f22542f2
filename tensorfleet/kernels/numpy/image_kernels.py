"""numpy kernels of the image ops: resizing (and its gradients) and colour spaces.

A resize is separable: each method is a matrix ``W`` (output rows x input rows)
per spatial axis, built once from the sizes and kept as a few taps (index and
weight) per output row, and the image becomes ``W_h @ image @ W_w^T``: per axis,
one gather and multiply-add per tap over the whole batch. The gradient applies
the transposed matrices, summing each tap's contributions with ``reduceat``.
The matrices follow TensorFlow's resize definitions: source coordinate
``dst * scale`` with ``scale = in / out``, or ``(in - 1) / (out - 1)`` with
``align_corners``; with ``half_pixel_centers`` pixels are sampled at their centres,
``(dst + 0.5) * scale - 0.5`` (bilinear) or ``(dst + 0.5) * scale`` (nearest).
Coordinates are computed in float32, as TensorFlow does, so that nearest-neighbour
picks and cubic weights land on the same pixels.
"""

from __future__ import annotations

import functools
from typing import Any, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel

# Keys' cubic kernel with a = -0.75, sampled at 1/1024 steps as TensorFlow's table.
_CUBIC_A = -0.75
_CUBIC_TABLE_SIZE = 1024


def _scale(n_in: int, n_out: int, align_corners: bool) -> np.float32:
    if align_corners and n_out > 1:
        return np.float32(n_in - 1) / np.float32(n_out - 1)
    return np.float32(n_in) / np.float32(n_out)


def _src(n_in: int, n_out: int, align_corners: bool, half_pixel: bool = False) -> np.ndarray:
    scale = _scale(n_in, n_out, align_corners)
    if half_pixel:
        return (np.arange(n_out, dtype=np.float32) + np.float32(0.5)) * scale - \
            np.float32(0.5)
    return np.arange(n_out, dtype=np.float32) * scale


@functools.lru_cache(maxsize=256)
def nearest_index(n_in: int, n_out: int, align_corners: bool,
                  half_pixel: bool = False) -> np.ndarray:
    """The input index each output index copies."""
    if half_pixel:
        # The centre of output pixel i falls in input pixel floor((i + 0.5) * scale).
        src = (np.arange(n_out, dtype=np.float32) + np.float32(0.5)) * \
            _scale(n_in, n_out, False)
        return np.clip(np.floor(src).astype(np.int64), 0, n_in - 1)
    src = _src(n_in, n_out, align_corners)
    # Rounding is half away from zero (C's roundf), not numpy's half to even.
    idx = np.floor(src + np.float32(0.5)) if align_corners else np.floor(src)
    return np.minimum(idx.astype(np.int64), n_in - 1)


@functools.lru_cache(maxsize=256)
def _matrix(method: str, n_in: int, n_out: int, align_corners: bool,
            half_pixel: bool = False) -> np.ndarray:
    rows = np.arange(n_out)
    w = np.zeros((n_out, n_in), dtype=np.float64)
    if method == "nearest":
        w[rows, nearest_index(n_in, n_out, align_corners, half_pixel)] = 1.0
    elif method == "bilinear":
        src = _src(n_in, n_out, align_corners, half_pixel)
        floor = np.floor(src).astype(np.int64)
        # A centre left of the first pixel's (half-pixel sampling) reads the first pixel.
        lo = np.maximum(floor, 0)
        hi = np.clip(floor + 1, 0, n_in - 1)
        frac = (src - floor.astype(np.float32)).astype(np.float64)
        np.add.at(w, (rows, lo), 1.0 - frac)
        np.add.at(w, (rows, hi), frac)
    elif method == "bicubic":
        src = _src(n_in, n_out, align_corners)
        base = np.floor(src).astype(np.int64)
        delta = src - base.astype(np.float32)
        off = np.rint(delta * np.float32(_CUBIC_TABLE_SIZE)).astype(np.int64)
        table = _cubic_table()
        weights = [table[off, 1], table[off, 0], table[_CUBIC_TABLE_SIZE - off, 0],
                   table[_CUBIC_TABLE_SIZE - off, 1]]
        for k, wk in enumerate(weights):
            np.add.at(w, (rows, np.clip(base + k - 1, 0, n_in - 1)), wk)
    elif method == "area":
        scale = _scale(n_in, n_out, align_corners)
        start = rows.astype(np.float32) * scale
        end = (rows + 1).astype(np.float32) * scale
        lo = np.floor(start).astype(np.int64)
        span = int(np.max(np.ceil(end).astype(np.int64) - lo)) if n_out else 0
        for k in range(span):
            i = lo + k
            cover = (np.minimum(end, i + 1) - np.maximum(start, i)).astype(np.float64)
            valid = (i.astype(np.float32) < end) & (cover > 0)
            np.add.at(w, (rows[valid], np.minimum(i[valid], n_in - 1)),
                      cover[valid] / np.float64(scale))
    else:
        raise ValueError(f"unknown resize method {method!r}")
    w.setflags(write=False)
    return w


@functools.lru_cache(maxsize=1)
def _cubic_table() -> np.ndarray:
    x = np.arange(_CUBIC_TABLE_SIZE + 1, dtype=np.float64) / _CUBIC_TABLE_SIZE
    a = _CUBIC_A
    near = ((a + 2) * x - (a + 3)) * x * x + 1           # |t| = x in [0, 1]
    x1 = x + 1
    far = ((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a   # |t| = x + 1 in [1, 2]
    return np.stack([near, far], axis=1).astype(np.float32).astype(np.float64)


def _check_images(ctx: KernelContext, images: Any) -> np.ndarray:
    arr = np.asarray(images)
    if arr.ndim != 4:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"{ctx.op_type}: input must be 4-dimensional, got shape "
            f"{list(arr.shape)}")
    return arr


def _check_size(ctx: KernelContext, size: Any) -> Tuple[int, int]:
    s = np.asarray(size)
    if s.shape != (2,) or s.dtype.kind not in "iu":
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"{ctx.op_type}: size must be a 1-D int32 tensor of 2 "
            f"elements, got {s.tolist()!r}")
    h, w = int(s[0]), int(s[1])
    if h <= 0 or w <= 0:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"{ctx.op_type}: output dimensions must be positive, got "
            f"{[h, w]}")
    return h, w


@functools.lru_cache(maxsize=256)
def _taps(method: str, n_in: int, n_out: int, align_corners: bool,
          half_pixel: bool = False) -> Tuple[np.ndarray, np.ndarray]:
    """The resize matrix as taps: ``(index, weight)``, each ``[n_out, K]``, K being the
    most input pixels any output pixel reads (unused taps have weight 0)."""
    w = _matrix(method, n_in, n_out, align_corners, half_pixel)
    nz = w != 0
    k = max(int(nz.sum(axis=1).max()), 1)
    # Each row's non-zero columns first (stable), then the rest with weight 0.
    order = np.argsort(~nz, axis=1, kind="stable")[:, :k]
    weights = np.take_along_axis(w, order, axis=1)
    return order, weights


def _along(x: np.ndarray, axis: int, taps: Tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    idx, w = taps
    w = w.astype(x.dtype, copy=False)
    shape = [1] * x.ndim
    shape[axis] = idx.shape[0]
    out = np.take(x, idx[:, 0], axis=axis) * w[:, 0].reshape(shape)
    for k in range(1, idx.shape[1]):
        out += np.take(x, idx[:, k], axis=axis) * w[:, k].reshape(shape)
    return out


def _along_transposed(g: np.ndarray, axis: int, taps: Tuple[np.ndarray, np.ndarray],
                      n_in: int) -> np.ndarray:
    """``W^T g`` along ``axis``: each tap's contributions summed per input pixel with
    one sort and ``reduceat`` (no per-element scatter)."""
    idx, w = taps
    w = w.astype(g.dtype, copy=False)
    shape = [1] * g.ndim
    shape[axis] = idx.shape[0]
    out_shape = list(g.shape)
    out_shape[axis] = n_in
    out = np.zeros(out_shape, dtype=g.dtype)
    lead = (slice(None),) * axis
    for k in range(idx.shape[1]):
        order = np.argsort(idx[:, k], kind="stable")
        uniq, starts = np.unique(idx[order, k], return_index=True)
        contrib = np.take(g * w[:, k].reshape(shape), order, axis=axis)
        out[lead + (uniq,)] += np.add.reduceat(contrib, starts, axis=axis)
    return out


def resize(images: np.ndarray, size: Tuple[int, int], method: str,
           align_corners: bool, half_pixel: bool = False) -> np.ndarray:
    """Resizes an NHWC batch; float32 output except nearest, which keeps the dtype."""
    n, h, w, c = images.shape
    if method == "nearest":
        rows = nearest_index(h, size[0], align_corners, half_pixel)
        cols = nearest_index(w, size[1], align_corners, half_pixel)
        return images[:, rows][:, :, cols]
    x = images.astype(np.float64 if images.dtype == np.float64 else np.float32, copy=False)
    out = _along(x, 1, _taps(method, h, size[0], align_corners, half_pixel))
    out = _along(out, 2, _taps(method, w, size[1], align_corners, half_pixel))
    return out.astype(np.float32, copy=False)


def _sampling(ctx: KernelContext) -> Tuple[bool, bool]:
    """(align_corners, half_pixel_centers) of a resize op or its gradient."""
    return bool(ctx.attrs["align_corners"]), bool(ctx.attrs.get("half_pixel_centers", False))


def _resize_kernel(method: str):
    def kernel(ctx: KernelContext, images: Any, size: Any) -> np.ndarray:
        arr = _check_images(ctx, images)
        if arr.shape[1] == 0 or arr.shape[2] == 0:
            raise errors.InvalidArgumentError(
                ctx.op_name, None, f"{ctx.op_type}: input image must have non-zero size, got "
                f"{list(arr.shape)}")
        return resize(arr, _check_size(ctx, size), method, *_sampling(ctx))
    return kernel


for _op, _m in (("ResizeBilinear", "bilinear"), ("ResizeNearestNeighbor", "nearest"),
                ("ResizeBicubic", "bicubic"), ("ResizeArea", "area")):
    register_kernel(_op)(_resize_kernel(_m))


def resize_grad(grads: np.ndarray, in_hw: Tuple[int, int], method: str,
                align_corners: bool, half_pixel: bool = False) -> np.ndarray:
    """The gradient of ``resize`` with respect to its input, given the output's."""
    g = grads.astype(np.float64 if grads.dtype == np.float64 else np.float32, copy=False)
    out = _along_transposed(
        g, 1, _taps(method, in_hw[0], grads.shape[1], align_corners, half_pixel), in_hw[0])
    return _along_transposed(
        out, 2, _taps(method, in_hw[1], grads.shape[2], align_corners, half_pixel), in_hw[1])


@register_kernel("ResizeBilinearGrad")
def _resize_bilinear_grad(ctx: KernelContext, grads: Any, original: Any) -> np.ndarray:
    orig = _check_images(ctx, original)
    out = resize_grad(_check_images(ctx, grads), orig.shape[1:3], "bilinear",
                      *_sampling(ctx))
    return out.astype(orig.dtype)


@register_kernel("ResizeBicubicGrad")
def _resize_bicubic_grad(ctx: KernelContext, grads: Any, original: Any) -> np.ndarray:
    orig = _check_images(ctx, original)
    out = resize_grad(_check_images(ctx, grads), orig.shape[1:3], "bicubic",
                      *_sampling(ctx))
    return out.astype(orig.dtype)


@register_kernel("ResizeNearestNeighborGrad")
def _resize_nearest_grad(ctx: KernelContext, grads: Any, size: Any) -> np.ndarray:
    g = _check_images(ctx, grads)
    out = resize_grad(g, _check_size(ctx, size), "nearest", *_sampling(ctx))
    return out.astype(g.dtype)


# -- colour spaces ---------------------------------------------------------------------

def _check_rgb(ctx: KernelContext, images: Any) -> np.ndarray:
    arr = np.asarray(images)
    if arr.ndim < 1 or arr.shape[-1] != 3:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"{ctx.op_type}: the last dimension must be 3 (channels), got "
            f"shape {list(arr.shape)}")
    if arr.dtype.kind != "f":
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"{ctx.op_type}: needs float images, got {arr.dtype}")
    return arr


def rgb_to_hsv(rgb: np.ndarray) -> np.ndarray:
    """RGB in [0, 1] to HSV with hue in [0, 1)."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    v = rgb.max(axis=-1)
    rng = v - rgb.min(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(v > 0, rng / v, 0).astype(rgb.dtype)
        norm = 1.0 / (6.0 * rng)
        h = np.where(r == v, norm * (g - b),
                     np.where(g == v, norm * (b - r) + 2.0 / 6.0, norm * (r - g) + 4.0 / 6.0))
    h = np.where(rng > 0, h, 0)
    h = np.where(h < 0, h + 1, h).astype(rgb.dtype)
    return np.stack([h, s, v], axis=-1)


def hsv_to_rgb(hsv: np.ndarray) -> np.ndarray:
    """HSV (hue in [0, 1]) to RGB, each channel a clipped piecewise-linear ramp of hue."""
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    dh = h * 6
    dr = np.clip(np.abs(dh - 3) - 1, 0, 1)
    dg = np.clip(2 - np.abs(dh - 2), 0, 1)
    db = np.clip(2 - np.abs(dh - 4), 0, 1)
    one_s = 1 - s
    return np.stack([(one_s + s * dr) * v, (one_s + s * dg) * v, (one_s + s * db) * v],
                    axis=-1).astype(hsv.dtype)


@register_kernel("RGBToHSV")
def _rgb_to_hsv(ctx: KernelContext, images: Any) -> np.ndarray:
    return rgb_to_hsv(_check_rgb(ctx, images))


@register_kernel("HSVToRGB")
def _hsv_to_rgb(ctx: KernelContext, images: Any) -> np.ndarray:
    return hsv_to_rgb(_check_rgb(ctx, images))


@register_kernel("AdjustHue")
def _adjust_hue(ctx: KernelContext, images: Any, delta: Any) -> np.ndarray:
    arr = _check_rgb(ctx, images)
    hsv = rgb_to_hsv(arr)
    h = np.mod(hsv[..., 0] + np.asarray(delta, dtype=arr.dtype), 1.0)
    hsv[..., 0] = h
    return hsv_to_rgb(hsv)


@register_kernel("AdjustSaturation")
def _adjust_saturation(ctx: KernelContext, images: Any, scale: Any) -> np.ndarray:
    arr = _check_rgb(ctx, images)
    hsv = rgb_to_hsv(arr)
    hsv[..., 1] = np.clip(hsv[..., 1] * np.asarray(scale, dtype=arr.dtype), 0, 1)
    return hsv_to_rgb(hsv)


__all__ = ["resize", "resize_grad", "nearest_index", "rgb_to_hsv", "hsv_to_rgb"]
