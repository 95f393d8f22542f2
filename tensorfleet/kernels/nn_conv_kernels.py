"""numpy kernels of 2-D convolution and pooling (NHWC) and their backward ops.

Convolution is im2col: a read-only strided view presents every receptive field
as a row, one copy lays the rows out, and one BLAS matmul with the filter does
the arithmetic. The backward passes reuse that layout: the filter gradient is
``cols.T @ dy``, the input gradient is ``dy @ W.T`` added back window
position by window position (KH*KW vectorized adds, never a loop over pixels).
Pooling likewise loops over the KH*KW window offsets only.
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


def _im2col(xp: np.ndarray, g: _Geom) -> np.ndarray:
    """Rows of receptive fields: shape (N*OH*OW, KH*KW*C), in (kh, kw, c) order."""
    s0, s1, s2, s3 = xp.strides
    view = as_strided(xp, (g.n, g.oh, g.ow, g.kh, g.kw, g.c),
                      (s0, s1 * g.sh, s2 * g.sw, s1 * g.dh, s2 * g.dw, s3), writeable=False)
    return view.reshape(g.n * g.oh * g.ow, g.kh * g.kw * g.c)


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
    cols = _im2col(g.pad(x), g)
    return np.dot(cols, w2).reshape(g.n, g.oh, g.ow, o)


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
    cols = _im2col(g.pad(x), g)
    return np.dot(cols.T, dy2).reshape(kh, kw, c, o)


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
