"""numpy kernels of 2-D convolution and pooling (NHWC) and their backward ops.

Convolution is im2col: a read-only strided view presents every receptive field
as a row, a copy lays the rows out, and a BLAS matmul with the filter does the
arithmetic. The rows are laid out a few images at a time (``_CHUNK_BYTES``), so the
copy stays in cache and is consumed by its matmul at once instead of going through
memory as one array the size of the whole batch's receptive fields. The backward
passes reuse that layout: the filter gradient is the sum over chunks of
``cols.T @ dy``; with unit strides the input gradient is itself a convolution (of
the padded ``dy`` with the flipped, transposed filter); with larger strides it is
``dy @ W.T`` added back window position by window position (KH*KW vectorized adds,
never a loop over pixels). Pooling likewise loops over the KH*KW window offsets only.
"""

from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np
from numpy.lib.stride_tricks import as_strided

from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel


def _geometry(size: int, k: int, stride: int, dilation: int, padding: str) -> Tuple[int, int, int]:
    """(output size, padding before, padding after) of one spatial dim."""
    eff = (k - 1) * dilation + 1
    if padding == "VALID":
        out = (size - eff) // stride + 1 if size >= eff else 0
        return out, 0, 0
    out = -(-size // stride)
    total = max((out - 1) * stride + eff - size, 0)
    return out, total // 2, total - total // 2


class _Geom:
    """Output size and padding of a window op on one input, from the op's attrs."""

    __slots__ = ("n", "h", "w", "c", "oh", "ow", "pt", "pb", "pl", "pr", "kh", "kw", "sh", "sw",
                 "dh", "dw")

    def __init__(self, shape: Tuple[int, ...], kh: int, kw: int, attrs: dict, ctx: KernelContext):
        if len(shape) != 4:
            raise errors.InvalidArgumentError(
                ctx.op_name, None, f"input must be 4-dimensional, got shape {list(shape)}")
        self.n, self.h, self.w, self.c = (int(d) for d in shape)
        self.kh, self.kw = kh, kw
        s = attrs["strides"]
        d = attrs.get("dilations") or [1, 1, 1, 1]
        self.sh, self.sw, self.dh, self.dw = s[1], s[2], d[1], d[2]
        pad = attrs["padding"]
        self.oh, self.pt, self.pb = _geometry(self.h, kh, self.sh, self.dh, pad)
        self.ow, self.pl, self.pr = _geometry(self.w, kw, self.sw, self.dw, pad)
        if self.oh <= 0 or self.ow <= 0:
            raise errors.InvalidArgumentError(
                ctx.op_name, None, f"window {kh}x{kw} does not fit input of shape "
                f"{list(shape)} with padding {pad}")

    @property
    def padded(self) -> bool:
        return bool(self.pt or self.pb or self.pl or self.pr)

    def pad(self, x: np.ndarray, fill: Any = 0) -> np.ndarray:
        """``x`` with the padding added (``x`` itself when there is none)."""
        if not self.padded:
            return x
        shape = (self.n, self.h + self.pt + self.pb, self.w + self.pl + self.pr, self.c)
        out = np.zeros(shape, x.dtype) if fill == 0 else np.full(shape, fill, x.dtype)
        out[:, self.pt:self.pt + self.h, self.pl:self.pl + self.w, :] = x
        return out

    def unpad(self, xp: np.ndarray) -> np.ndarray:
        if not self.padded:
            return xp
        return np.ascontiguousarray(xp[:, self.pt:self.pt + self.h, self.pl:self.pl + self.w, :])

    def zeros_padded(self, dtype: Any) -> np.ndarray:
        return np.zeros((self.n, self.h + self.pt + self.pb, self.w + self.pl + self.pr, self.c),
                        dtype)

    def window(self, xp: np.ndarray, i: int, j: int) -> Tuple[slice, slice]:
        """Rows and columns of ``xp`` that window offset (i, j) reads for every output."""
        r0, c0 = i * self.dh, j * self.dw
        return (slice(r0, r0 + self.sh * (self.oh - 1) + 1, self.sh),
                slice(c0, c0 + self.sw * (self.ow - 1) + 1, self.sw))


# Bytes of receptive-field rows laid out at once: about a core's share of L2/L3.
_CHUNK_BYTES = 4 << 20


def _fields(xp: np.ndarray, g: _Geom, c: int) -> np.ndarray:
    """Strided view of every receptive field: shape (N, OH, OW, KH, KW, C)."""
    s0, s1, s2, s3 = xp.strides
    return as_strided(xp, (xp.shape[0], g.oh, g.ow, g.kh, g.kw, c),
                      (s0, s1 * g.sh, s2 * g.sw, s1 * g.dh, s2 * g.dw, s3), writeable=False)


def _im2col(xp: np.ndarray, g: _Geom) -> np.ndarray:
    """Rows of receptive fields: shape (N*OH*OW, KH*KW*C), in (kh, kw, c) order."""
    return _fields(xp, g, g.c).reshape(g.n * g.oh * g.ow, g.kh * g.kw * g.c)


def _chunks(g: _Geom, c: int, itemsize: int) -> range:
    """Starts of the image chunks whose im2col rows fit ``_CHUNK_BYTES``."""
    per_image = g.oh * g.ow * g.kh * g.kw * c * itemsize
    step = max(1, _CHUNK_BYTES // max(per_image, 1))
    return range(0, g.n, step)


def _conv_rows(xp: np.ndarray, g: _Geom, c: int, w2: np.ndarray) -> np.ndarray:
    """``im2col(xp) @ w2`` as (N, OH, OW, O), laid out chunk by chunk."""
    o = w2.shape[1]
    out = np.empty((g.n, g.oh, g.ow, o), np.result_type(xp.dtype, w2.dtype))
    fields = _fields(xp, g, c)
    starts = _chunks(g, c, xp.itemsize)
    step = starts.step
    for b in starts:
        e = min(g.n, b + step)
        cols = fields[b:e].reshape((e - b) * g.oh * g.ow, g.kh * g.kw * c)
        np.dot(cols, w2, out=out[b:e].reshape(-1, o))
    return out


def _sizes(v: Any, ctx: KernelContext, what: str) -> List[int]:
    sizes = [int(d) for d in np.asarray(v).reshape(-1)]
    if len(sizes) != 4:
        raise errors.InvalidArgumentError(ctx.op_name, None,
                                          f"{what} must have 4 elements, got {sizes}")
    return sizes


# -- convolution ----------------------------------------------------------------------------

@register_kernel("Conv2D")
def _conv2d(ctx: KernelContext, x: Any, w: Any) -> np.ndarray:
    if w.ndim != 4 or x.ndim != 4 or x.shape[3] != w.shape[2]:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"input depth must match filter in_depth: input shape "
            f"{list(x.shape)}, filter shape {list(w.shape)}")
    kh, kw, c, o = w.shape
    g = _Geom(x.shape, kh, kw, ctx.attrs, ctx)
    w2 = w.reshape(kh * kw * c, o)
    if kh == kw == 1 and g.sh == g.sw == 1:
        return np.dot(x.reshape(-1, c), w2).reshape(g.n, g.oh, g.ow, o)
    return _conv_rows(g.pad(x), g, c, w2)


@register_kernel("Conv2DBackpropInput")
def _conv2d_backprop_input(ctx: KernelContext, input_sizes: Any, w: Any, dy: Any) -> np.ndarray:
    kh, kw, c, o = w.shape
    g = _Geom(_sizes(input_sizes, ctx, "input_sizes"), kh, kw, ctx.attrs, ctx)
    if dy.shape != (g.n, g.oh, g.ow, o):
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"out_backprop has shape {list(dy.shape)}, expected "
            f"{[g.n, g.oh, g.ow, o]}")
    dy2 = dy.reshape(-1, o)
    if kh == kw == 1 and g.sh == g.sw == 1:
        return np.dot(dy2, w.reshape(c, o).T).reshape(g.n, g.h, g.w, c)
    if g.sh == g.sw == 1:
        return _backprop_input_as_conv(g, w, dy)
    # One batched matmul gives, per window offset, the gradient of the pixels it
    # read, laid out contiguously so that adding it back is a dense copy-add.
    parts = np.matmul(dy2[None], w.reshape(kh * kw, c, o).transpose(0, 2, 1))
    dxp = g.zeros_padded(parts.dtype)
    for i in range(kh):
        for j in range(kw):
            rows, cols = g.window(dxp, i, j)
            dxp[:, rows, cols, :] += parts[i * kw + j].reshape(g.n, g.oh, g.ow, c)
    return g.unpad(dxp)


