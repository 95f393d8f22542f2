"""numpy kernel of ``ExtractGlimpse`` (``ops/image_glimpse_ops.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.numpy.random_kernels import generator
from tensorfleet.kernels.registry import KernelContext, register_kernel


def _noise(ctx: KernelContext, image: np.ndarray, h: int, w: int) -> np.ndarray:
    g = generator(ctx)
    c = image.shape[-1]
    if image.size == 0:
        return np.zeros((h, w, c), dtype=np.float32)
    if ctx.attrs["noise"] == "uniform":
        lo, hi = float(image.min()), float(image.max())
        return (lo + g.random((h, w, c)) * (hi - lo)).astype(np.float32)
    mean = image.reshape(-1, c).mean(axis=0)
    std = image.reshape(-1, c).std(axis=0)
    return (mean + std * g.standard_normal((h, w, c))).astype(np.float32)


@register_kernel("ExtractGlimpse")
def _extract_glimpse(ctx: KernelContext, x: Any, size: Any, offsets: Any) -> np.ndarray:
    images = np.asarray(x, dtype=np.float32)
    sz = np.asarray(size).reshape(-1)
    off = np.asarray(offsets, dtype=np.float32)
    if images.ndim != 4:
        raise invalid(ctx, f"input must be 4-D, got shape {list(images.shape)}")
    if sz.size != 2 or np.any(sz < 0):
        raise invalid(ctx, f"size must be two non-negative ints, got {sz.tolist()}")
    n, ih, iw, _ = images.shape
    if off.shape != (n, 2):
        raise invalid(ctx, f"offsets must have shape [{n}, 2], got {list(off.shape)}")
    h, w = int(sz[0]), int(sz[1])
    out = np.empty((n, h, w, images.shape[3]), dtype=np.float32)
    f32 = np.float32
    for b in range(n):
        # float32 arithmetic throughout, as TensorFlow's kernel: 0.9 * 5 must give 4.5.
        y, x0 = off[b, 0], off[b, 1]
        if ctx.attrs["normalized"]:
            y, x0 = y * f32(ih), x0 * f32(iw)
        if ctx.attrs["centered"]:
            y, x0 = y / f32(2) + f32(ih / 2.0), x0 / f32(2) + f32(iw / 2.0)
        # The corner is truncated toward zero, as TensorFlow's integer conversion does.
        top, left = int(y - f32(h / 2.0)), int(x0 - f32(w / 2.0))
        out[b] = _noise(ctx, images[b], h, w)
        r0, r1 = max(top, 0), min(top + h, ih)
        c0, c1 = max(left, 0), min(left + w, iw)
        if r0 < r1 and c0 < c1:
            out[b, r0 - top:r1 - top, c0 - left:c1 - left] = images[b, r0:r1, c0:c1]
    return out
