"""numpy kernels of ``max_pool_with_argmax``, fractional max/average pooling and their
gradients (``ops/nn_pool_ops.py``).

The input is padded with ``-inf`` (SAME padding never wins), viewed as windows
``[batch, out_h, out_w, channels, k_h * k_w]`` without copying, and one ``argmax``
over the last axis picks each window's first maximum; the window offset turns
into the flat input index. The gradient is one ``np.bincount`` over the flat input.

Fractional pooling regions have two or three lengths, so they are gathered as
windows of the longest one with a mask for the pixels a shorter region lacks.
"""

from __future__ import annotations

from typing import Any, Tuple

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.numpy.random_kernels import generator
from tensorfleet.kernels.registry import KernelContext, register_kernel


def _pads(n: int, k: int, s: int, padding: str) -> Tuple[int, int, int]:
    """``(output size, padding before, padding after)`` along one axis."""
    if padding == "VALID":
        return (n - k) // s + 1, 0, 0
    out = -(-n // s)
    total = max((out - 1) * s + k - n, 0)
    return out, total // 2, total - total // 2


@register_kernel("MaxPoolWithArgmax")
def _max_pool_with_argmax(ctx: KernelContext, value: Any) -> Tuple[np.ndarray, np.ndarray]:
    x = np.asarray(value)
    if x.ndim != 4:
        raise invalid(ctx, f"input must be 4-D [batch, height, width, channels], got "
                           f"{list(x.shape)}")
    b, h, w, c = x.shape
    _, kh, kw, _ = ctx.attrs["ksize"]
    _, sh, sw, _ = ctx.attrs["strides"]
    padding = ctx.attrs["padding"]
    if padding == "VALID" and (kh > h or kw > w):
        raise invalid(ctx, f"the {kh}x{kw} window does not fit the {h}x{w} input with VALID "
                           f"padding")
    oh, top, bottom = _pads(h, kh, sh, padding)
    ow, left, right = _pads(w, kw, sw, padding)
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    xp = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)), constant_values=low) \
        if top or bottom or left or right else x
    win = sliding_window_view(xp, (kh, kw), axis=(1, 2))[:, ::sh, ::sw][:, :oh, :ow]
    win = win.reshape(b, oh, ow, c, kh * kw)
    pick = win.argmax(axis=-1)
    out = np.take_along_axis(win, pick[..., None], axis=-1)[..., 0]
    ys = (np.arange(oh) * sh - top)[None, :, None, None] + pick // kw
    xs = (np.arange(ow) * sw - left)[None, None, :, None] + pick % kw
    index = (ys * w + xs) * c + np.arange(c)[None, None, None, :]
    if ctx.attrs["include_batch_in_index"]:
        index = index + (np.arange(b) * (h * w * c))[:, None, None, None]
    return out.astype(x.dtype, copy=False), index.astype(ctx.attrs["Targmax"].np)


@register_kernel("MaxPoolGradWithArgmax")
def _max_pool_grad_with_argmax(ctx: KernelContext, value: Any, grad: Any,
                               argmax: Any) -> np.ndarray:
    x, g, idx = np.asarray(value), np.asarray(grad), np.asarray(argmax).astype(np.int64)
    if g.shape != idx.shape or g.ndim != 4 or x.ndim != 4 or g.shape[0] != x.shape[0]:
        raise invalid(ctx, f"grad {list(g.shape)} and argmax {list(idx.shape)} must both be "
                           f"the pooled shape of input {list(x.shape)}")
    b = x.shape[0]
    per_image = int(np.prod(x.shape[1:]))
    if not ctx.attrs["include_batch_in_index"]:
        idx = idx + (np.arange(b, dtype=np.int64) * per_image)[:, None, None, None]
    if idx.size and (idx.min() < 0 or idx.max() >= b * per_image):
        raise invalid(ctx, "argmax holds an index outside the input")
    out = np.bincount(idx.reshape(-1), weights=g.reshape(-1).astype(np.float64),
                      minlength=b * per_image)
    return out.reshape(x.shape).astype(g.dtype, copy=False)


def _sequence(rng: np.random.Generator, n_in: int, n_out: int, pseudo: bool) -> np.ndarray:
    """Region boundaries ``[0, ..., n_in]`` (``n_out + 1`` of them)."""
    k = n_in // n_out
    if n_in % n_out == 0:
        steps = np.full(n_out, k)
    elif pseudo:
        alpha = n_in / n_out
        u = rng.random()
        cuts = np.ceil(alpha * (np.arange(n_out + 1) + u)) - np.ceil(alpha * u)
        cuts[-1] = n_in  # exact; guards the last ceil against rounding
        return cuts.astype(np.int64)
    else:
        steps = np.full(n_out, k)
        steps[rng.permutation(n_out)[:n_in - k * n_out]] += 1
    return np.concatenate([[0], np.cumsum(steps)]).astype(np.int64)


def _regions(seq: np.ndarray, n_in: int, overlapping: bool) -> Tuple[np.ndarray, np.ndarray]:
    """Pixel indices ``[n_out, longest]`` of each region and the mask of real ones."""
    starts = seq[:-1]
    ends = np.minimum(seq[1:] + 1, n_in) if overlapping else seq[1:]
    lengths = ends - starts
    offs = np.arange(int(lengths.max()))
    return np.minimum(starts[:, None] + offs, n_in - 1), offs[None, :] < lengths[:, None]