@register_kernel("Conv2DBackpropFilter")
def _conv2d_backprop_filter(ctx: KernelContext, x: Any, filter_sizes: Any,
                            dy: Any) -> np.ndarray:
    kh, kw, c, o = _sizes(filter_sizes, ctx, "filter_sizes")
    g = _Geom(x.shape, kh, kw, ctx.attrs, ctx)
    if dy.shape != (g.n, g.oh, g.ow, o) or x.shape[3] != c:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"out_backprop has shape {list(dy.shape)}, expected "
            f"{[g.n, g.oh, g.ow, o]} for input {list(x.shape)} and filter {[kh, kw, c, o]}")
    dy2 = dy.reshape(-1, o)
    if kh == kw == 1 and g.sh == g.sw == 1:
        return np.dot(x.reshape(-1, c).T, dy2).reshape(kh, kw, c, o)
    fields = _fields(g.pad(x), g, c)
    dy3 = dy.reshape(g.n, g.oh * g.ow, o)
    dw = np.zeros((kh * kw * c, o), np.result_type(x.dtype, dy.dtype))
    starts = _chunks(g, c, x.itemsize)
    for b in starts:
        e = min(g.n, b + starts.step)
        cols = fields[b:e].reshape((e - b) * g.oh * g.ow, kh * kw * c)
        dw += np.dot(cols.T, dy3[b:e].reshape(-1, o))
    return dw.reshape(kh, kw, c, o)


