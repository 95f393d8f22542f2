"""numpy kernels of the morphology ops (``ops/morphology_ops.py``): one pass per filter tap
over a padded input (-inf outside), keeping the running maximum and which tap and input
element gave it."""

from __future__ import annotations

from typing import Any, Tuple

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.ops.morphology_ops import out_size


def _dilate(ctx: KernelContext, x: np.ndarray, f: np.ndarray) -> Tuple[np.ndarray, ...]:
    """``(output, argmax tap index, argmax input row, argmax input col)``."""
    if x.ndim != 4 or f.ndim != 3 or f.shape[2] != x.shape[3]:
        raise invalid(ctx, f"input must be [b, h, w, c] and filter [kh, kw, c], got "
                           f"{list(x.shape)} and {list(f.shape)}")
    s, r, p = ctx.attrs["strides"], ctx.attrs["rates"], ctx.attrs["padding"]
    b, h, w, c = x.shape
    kh, kw, _ = f.shape
    oh, top = out_size(h, kh, s[1], r[1], p)
    ow, left = out_size(w, kw, s[2], r[2], p)
    if oh <= 0 or ow <= 0:
        raise invalid(ctx, "the filter (with its rate) is larger than the input")
    work = x.astype(np.float64)
    best = np.full((b, oh, ow, c), -np.inf)
    tap = np.zeros((b, oh, ow, c), np.int64)
    rows = np.zeros((b, oh, ow, c), np.int64)
    cols = np.zeros((b, oh, ow, c), np.int64)
    ys = np.arange(oh) * s[1] - top
    xs = np.arange(ow) * s[2] - left
    for i in range(kh):
        for j in range(kw):
            yy, xx = ys + i * r[1], xs + j * r[2]
            oky, okx = (yy >= 0) & (yy < h), (xx >= 0) & (xx < w)
            vals = np.full((b, oh, ow, c), -np.inf)
            sub = work[:, np.clip(yy, 0, h - 1)][:, :, np.clip(xx, 0, w - 1)]
            mask = oky[None, :, None, None] & okx[None, None, :, None]
            vals = np.where(mask, sub + f[i, j].astype(np.float64), vals)
            better = vals > best
            best = np.where(better, vals, best)
            tap = np.where(better, i * kw + j, tap)
            rows = np.where(better, np.broadcast_to(yy[None, :, None, None], better.shape), rows)
            cols = np.where(better, np.broadcast_to(xx[None, None, :, None], better.shape), cols)
    return best, tap, rows, cols


@register_kernel("Dilation2D")
def _dilation(ctx: KernelContext, x: Any, f: Any) -> np.ndarray:
    x = np.asarray(x)
    return _dilate(ctx, x, np.asarray(f))[0].astype(x.dtype)


@register_kernel("Dilation2DBackpropInput")
def _backprop_input(ctx: KernelContext, x: Any, f: Any, g: Any) -> np.ndarray:
    x, g = np.asarray(x), np.asarray(g, np.float64)
    best, _, rows, cols = _dilate(ctx, x, np.asarray(f))
    out = np.zeros(x.shape, np.float64)
    bi, _, _, ci = np.indices(best.shape)
    np.add.at(out, (bi, rows, cols, ci), np.where(np.isfinite(best), g, 0.0))
    return out.astype(x.dtype)


@register_kernel("Dilation2DBackpropFilter")
def _backprop_filter(ctx: KernelContext, x: Any, f: Any, g: Any) -> np.ndarray:
    f, g = np.asarray(f), np.asarray(g, np.float64)
    best, tap, _, _ = _dilate(ctx, np.asarray(x), f)
    kh, kw, c = f.shape
    out = np.zeros((kh * kw, c), np.float64)
    ci = np.broadcast_to(np.arange(c), best.shape)
    np.add.at(out, (tap, ci), np.where(np.isfinite(best), g, 0.0))
    return out.reshape(f.shape).astype(f.dtype)
