"""numpy kernels of depthwise and 3-D convolution and 3-D pooling, with backward ops.

Depthwise convolution reuses the 2-D im2col layout of ``nn_conv_kernels``: the
receptive fields become (pixels, taps, channels) and one batched matmul per
channel applies that channel's filters. 3-D convolution is the same im2col
idea with one more spatial axis; its backward passes and the 3-D pools loop
over the KD*KH*KW window offsets only, each a vectorized slice operation.
"""

from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np
from numpy.lib.stride_tricks import as_strided

from tensorfleet import errors
from tensorfleet.kernels.numpy.nn_conv_kernels import _Geom, _geometry, _im2col, _lowest, _sizes
from tensorfleet.kernels.registry import KernelContext, register_kernel


def _bad(ctx: KernelContext, msg: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(ctx.op_name, None, msg)


# -- depthwise 2-D convolution --------------------------------------------------------------

def _depthwise_geom(ctx: KernelContext, xshape: Tuple[int, ...], w: Tuple[int, ...]) -> _Geom:
    if len(w) != 4 or len(xshape) != 4 or xshape[3] != w[2]:
        raise _bad(ctx, f"input depth must match filter in_depth: input shape {list(xshape)}, "
                        f"filter shape {list(w)}")
    return _Geom(xshape, w[0], w[1], ctx.attrs, ctx)


@register_kernel("DepthwiseConv2dNative")
def _depthwise(ctx: KernelContext, x: Any, w: Any) -> np.ndarray:
    g = _depthwise_geom(ctx, x.shape, w.shape)
    kh, kw, c, m = w.shape
    cols = _im2col(g.pad(x), g).reshape(-1, kh * kw, c)
    # (C, P, K) @ (C, K, M): one matmul per channel over all output pixels.
    out = np.matmul(cols.transpose(2, 0, 1), w.reshape(kh * kw, c, m).transpose(1, 0, 2))
    return np.ascontiguousarray(out.transpose(1, 0, 2)).reshape(g.n, g.oh, g.ow, c * m)


@register_kernel("DepthwiseConv2dNativeBackpropInput")
def _depthwise_backprop_input(ctx: KernelContext, sizes: Any, w: Any, dy: Any) -> np.ndarray:
    g = _depthwise_geom(ctx, tuple(_sizes(sizes, ctx, "input_sizes")), w.shape)
    kh, kw, c, m = w.shape
    if dy.shape != (g.n, g.oh, g.ow, c * m):
        raise _bad(ctx, f"out_backprop has shape {list(dy.shape)}, expected "
                        f"{[g.n, g.oh, g.ow, c * m]}")
    # (C, K, M) @ (C, M, P) -> per tap, the gradient of every pixel it read.
    parts = np.matmul(w.reshape(kh * kw, c, m).transpose(1, 0, 2),
                      dy.reshape(-1, c, m).transpose(1, 2, 0))
    parts = parts.transpose(1, 2, 0)  # (K, P, C)
    dxp = g.zeros_padded(dy.dtype)
    for i in range(kh):
        for j in range(kw):
            rows, cols = g.window(dxp, i, j)
            dxp[:, rows, cols, :] += parts[i * kw + j].reshape(g.n, g.oh, g.ow, c)
    return g.unpad(dxp)


@register_kernel("DepthwiseConv2dNativeBackpropFilter")
def _depthwise_backprop_filter(ctx: KernelContext, x: Any, sizes: Any, dy: Any) -> np.ndarray:
    kh, kw, c, m = _sizes(sizes, ctx, "filter_sizes")
    g = _depthwise_geom(ctx, x.shape, (kh, kw, c, m))
    if dy.shape != (g.n, g.oh, g.ow, c * m):
        raise _bad(ctx, f"out_backprop has shape {list(dy.shape)}, expected "
                        f"{[g.n, g.oh, g.ow, c * m]}")
    cols = _im2col(g.pad(x), g).reshape(-1, kh * kw, c)
    # (C, K, P) @ (C, P, M) -> (C, K, M)
    dw = np.matmul(cols.transpose(2, 1, 0), dy.reshape(-1, c, m).transpose(1, 0, 2))
    return np.ascontiguousarray(dw.transpose(1, 0, 2)).reshape(kh, kw, c, m)


# -- 3-D windows ----------------------------------------------------------------------------

class _Geom3:
    """Output size and padding of a 3-D window op (NDHWC) on one input."""

    def __init__(self, shape: Tuple[int, ...], k: List[int], attrs: dict, ctx: KernelContext):
        if len(shape) != 5:
            raise _bad(ctx, f"input must be 5-dimensional, got shape {list(shape)}")
        self.n, self.c = int(shape[0]), int(shape[4])
        self.size = [int(d) for d in shape[1:4]]
        self.k = [int(v) for v in k]
        self.s = list(attrs["strides"][1:4])
        self.d = list((attrs.get("dilations") or [1] * 5)[1:4])
        geo = [_geometry(self.size[i], self.k[i], self.s[i], self.d[i], attrs["padding"])
               for i in range(3)]
        self.out = [o for o, _, _ in geo]
        self.before = [b for _, b, _ in geo]
        self.after = [a for _, _, a in geo]
        if min(self.out) <= 0:
            raise _bad(ctx, f"window {self.k} does not fit input of shape {list(shape)} with "
                            f"padding {attrs['padding']}")

    @property
    def out_shape(self) -> Tuple[int, ...]:
        return (self.n, *self.out, self.c)

    def padded_shape(self) -> Tuple[int, ...]:
        return (self.n, *[self.size[i] + self.before[i] + self.after[i] for i in range(3)],
                self.c)

    def inner(self) -> Tuple[slice, ...]:
        return (slice(None), *[slice(self.before[i], self.before[i] + self.size[i])
                               for i in range(3)], slice(None))

    def pad(self, x: np.ndarray, fill: Any = 0) -> np.ndarray:
        if not any(self.before) and not any(self.after):
            return x
        out = np.full(self.padded_shape(), fill, x.dtype)
        out[self.inner()] = x
        return out

    def unpad(self, xp: np.ndarray) -> np.ndarray:
        if not any(self.before) and not any(self.after):
            return xp
        return np.ascontiguousarray(xp[self.inner()])

    def offsets(self) -> List[Tuple[int, int, int]]:
        return [(a, b, e) for a in range(self.k[0]) for b in range(self.k[1])
                for e in range(self.k[2])]

    def window(self, off: Tuple[int, int, int]) -> Tuple[slice, ...]:
        """The slice of the padded input that tap ``off`` reads for every output."""
        sl = []
        for i in range(3):
            start = off[i] * self.d[i]
            sl.append(slice(start, start + self.s[i] * (self.out[i] - 1) + 1, self.s[i]))
        return (slice(None), *sl, slice(None))

    def im2col(self, xp: np.ndarray) -> np.ndarray:
        """Rows of receptive fields: (N*OD*OH*OW, KD*KH*KW*C), in (kd, kh, kw, c) order."""
        st = xp.strides
        view = as_strided(xp, (self.n, *self.out, *self.k, self.c),
                          (st[0], st[1] * self.s[0], st[2] * self.s[1], st[3] * self.s[2],
                           st[1] * self.d[0], st[2] * self.d[1], st[3] * self.d[2], st[4]),
                          writeable=False)
        return view.reshape(-1, int(np.prod(self.k)) * self.c)


def _sizes5(v: Any, ctx: KernelContext, what: str) -> List[int]:
    sizes = [int(d) for d in np.asarray(v).reshape(-1)]
    if len(sizes) != 5:
        raise _bad(ctx, f"{what} must have 5 elements, got {sizes}")
    return sizes


@register_kernel("Conv3D")
def _conv3d(ctx: KernelContext, x: Any, w: Any) -> np.ndarray:
    if w.ndim != 5 or x.ndim != 5 or x.shape[4] != w.shape[3]:
        raise _bad(ctx, f"input depth must match filter in_depth: input shape "
                        f"{list(x.shape)}, filter shape {list(w.shape)}")
    g = _Geom3(x.shape, list(w.shape[:3]), ctx.attrs, ctx)
    o = w.shape[4]
    return np.dot(g.im2col(g.pad(x)), w.reshape(-1, o)).reshape(*g.out_shape[:4], o)


@register_kernel("Conv3DBackpropInputV2")
def _conv3d_backprop_input(ctx: KernelContext, sizes: Any, w: Any, dy: Any) -> np.ndarray:
    kd, kh, kw, c, o = w.shape
    g = _Geom3(tuple(_sizes5(sizes, ctx, "input_sizes")), [kd, kh, kw], ctx.attrs, ctx)
    if dy.shape != (*g.out_shape[:4], o) or g.c != c:
        raise _bad(ctx, f"out_backprop has shape {list(dy.shape)}, expected "
                        f"{[*g.out_shape[:4], o]}")
    parts = np.matmul(dy.reshape(-1, o)[None], w.reshape(kd * kh * kw, c, o).transpose(0, 2, 1))
    dxp = np.zeros(g.padded_shape(), parts.dtype)
    for t, off in enumerate(g.offsets()):
        dxp[g.window(off)] += parts[t].reshape(g.out_shape)
    return g.unpad(dxp)


@register_kernel("Conv3DBackpropFilterV2")
def _conv3d_backprop_filter(ctx: KernelContext, x: Any, sizes: Any, dy: Any) -> np.ndarray:
    kd, kh, kw, c, o = _sizes5(sizes, ctx, "filter_sizes")
    g = _Geom3(x.shape, [kd, kh, kw], ctx.attrs, ctx)
    if dy.shape != (*g.out_shape[:4], o) or g.c != c:
        raise _bad(ctx, f"out_backprop has shape {list(dy.shape)}, expected "
                        f"{[*g.out_shape[:4], o]} for input {list(x.shape)}")
    return np.dot(g.im2col(g.pad(x)).T, dy.reshape(-1, o)).reshape(kd, kh, kw, c, o)


# -- 3-D pooling ----------------------------------------------------------------------------

def _pool3_geom(ctx: KernelContext, shape: Tuple[int, ...]) -> _Geom3:
    return _Geom3(shape, list(ctx.attrs["ksize"][1:4]), ctx.attrs, ctx)


@register_kernel("MaxPool3D")
def _max_pool3d(ctx: KernelContext, x: Any) -> np.ndarray:
    g = _pool3_geom(ctx, x.shape)
    xp = g.pad(x, _lowest(x.dtype))
    out = None
    for off in g.offsets():
        part = xp[g.window(off)]
        out = part.copy() if out is None else np.maximum(out, part, out=out)
    return out


@register_kernel("MaxPool3DGrad")
def _max_pool3d_grad(ctx: KernelContext, x: Any, y: Any, dy: Any) -> np.ndarray:
    g = _pool3_geom(ctx, x.shape)
    if y.shape != g.out_shape or dy.shape != g.out_shape:
        raise _bad(ctx, f"orig_output {list(y.shape)} and grad {list(dy.shape)} must have the "
                        f"pooled shape {list(g.out_shape)}")
    xp = g.pad(x, _lowest(x.dtype))
    dxp = np.zeros(g.padded_shape(), dy.dtype)
    # The first maximum of each window (in tap order) takes the window's gradient.
    unclaimed = np.ones(g.out_shape, bool)
    for off in g.offsets():
        sl = g.window(off)
        hit = np.equal(xp[sl], y) & unclaimed
        unclaimed &= ~hit
        dxp[sl] += dy * hit
    return g.unpad(dxp)


def _avg3_counts(g: _Geom3, dtype: Any) -> Any:
    counts = []
    for i in range(3):
        start = np.arange(g.out[i]) * g.s[i] - g.before[i]
        counts.append(np.minimum(start + g.k[i], g.size[i]) - np.maximum(start, 0))
    return np.einsum("i,j,k->ijk", *counts).astype(dtype)[..., None]


@register_kernel("AvgPool3D")
def _avg_pool3d(ctx: KernelContext, x: Any) -> np.ndarray:
    g = _pool3_geom(ctx, x.shape)
    xp = g.pad(x)
    out = np.zeros(g.out_shape, x.dtype)
    for off in g.offsets():
        out += xp[g.window(off)]
    return out / _avg3_counts(g, x.dtype)


@register_kernel("AvgPool3DGrad")
def _avg_pool3d_grad(ctx: KernelContext, sizes: Any, dy: Any) -> np.ndarray:
    g = _pool3_geom(ctx, tuple(_sizes5(sizes, ctx, "orig_input_shape")))
    if dy.shape != g.out_shape:
        raise _bad(ctx, f"grad has shape {list(dy.shape)}, expected {list(g.out_shape)}")
    share = dy / _avg3_counts(g, dy.dtype)
    dxp = np.zeros(g.padded_shape(), dy.dtype)
    for off in g.offsets():
        dxp[g.window(off)] += share
    return g.unpad(dxp)
