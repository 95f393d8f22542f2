"""oneDNN kernels of 2-D convolution: ``Conv2D``, ``Conv2DBackpropInput`` and
``Conv2DBackpropFilter``, NHWC or NCHW, any strides, dilations, SAME or VALID.

Activations stay in the caller's layout (oneDNN's AVX-512 convolutions read and write
NHWC directly); the filter goes into the blocked layout the primitive asks for, and
the filter gradient comes back out of it, through reorders cached with the plan.
float32 only: other dtypes, and shapes oneDNN declines, run the numpy kernel.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tensorfleet.kernels.onednn import batch_split
from tensorfleet.kernels.onednn import plan as plans
from tensorfleet.kernels.onednn import library as dnnl
from tensorfleet.kernels.onednn.window import (
    FORMATS, Window, data_format, to_format, window)
from tensorfleet.kernels.onednn.fallback import BACKEND, all_f32, reference
from tensorfleet.kernels.registry import KernelContext, register_backend_kernel


def _descs(lib: dnnl.Library, g: Window, o: int, fmt: str):
    tag = FORMATS[fmt]
    src = dnnl.MemoryDesc(lib, (g.n, g.c, g.h, g.w), tag)
    dst = dnnl.MemoryDesc(lib, (g.n, o, g.oh, g.ow), tag)
    w_user = dnnl.MemoryDesc(lib, (o, g.c) + g.kernel, dnnl.TAG_HWIO)
    w_any = dnnl.MemoryDesc(lib, (o, g.c) + g.kernel, dnnl.TAG_ANY)
    return src, dst, w_user, w_any


def _forward_pd(lib: dnnl.Library, g: Window, src: Any, w_any: Any, dst: Any,
                bias: Any = None, attr: Any = None) -> Any:
    return dnnl.primitive_desc(
        lib, "dnnl_convolution_forward_primitive_desc_create", lib.engine,
        dnnl.FORWARD_TRAINING, dnnl.CONVOLUTION_DIRECT, src.handle, w_any.handle,
        None if bias is None else bias.handle, dst.handle, dnnl.dims(g.strides),
        dnnl.dims(g.dilations), dnnl.dims(g.pad_l), dnnl.dims(g.pad_r),
        None if attr is None else attr.handle)


def _geometry(ctx: KernelContext, x_shape: Any, f_shape: Any) -> Optional[tuple]:
    """(format, window, out channels) or None for what the reference must handle."""
    fmt = data_format(ctx.attrs)
    if fmt is None or len(x_shape) != 4 or len(f_shape) != 4:
        return None
    kh, kw, c, o = (int(d) for d in f_shape)
    g = window(x_shape, (kh, kw), ctx.attrs, fmt)
    if g is None or g.c != c or o < 1:
        return None
    return fmt, g, o


def _build_forward(fmt: str, g: Window, o: int, bias: bool = False, relu: bool = False):
    """The forward plan; with ``bias`` it adds a per-channel bias ("b"), with ``relu``
    it clips at zero, both as the output is written."""
    def build(lib: dnnl.Library, n_threads: int) -> plans.Plan:
        src, dst, w_user, w_any = _descs(lib, g, o, fmt)
        b_md = dnnl.MemoryDesc(lib, (o,), dnnl.TAG_A) if bias else None
        attr = dnnl.Attr(lib, (dnnl.ELTWISE_RELU,) if relu else ())
        prim = dnnl.Primitive(lib, _forward_pd(lib, g, src, w_any, dst, b_md, attr))
        p = plans.Plan(lib)
        x = p.input("x", src, prim.md(dnnl.QUERY_SRC_MD))
        w = p.input("w", w_user, prim.md(dnnl.QUERY_WEIGHTS_MD))
        y = p.output("y", dst, prim.md(dnnl.QUERY_DST_MD))
        args = [(dnnl.ARG_SRC, x), (dnnl.ARG_WEIGHTS, w), (dnnl.ARG_DST, y)]
        if bias:
            args.append((dnnl.ARG_BIAS, p.input("b", b_md, b_md.handle)))
        p.add(prim, args)
        return p
    return build


def _build_backward_data(fmt: str, g: Window, o: int):
    def build(lib: dnnl.Library, n_threads: int) -> plans.Plan:
        src, dst, w_user, w_any = _descs(lib, g, o, fmt)
        hint = dnnl.Primitive(lib, _forward_pd(lib, g, src, w_any, dst))
        pd = dnnl.primitive_desc(
            lib, "dnnl_convolution_backward_data_primitive_desc_create", lib.engine,
            dnnl.CONVOLUTION_DIRECT, src.handle, w_any.handle, dst.handle,
            dnnl.dims(g.strides), dnnl.dims(g.dilations), dnnl.dims(g.pad_l),
            dnnl.dims(g.pad_r), hint.pd, None)
        prim = dnnl.Primitive(lib, pd)
        p = plans.Plan(lib)
        w = p.input("w", w_user, prim.md(dnnl.QUERY_WEIGHTS_MD))
        dy = p.input("dy", dst, prim.md(dnnl.QUERY_DIFF_DST_MD))
        dx = p.output("dx", src, prim.md(dnnl.QUERY_DIFF_SRC_MD))
        p.add(prim, [(dnnl.ARG_WEIGHTS, w), (dnnl.ARG_DIFF_DST, dy), (dnnl.ARG_DIFF_SRC, dx)])
        p.keep = hint  # the backward descriptor refers to its forward hint
        return p
    return build


def _build_backward_weights(fmt: str, g: Window, o: int):
    def build(lib: dnnl.Library, n_threads: int) -> plans.Plan:
        src, dst, w_user, w_any = _descs(lib, g, o, fmt)
        hint = dnnl.Primitive(lib, _forward_pd(lib, g, src, w_any, dst))
        pd = dnnl.primitive_desc(
            lib, "dnnl_convolution_backward_weights_primitive_desc_create", lib.engine,
            dnnl.CONVOLUTION_DIRECT, src.handle, w_any.handle, None, dst.handle,
            dnnl.dims(g.strides), dnnl.dims(g.dilations), dnnl.dims(g.pad_l),
            dnnl.dims(g.pad_r), hint.pd, None)
        prim = dnnl.Primitive(lib, pd)
        p = plans.Plan(lib)
        x = p.input("x", src, prim.md(dnnl.QUERY_SRC_MD))
        dy = p.input("dy", dst, prim.md(dnnl.QUERY_DIFF_DST_MD))
        dw = p.output("dw", w_user, prim.md(dnnl.QUERY_DIFF_WEIGHTS_MD))
        p.add(prim, [(dnnl.ARG_SRC, x), (dnnl.ARG_DIFF_DST, dy), (dnnl.ARG_DIFF_WEIGHTS, dw)])
        p.keep = hint
        return p
    return build


# Fewest multiply-adds worth a slice of its own: below this, a slice's call costs more
# in Python and ctypes than a second thread saves (small images, a small filter).
MIN_SLICE_MACS = 1 << 22


def _least(g: Window, o: int) -> int:
    """The fewest images in a slice of a convolution's batch."""
    macs = g.oh * g.ow * o * g.c * g.kernel[0] * g.kernel[1]
    return max(1, -(-MIN_SLICE_MACS // max(1, macs)))


def _key(op: str, fmt: str, g: Window, o: int) -> tuple:
    return (op, fmt, tuple(g), o, "float32")


def _forward(ctx: KernelContext, x: Any, w: Any, bias: Any = None,
             relu: bool = False) -> Optional[np.ndarray]:
    """The convolution through oneDNN, with a per-channel ``bias`` added and ``relu``
    applied as the output is written (NHWC only then); None where the reference kernel
    must run it."""
    arrays = (x, w) if bias is None else (x, w, bias)
    geo = _geometry(ctx, x.shape, w.shape) if all_f32(*arrays) else None
    if geo is None:
        return None
    fmt, g, o = geo
    fused = bias is not None or relu
    if fused and (fmt != "NHWC" or (bias is not None and bias.shape != (o,))):
        return None
    y = np.empty(to_format(g.n, o, g.oh, g.ow, fmt), np.float32)
    x, w = np.ascontiguousarray(x), np.ascontiguousarray(w)
    extra = {} if bias is None else dict(b=np.ascontiguousarray(bias))
    if batch_split.run_kernel(_key("Conv2D", fmt, g, o) + (bias is not None, relu),
                              lambda k: _build_forward(fmt, g._replace(n=k), o,
                                                       bias is not None, relu), g.n,
                              lambda i, a, b: dict(x=x[a:b], w=w, y=y[a:b], **extra),
                              _least(g, o)):
        return y
    return None


@register_backend_kernel("Conv2D", "CPU", BACKEND)
def conv2d(ctx: KernelContext, x: Any, w: Any) -> np.ndarray:
    """``Conv2D`` through oneDNN (the numpy kernel for what oneDNN does not run)."""
    y = _forward(ctx, x, w)
    return y if y is not None else reference("Conv2D")(ctx, x, w)


@register_backend_kernel("_FusedConv2D", "CPU", BACKEND)
def fused_conv2d(ctx: KernelContext, x: Any, w: Any, *bias: Any) -> np.ndarray:
    """``Conv2D`` with its per-channel bias and ReLU (``fused_ops``) in one oneDNN
    primitive: the bias and the ReLU are applied as the output is written."""
    fused = ctx.attrs.get("fused_ops", ())
    y = _forward(ctx, x, w, bias[0] if "BiasAdd" in fused else None, "Relu" in fused)
    return y if y is not None else reference("_FusedConv2D")(ctx, x, w, *bias)


@register_backend_kernel("Conv2DBackpropInput", "CPU", BACKEND)
def conv2d_backprop_input(ctx: KernelContext, input_sizes: Any, w: Any,
                          dy: Any) -> np.ndarray:
    """``Conv2DBackpropInput`` through oneDNN."""
    sizes = [int(d) for d in np.asarray(input_sizes).reshape(-1)]
    geo = _geometry(ctx, sizes, w.shape) if all_f32(w, dy) and len(sizes) == 4 else None
    if geo is not None:
        fmt, g, o = geo
        if tuple(dy.shape) == to_format(g.n, o, g.oh, g.ow, fmt):
            dx = np.empty(to_format(g.n, g.c, g.h, g.w, fmt), np.float32)
            w, dy = np.ascontiguousarray(w), np.ascontiguousarray(dy)
            if batch_split.run_kernel(
                    _key("Conv2DBackpropInput", fmt, g, o),
                    lambda k: _build_backward_data(fmt, g._replace(n=k), o), g.n,
                    lambda i, a, b: dict(w=w, dy=dy[a:b], dx=dx[a:b]), _least(g, o)):
                return dx
    return reference("Conv2DBackpropInput")(ctx, input_sizes, w, dy)


@register_backend_kernel("Conv2DBackpropFilter", "CPU", BACKEND)
def conv2d_backprop_filter(ctx: KernelContext, x: Any, filter_sizes: Any,
                           dy: Any) -> np.ndarray:
    """``Conv2DBackpropFilter`` through oneDNN."""
    sizes = [int(d) for d in np.asarray(filter_sizes).reshape(-1)]
    geo = _geometry(ctx, x.shape, sizes) if all_f32(x, dy) and len(sizes) == 4 else None
    if geo is not None:
        fmt, g, o = geo
        if tuple(dy.shape) == to_format(g.n, o, g.oh, g.ow, fmt):
            x, dy = np.ascontiguousarray(x), np.ascontiguousarray(dy)
            key = _key("Conv2DBackpropFilter", fmt, g, o)
            # Each slice's filter gradient, summed over the slices at the end.
            least = _least(g, o)
            parts = np.empty((batch_split.layout(g.n, least)[0],) + tuple(sizes), np.float32)
            if batch_split.run_kernel(
                    key, lambda k: _build_backward_weights(fmt, g._replace(n=k), o), g.n,
                    lambda i, a, b: dict(x=x[a:b], dy=dy[a:b], dw=parts[i]), least):
                return parts[0] if len(parts) == 1 else parts.sum(axis=0)
    return reference("Conv2DBackpropFilter")(ctx, x, filter_sizes, dy)


__all__ = ["conv2d", "fused_conv2d", "conv2d_backprop_input", "conv2d_backprop_filter", "MIN_SLICE_MACS"]
