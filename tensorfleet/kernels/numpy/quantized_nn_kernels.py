"""numpy kernels of ``QuantizedAvgPool``, ``QuantizedMaxPool`` and ``QuantizedConv2D``
(``ops/quantized_nn_ops.py``)."""

from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.ops.quantized_nn_ops import out_size


def _windows(size: int, k: int, stride: int, padding: str) -> List[Tuple[int, int]]:
    """``[start, stop)`` of each window along one dimension, clipped to the input."""
    n = out_size(size, k, stride, padding)
    before = 0
    if padding == "SAME":
        before = max((n - 1) * stride + k - size, 0) // 2
    out = []
    for i in range(n):
        start = i * stride - before
        out.append((max(start, 0), min(start + k, size)))
    return out


def _image(ctx: KernelContext, x: Any) -> np.ndarray:
    arr = np.asarray(x)
    if arr.ndim != 4:
        raise invalid(ctx, f"input must have rank 4, got shape {list(arr.shape)}")
    return arr


def _pool(ctx: KernelContext, x: Any, lo: Any, hi: Any, reduce: str) -> List[Any]:
    arr = _image(ctx, x)
    b, h, w, c = arr.shape
    k, s, pad = ctx.attrs["ksize"], ctx.attrs["strides"], ctx.attrs["padding"]
    rows, cols = _windows(h, k[1], s[1], pad), _windows(w, k[2], s[2], pad)
    out = np.empty((b, len(rows), len(cols), c), arr.dtype)
    for i, (r0, r1) in enumerate(rows):
        for j, (c0, c1) in enumerate(cols):
            win = arr[:, r0:r1, c0:c1, :].astype(np.float64)
            if reduce == "max":
                out[:, i, j, :] = win.max(axis=(1, 2))
            else:
                # The mean over the window's pixels inside the image, rounded half up.
                out[:, i, j, :] = np.floor(win.mean(axis=(1, 2)) + 0.5)
    return [out, np.float32(lo), np.float32(hi)]


@register_kernel("QuantizedAvgPool")
def _quantized_avg_pool(ctx: KernelContext, x: Any, lo: Any, hi: Any) -> List[Any]:
    return _pool(ctx, x, lo, hi, "mean")


@register_kernel("QuantizedMaxPool")
def _quantized_max_pool(ctx: KernelContext, x: Any, lo: Any, hi: Any) -> List[Any]:
    return _pool(ctx, x, lo, hi, "max")


def zero_point(lo: float, hi: float, dtype: np.dtype) -> int:
    """The quantized value of 0.0 in ``[lo, hi]`` (TensorFlow's unclamped rounding)."""
    info = np.iinfo(dtype)
    if lo == hi:
        return int(info.min)
    steps = float(1 << (8 * np.dtype(dtype).itemsize))
    scale = steps / ((hi - lo) * (steps / (steps - 1.0)))
    return int(-round(lo * scale)) + int(info.min)


def _step(lo: float, hi: float, dtype: np.dtype) -> np.float32:
    # float32 arithmetic throughout, so the range is TensorFlow's to the last bit.
    info = np.iinfo(dtype)
    return (np.float32(hi) - np.float32(lo)) / np.float32(float(info.max) - float(info.min))


@register_kernel("QuantizedConv2D")
def _quantized_conv2d(ctx: KernelContext, x: Any, f: Any, min_x: Any, max_x: Any,
                      min_f: Any, max_f: Any) -> List[Any]:
    arr, filt = _image(ctx, x), np.asarray(f)
    if filt.ndim != 4 or filt.shape[2] != arr.shape[3]:
        raise invalid(ctx, f"filter of shape {list(filt.shape)} does not fit input of shape "
                      f"{list(arr.shape)}")
    lx, hx, lf, hf = (float(np.asarray(v)) for v in (min_x, max_x, min_f, max_f))
    xs = arr.astype(np.int64) - zero_point(lx, hx, arr.dtype)
    fs = filt.astype(np.int64) - zero_point(lf, hf, filt.dtype)
    b, h, w, c = arr.shape
    kh, kw, _, o = filt.shape
    s, pad = ctx.attrs["strides"], ctx.attrs["padding"]
    oh, ow = out_size(h, kh, s[1], pad), out_size(w, kw, s[2], pad)
    top = max((oh - 1) * s[1] + kh - h, 0) // 2 if pad == "SAME" else 0
    left = max((ow - 1) * s[2] + kw - w, 0) // 2 if pad == "SAME" else 0
    # Padding holds the zero point, i.e. 0 once the offset is taken off.
    rows, cols = max((oh - 1) * s[1] + kh, top + h), max((ow - 1) * s[2] + kw, left + w)
    padded = np.zeros((b, rows, cols, c), np.int64)
    padded[:, top:top + h, left:left + w, :] = xs
    out = np.zeros((b, oh, ow, o), np.int64)
    for i in range(kh):
        for j in range(kw):
            patch = padded[:, i:i + s[1] * oh:s[1], j:j + s[2] * ow:s[2], :]
            out += np.tensordot(patch, fs[i, j], axes=([3], [0]))
    level = _step(lx, hx, arr.dtype) * _step(lf, hf, filt.dtype)
    info = np.iinfo(np.int32)
    return [np.clip(out, info.min, info.max).astype(np.int32),
            np.float32(level * np.float32(info.min)), np.float32(level * np.float32(info.max))]