def _windows(x: np.ndarray, rows: np.ndarray, cols: np.ndarray):
    """``x`` gathered as ``[b, out_h, out_w, c, rows_k * cols_k]`` windows, row-major."""
    (ri, rm), (ci, cm) = rows, cols
    win = x[:, ri[:, :, None, None], ci[None, None, :, :], :]  # [b, oh, kr, ow, kc, c]
    mask = rm[:, :, None, None] & cm[None, None, :, :]
    b, oh, kr, ow, kc, c = win.shape
    win = win.transpose(0, 1, 3, 5, 2, 4).reshape(b, oh, ow, c, kr * kc)
    return win, mask.transpose(0, 2, 1, 3).reshape(oh, ow, 1, kr * kc)


def _fractional_setup(ctx: KernelContext, value: Any):
    x = np.asarray(value)
    if x.ndim != 4:
        raise invalid(ctx, f"input must be 4-D [batch, height, width, channels], got "
                           f"{list(x.shape)}")
    ratio = ctx.attrs["pooling_ratio"]
    out_h, out_w = int(np.floor(x.shape[1] / ratio[1])), int(np.floor(x.shape[2] / ratio[2]))
    if out_h < 1 or out_w < 1:
        raise invalid(ctx, f"pooling_ratio {ratio} leaves no output for input shape "
                           f"{list(x.shape)}")
    if ctx.attrs["deterministic"]:
        seeds = ctx.state.get("region_seeds")
        if seeds is None:
            seeds = [ctx.attrs["seed"], ctx.attrs["seed2"]]
            if not any(seeds):  # fixed once for this session
                seeds = list(np.random.SeedSequence().generate_state(2))
            ctx.state["region_seeds"] = seeds
        rng = np.random.default_rng(np.random.SeedSequence([int(v) for v in seeds]))
    else:
        rng = generator(ctx)
    pseudo = ctx.attrs["pseudo_random"]
    row_seq = _sequence(rng, x.shape[1], out_h, pseudo)
    col_seq = _sequence(rng, x.shape[2], out_w, pseudo)
    return x, row_seq, col_seq


def _region_pair(ctx: KernelContext, shape: Tuple[int, ...], row_seq: Any, col_seq: Any):
    rs, cs = np.asarray(row_seq, np.int64), np.asarray(col_seq, np.int64)
    for seq, n, what in ((rs, shape[1], "row"), (cs, shape[2], "col")):
        if seq.ndim != 1 or seq.size < 2 or seq[0] != 0 or seq[-1] != n or \
                (np.diff(seq) <= 0).any():
            raise invalid(ctx, f"{what}_pooling_sequence must rise from 0 to {n}, got "
                               f"{seq.tolist()}")
    ov = ctx.attrs["overlapping"]
    return _regions(rs, shape[1], ov), _regions(cs, shape[2], ov)


@register_kernel("FractionalMaxPool")
def _fractional_max_pool(ctx: KernelContext, value: Any):
    x, rs, cs = _fractional_setup(ctx, value)
    win, mask = _windows(x, *_region_pair(ctx, x.shape, rs, cs))
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    return np.where(mask, win, low).max(axis=-1).astype(x.dtype), rs, cs


@register_kernel("FractionalAvgPool")
def _fractional_avg_pool(ctx: KernelContext, value: Any):
    x, rs, cs = _fractional_setup(ctx, value)
    win, mask = _windows(x, *_region_pair(ctx, x.shape, rs, cs))
    total = np.where(mask, win, 0).sum(axis=-1, dtype=np.float64)
    out = total / mask.sum(axis=-1)
    return (out if x.dtype.kind == "f" else np.trunc(out)).astype(x.dtype), rs, cs


def _flat_index(shape: Tuple[int, ...], rows, cols) -> np.ndarray:
    """Flat input index of every window pixel, ``[b, out_h, out_w, c, k]``."""
    flat = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    return _windows(flat, rows, cols)[0]


@register_kernel("FractionalMaxPoolGrad")
def _fractional_max_pool_grad(ctx: KernelContext, orig_input: Any, orig_output: Any,
                              grad: Any, row_seq: Any, col_seq: Any) -> np.ndarray:
    x, g = np.asarray(orig_input), np.asarray(grad)
    rows, cols = _region_pair(ctx, x.shape, row_seq, col_seq)
    win, mask = _windows(x, rows, cols)
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    pick = np.where(mask, win, low).argmax(axis=-1)[..., None]
    where = np.take_along_axis(_flat_index(x.shape, rows, cols), pick, axis=-1)[..., 0]
    if where.shape != g.shape:
        raise invalid(ctx, f"out_backprop has shape {list(g.shape)}, expected "
                           f"{list(where.shape)}")
    out = np.bincount(where.reshape(-1), weights=g.reshape(-1).astype(np.float64),
                      minlength=x.size)
    return out.reshape(x.shape).astype(g.dtype)


@register_kernel("FractionalAvgPoolGrad")
def _fractional_avg_pool_grad(ctx: KernelContext, input_shape: Any, grad: Any,
                              row_seq: Any, col_seq: Any) -> np.ndarray:
    shape = tuple(int(v) for v in np.asarray(input_shape).reshape(-1))
    g = np.asarray(grad)
    if len(shape) != 4:
        raise invalid(ctx, f"orig_input_tensor_shape must have 4 entries, got {list(shape)}")
    rows, cols = _region_pair(ctx, shape, row_seq, col_seq)
    index = _flat_index(shape, rows, cols)
    _, mask = _windows(np.zeros((1,) + shape[1:], np.int8), rows, cols)
    mask = np.broadcast_to(mask, index.shape)
    share = g[..., None] / mask.sum(axis=-1, keepdims=True)
    out = np.bincount(index[mask], weights=np.broadcast_to(share, index.shape)[mask].astype(
        np.float64), minlength=int(np.prod(shape)))
    return out.reshape(shape).astype(g.dtype)
