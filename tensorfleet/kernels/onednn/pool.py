"""oneDNN kernels of 2-D max and average pooling and their gradients (``MaxPool``,
``AvgPool``, ``MaxPoolGrad``, ``AvgPoolGrad``), NHWC or NCHW, SAME or VALID.

Average pooling leaves SAME padding out of each window's count, as TensorFlow does
(oneDNN's ``pooling_avg_exclude_padding``); max pooling never picks padding.
``MaxPoolGrad`` gets the pooled input and output, not oneDNN's record of where each
maximum was (its workspace). So ``MaxPool`` keeps the workspace it writes beside its
output array, for as long as that array lives (``_workspaces``), and a
``MaxPoolGrad`` handed that very output array routes the gradient through it at once;
given any other array (a copy, a value received from another task), its plan runs the
forward pooling again into a workspace first. Either way each window's gradient goes
to its first maximum, as the numpy kernel does. float32 only; other dtypes run the
numpy kernels.
"""

from __future__ import annotations

import weakref
from typing import Any, Dict, Optional, Tuple

import numpy as np

from tensorfleet.kernels.onednn import batch_split
from tensorfleet.kernels.onednn import library as dnnl
from tensorfleet.kernels.onednn import plan as plans
from tensorfleet.kernels.onednn.fallback import BACKEND, all_f32, reference
from tensorfleet.kernels.onednn.window import (
    FORMATS, Window, data_format, spatial, to_format, window)
from tensorfleet.kernels.registry import KernelContext, register_backend_kernel


def _geometry(ctx: KernelContext, shape: Any) -> Optional[Tuple[str, Window]]:
    fmt = data_format(ctx.attrs)
    k = ctx.attrs.get("ksize")
    if fmt is None or k is None or len(k) != 4 or len(shape) != 4:
        return None
    g = window(shape, spatial(k, fmt), ctx.attrs, fmt)
    return None if g is None else (fmt, g)


def _descs(lib: dnnl.Library, g: Window, fmt: str):
    tag = FORMATS[fmt]
    return (dnnl.MemoryDesc(lib, (g.n, g.c, g.h, g.w), tag),
            dnnl.MemoryDesc(lib, (g.n, g.c, g.oh, g.ow), tag))


def _forward_pd(lib: dnnl.Library, g: Window, prop: int, alg: int, src: Any, dst: Any) -> Any:
    return dnnl.primitive_desc(
        lib, "dnnl_pooling_forward_primitive_desc_create", lib.engine, prop, alg, src.handle,
        dst.handle, dnnl.dims(g.strides), dnnl.dims(g.kernel), dnnl.dims((0, 0)),
        dnnl.dims(g.pad_l), dnnl.dims(g.pad_r), None)


def _backward_pd(lib: dnnl.Library, g: Window, alg: int, src: Any, dst: Any, hint: Any) -> Any:
    return dnnl.primitive_desc(
        lib, "dnnl_pooling_backward_primitive_desc_create", lib.engine, alg, src.handle,
        dst.handle, dnnl.dims(g.strides), dnnl.dims(g.kernel), dnnl.dims((0, 0)),
        dnnl.dims(g.pad_l), dnnl.dims(g.pad_r), hint, None)


def _alg(op: str) -> int:
    return dnnl.POOLING_MAX if op.startswith("Max") else dnnl.POOLING_AVG_EXCLUDE_PADDING


def _build_forward(op: str, fmt: str, g: Window):
    def build(lib: dnnl.Library, n_threads: int) -> plans.Plan:
        src, dst = _descs(lib, g, fmt)
        prim = dnnl.Primitive(lib, _forward_pd(lib, g, dnnl.FORWARD_INFERENCE, _alg(op), src,
                                               dst))
        p = plans.Plan(lib)
        x = p.input("x", src, prim.md(dnnl.QUERY_SRC_MD))
        y = p.output("y", dst, prim.md(dnnl.QUERY_DST_MD))
        p.add(prim, [(dnnl.ARG_SRC, x), (dnnl.ARG_DST, y)])
        return p
    return build