def _backprop_input_as_conv(g: _Geom, w: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """The input gradient of a unit-stride convolution, as a convolution of ``dy``.

    ``dx[h] = sum_i dy[h + pt - i*dh] w[i]``: correlating ``dy``, padded by
    ``(KH-1)*dh - pt`` rows before (and enough after to give H rows), with the filter
    flipped in space and with its in/out channels swapped.
    """
    kh, kw, c, o = w.shape
    before_h, before_w = (kh - 1) * g.dh - g.pt, (kw - 1) * g.dw - g.pl
    hp, wp = g.h + (kh - 1) * g.dh, g.w + (kw - 1) * g.dw
    dyp = np.zeros((g.n, hp, wp, o), dy.dtype)
    dyp[:, before_h:before_h + g.oh, before_w:before_w + g.ow, :] = dy
    wf = np.ascontiguousarray(w[::-1, ::-1].transpose(0, 1, 3, 2)).reshape(kh * kw * o, c)
    gt = _Geom.__new__(_Geom)
    gt.n, gt.h, gt.w, gt.c = g.n, hp, wp, o
    gt.kh, gt.kw, gt.sh, gt.sw, gt.dh, gt.dw = kh, kw, 1, 1, g.dh, g.dw
    gt.oh, gt.ow = g.h, g.w
    gt.pt = gt.pb = gt.pl = gt.pr = 0
    return _conv_rows(dyp, gt, o, wf)


# -- pooling --------------------------------------------------------------------------------

def _lowest(dtype: Any) -> Any:
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _pool_geom(ctx: KernelContext, shape: Tuple[int, ...]) -> _Geom:
    k = ctx.attrs["ksize"]
    return _Geom(shape, k[1], k[2], ctx.attrs, ctx)


@register_kernel("MaxPool")
def _max_pool(ctx: KernelContext, x: Any) -> np.ndarray:
    g = _pool_geom(ctx, x.shape)
    xp = g.pad(x, _lowest(x.dtype))
    out = None
    for i in range(g.kh):
        for j in range(g.kw):
            rows, cols = g.window(xp, i, j)
            part = xp[:, rows, cols, :]
            if out is None:
                out = part.copy()
            else:
                np.maximum(out, part, out=out)
    return out


@register_kernel("MaxPoolGrad")
def _max_pool_grad(ctx: KernelContext, x: Any, y: Any, dy: Any) -> np.ndarray:
    g = _pool_geom(ctx, x.shape)
    if y.shape != dy.shape or y.shape != (g.n, g.oh, g.ow, g.c):
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"orig_output {list(y.shape)} and grad {list(dy.shape)} must "
            f"have the pooled shape {[g.n, g.oh, g.ow, g.c]}")
    xp = g.pad(x, _lowest(x.dtype))
    dxp = g.zeros_padded(dy.dtype)
    # Windows that do not overlap write their slices directly; overlapping ones add.
    disjoint = g.sh >= g.kh and g.sw >= g.kw
    last = (g.kh - 1, g.kw - 1)
    # Scanning offsets in row-major order and keeping only the first hit of each
    # window routes a tied window's gradient to its first maximum, as TF does.
    unclaimed = None
    for i in range(g.kh):
        for j in range(g.kw):
            rows, cols = g.window(xp, i, j)
            hit = np.equal(xp[:, rows, cols, :], y)
            if unclaimed is None:
                unclaimed = ~hit
            else:
                hit &= unclaimed
                if (i, j) != last:
                    unclaimed ^= hit
            if disjoint:
                np.multiply(dy, hit, out=dxp[:, rows, cols, :])
            else:
                dxp[:, rows, cols, :] += np.multiply(dy, hit)
    return g.unpad(dxp)