def _build_backward(op: str, fmt: str, g: Window):
    def build(lib: dnnl.Library, n_threads: int) -> plans.Plan:
        src, dst = _descs(lib, g, fmt)
        alg = _alg(op)
        fwd = dnnl.Primitive(lib, _forward_pd(lib, g, dnnl.FORWARD_TRAINING, alg, src, dst))
        bwd = dnnl.Primitive(lib, _backward_pd(lib, g, alg, src, dst, fwd.pd))
        p = plans.Plan(lib)
        if alg == dnnl.POOLING_MAX:
            x = p.input("x", src, fwd.md(dnnl.QUERY_SRC_MD))
            ws = p.scratch(fwd.md(dnnl.QUERY_WORKSPACE_MD))
            y = p.scratch(fwd.md(dnnl.QUERY_DST_MD))
            p.add(fwd, [(dnnl.ARG_SRC, x), (dnnl.ARG_DST, y), (dnnl.ARG_WORKSPACE, ws)])
        dy = p.input("dy", dst, bwd.md(dnnl.QUERY_DIFF_DST_MD))
        dx = p.output("dx", src, bwd.md(dnnl.QUERY_DIFF_SRC_MD))
        args = [(dnnl.ARG_DIFF_DST, dy), (dnnl.ARG_DIFF_SRC, dx)]
        if alg == dnnl.POOLING_MAX:
            args.append((dnnl.ARG_WORKSPACE, ws))
        p.add(bwd, args)
        p.keep = fwd
        return p
    return build


def _pool(op: str, ctx: KernelContext, x: Any) -> np.ndarray:
    geo = _geometry(ctx, x.shape) if all_f32(x) else None
    if geo is not None:
        fmt, g = geo
        y = np.empty(to_format(g.n, g.c, g.oh, g.ow, fmt), np.float32)
        x = np.ascontiguousarray(x)
        if batch_split.run_kernel((op, fmt, tuple(g), "float32"),
                                  lambda k: _build_forward(op, fmt, g._replace(n=k)), g.n,
                                  lambda i, a, b: dict(x=x[a:b], y=y[a:b]), split=False):
            return y
    return reference(op)(ctx, x)


# id(output array) -> (a weak reference to that array, the window geometry and format
# it was pooled with, the workspace). An entry goes when its array is freed.
_workspaces: Dict[int, Tuple[Any, tuple, np.ndarray]] = {}


def _forget(key: int) -> Any:
    def forget(ref: Any) -> None:
        entry = _workspaces.get(key)
        if entry is not None and entry[0] is ref:
            del _workspaces[key]
    return forget


def _build_max_forward(fmt: str, g: Window):
    """Max pooling for training: the output and the workspace ("ws") that records
    where each window's maximum was."""
    def build(lib: dnnl.Library, n_threads: int) -> plans.Plan:
        src, dst = _descs(lib, g, fmt)
        prim = dnnl.Primitive(lib, _forward_pd(lib, g, dnnl.FORWARD_TRAINING,
                                               dnnl.POOLING_MAX, src, dst))
        p = plans.Plan(lib)
        x = p.input("x", src, prim.md(dnnl.QUERY_SRC_MD))
        y = p.output("y", dst, prim.md(dnnl.QUERY_DST_MD))
        ws_md = prim.md(dnnl.QUERY_WORKSPACE_MD)
        ws = p.output("ws", ws_md, ws_md)
        p.add(prim, [(dnnl.ARG_SRC, x), (dnnl.ARG_DST, y), (dnnl.ARG_WORKSPACE, ws)])
        p.workspace_bytes = lib.dll.dnnl_memory_desc_get_size(ws_md)
        return p
    return build


def _build_max_backward_from_workspace(fmt: str, g: Window):
    def build(lib: dnnl.Library, n_threads: int) -> plans.Plan:
        src, dst = _descs(lib, g, fmt)
        fwd = dnnl.Primitive(lib, _forward_pd(lib, g, dnnl.FORWARD_TRAINING,
                                              dnnl.POOLING_MAX, src, dst))
        bwd = dnnl.Primitive(lib, _backward_pd(lib, g, dnnl.POOLING_MAX, src, dst, fwd.pd))
        p = plans.Plan(lib)
        ws_md = fwd.md(dnnl.QUERY_WORKSPACE_MD)
        ws = p.input("ws", ws_md, ws_md)
        dy = p.input("dy", dst, bwd.md(dnnl.QUERY_DIFF_DST_MD))
        dx = p.output("dx", src, bwd.md(dnnl.QUERY_DIFF_SRC_MD))
        p.add(bwd, [(dnnl.ARG_DIFF_DST, dy), (dnnl.ARG_DIFF_SRC, dx), (dnnl.ARG_WORKSPACE, ws)])
        p.keep = fwd
        return p
    return build


@register_backend_kernel("MaxPool", "CPU", BACKEND)
def max_pool(ctx: KernelContext, x: Any) -> np.ndarray:
    """``MaxPool`` through oneDNN, keeping its workspace for ``MaxPoolGrad``."""
    geo = _geometry(ctx, x.shape) if all_f32(x) else None
    if geo is not None:
        fmt, g = geo
        plan, n = plans.cached(("MaxPoolTraining", fmt, tuple(g), "float32"),
                               _build_max_forward(fmt, g))
        if plan is not None:
            y = np.empty(to_format(g.n, g.c, g.oh, g.ow, fmt), np.float32)
            ws = np.empty(plan.workspace_bytes, np.uint8)
            plan.run(n, x=np.ascontiguousarray(x), y=y, ws=ws)
            key = id(y)
            _workspaces[key] = (weakref.ref(y, _forget(key)), (fmt, tuple(g)), ws)
            return y
    return reference("MaxPool")(ctx, x)


def _workspace_of(y: Any, fmt: str, g: Window) -> Optional[np.ndarray]:
    """The workspace ``MaxPool`` wrote beside ``y`` with this geometry, if ``y`` is
    that very array."""
    entry = _workspaces.get(id(y))
    if entry is None or entry[0]() is not y or entry[1] != (fmt, tuple(g)):
        return None
    return entry[2]


@register_backend_kernel("AvgPool", "CPU", BACKEND)
def avg_pool(ctx: KernelContext, x: Any) -> np.ndarray:
    """``AvgPool`` through oneDNN."""
    return _pool("AvgPool", ctx, x)


@register_backend_kernel("MaxPoolGrad", "CPU", BACKEND)
def max_pool_grad(ctx: KernelContext, x: Any, y: Any, dy: Any) -> np.ndarray:
    """``MaxPoolGrad`` through oneDNN."""
    geo = _geometry(ctx, x.shape) if all_f32(x, dy) else None
    if geo is not None:
        fmt, g = geo
        out = to_format(g.n, g.c, g.oh, g.ow, fmt)
        if tuple(dy.shape) == out and tuple(y.shape) == out:
            dx = np.empty(x.shape, np.float32)
            ws = _workspace_of(y, fmt, g)
            if ws is not None:
                plan, n = plans.cached(("MaxPoolGradWorkspace", fmt, tuple(g), "float32"),
                                       _build_max_backward_from_workspace(fmt, g))
                if plan is not None:
                    plan.run(n, ws=ws, dy=np.ascontiguousarray(dy), dx=dx)
                    return dx
            xc, dyc = np.ascontiguousarray(x), np.ascontiguousarray(dy)
            if batch_split.run_kernel(
                    ("MaxPoolGrad", fmt, tuple(g), "float32"),
                    lambda k: _build_backward("MaxPoolGrad", fmt, g._replace(n=k)), g.n,
                    lambda i, a, b: dict(x=xc[a:b], dy=dyc[a:b], dx=dx[a:b]), split=False):
                return dx
    return reference("MaxPoolGrad")(ctx, x, y, dy)


@register_backend_kernel("AvgPoolGrad", "CPU", BACKEND)
def avg_pool_grad(ctx: KernelContext, sizes: Any, dy: Any) -> np.ndarray:
    """``AvgPoolGrad`` through oneDNN."""
    shape = [int(d) for d in np.asarray(sizes).reshape(-1)]
    geo = _geometry(ctx, shape) if all_f32(dy) and len(shape) == 4 else None
    if geo is not None:
        fmt, g = geo
        if tuple(dy.shape) == to_format(g.n, g.c, g.oh, g.ow, fmt):
            dx = np.empty(tuple(shape), np.float32)
            dyc = np.ascontiguousarray(dy)
            if batch_split.run_kernel(
                    ("AvgPoolGrad", fmt, tuple(g), "float32"),
                    lambda k: _build_backward("AvgPoolGrad", fmt, g._replace(n=k)), g.n,
                    lambda i, a, b: dict(dy=dyc[a:b], dx=dx[a:b]), split=False):
                return dx
    return reference("AvgPoolGrad")(ctx, sizes, dy)


__all__ = ["max_pool", "avg_pool", "max_pool_grad", "avg_pool_grad"]