def _avg_counts(g: _Geom, dtype: Any) -> Any:
    """How many real (unpadded) inputs each output window covers: scalar or [OH, OW, 1]."""
    if not g.padded:
        return dtype.type(g.kh * g.kw)
    rs = np.arange(g.oh) * g.sh - g.pt
    cs = np.arange(g.ow) * g.sw - g.pl
    nr = np.minimum(rs + g.kh, g.h) - np.maximum(rs, 0)
    nc = np.minimum(cs + g.kw, g.w) - np.maximum(cs, 0)
    return np.multiply.outer(nr, nc).astype(dtype)[:, :, None]


@register_kernel("AvgPool")
def _avg_pool(ctx: KernelContext, x: Any) -> np.ndarray:
    g = _pool_geom(ctx, x.shape)
    xp = g.pad(x)
    out = None
    for i in range(g.kh):
        for j in range(g.kw):
            rows, cols = g.window(xp, i, j)
            part = xp[:, rows, cols, :]
            if out is None:
                out = part.copy()
            else:
                out += part
    out /= _avg_counts(g, x.dtype)
    return out


@register_kernel("AvgPoolGrad")
def _avg_pool_grad(ctx: KernelContext, sizes: Any, dy: Any) -> np.ndarray:
    g = _pool_geom(ctx, tuple(_sizes(sizes, ctx, "orig_input_shape")))
    if dy.shape != (g.n, g.oh, g.ow, g.c):
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"grad has shape {list(dy.shape)}, expected "
            f"{[g.n, g.oh, g.ow, g.c]}")
    share = dy / _avg_counts(g, dy.dtype)
    dxp = g.zeros_padded(dy.dtype)
    for i in range(g.kh):
        for j in range(g.kw):
            rows, cols = g.window(dxp, i, j)
            dxp[:, rows, cols, :] += share
    return g.unpad(dxp)
