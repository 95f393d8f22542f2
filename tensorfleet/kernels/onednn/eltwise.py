"""oneDNN kernels of ``Relu`` and ``ReluGrad`` (float32).

numpy runs these in one thread with a temporary for the mask (``ReluGrad`` is
``g * (y > 0)``, a boolean array cast back to float32 on the fly); oneDNN's JIT
eltwise kernels run them in one pass over the data on the OpenMP team. Arrays are
seen as flat vectors, so any rank and shape takes the same plan per element count.
Arrays below ``MIN_SIZE`` elements run the numpy kernel: a oneDNN call costs some
tens of microseconds of Python and ctypes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet.kernels.onednn import batch_split
from tensorfleet.kernels.onednn import library as dnnl
from tensorfleet.kernels.onednn import plan as plans
from tensorfleet.kernels.onednn.fallback import BACKEND, all_f32, reference
from tensorfleet.kernels.registry import KernelContext, register_backend_kernel

# Fewest elements worth a oneDNN call.
MIN_SIZE = 1 << 15


def _flat(lib: dnnl.Library, n: int) -> dnnl.MemoryDesc:
    return dnnl.MemoryDesc(lib, (n,), strides=(1,))


def _relu_forward_pd(lib: dnnl.Library, md: dnnl.MemoryDesc) -> Any:
    return dnnl.primitive_desc(lib, "dnnl_eltwise_forward_primitive_desc_create", lib.engine,
                               dnnl.FORWARD_TRAINING, dnnl.ELTWISE_RELU, md.handle, md.handle,
                               0.0, 0.0, None)


def _build_forward(n: int):
    def build(lib: dnnl.Library, n_threads: int) -> plans.Plan:
        md = _flat(lib, n)
        prim = dnnl.Primitive(lib, _relu_forward_pd(lib, md))
        p = plans.Plan(lib)
        x = p.input("x", md, prim.md(dnnl.QUERY_SRC_MD))
        y = p.output("y", md, prim.md(dnnl.QUERY_DST_MD))
        p.add(prim, [(dnnl.ARG_SRC, x), (dnnl.ARG_DST, y)])
        return p
    return build


def _build_backward(n: int):
    def build(lib: dnnl.Library, n_threads: int) -> plans.Plan:
        md = _flat(lib, n)
        hint = dnnl.Primitive(lib, _relu_forward_pd(lib, md))
        # ReLU's slope is 1 where its output is positive, 0 elsewhere, and y > 0 exactly
        # where x > 0: the forward output serves as the backward's data argument.
        prim = dnnl.Primitive(lib, dnnl.primitive_desc(
            lib, "dnnl_eltwise_backward_primitive_desc_create", lib.engine, dnnl.ELTWISE_RELU,
            md.handle, md.handle, md.handle, 0.0, 0.0, hint.pd, None))
        p = plans.Plan(lib)
        y = p.input("y", md, prim.md(dnnl.QUERY_SRC_MD))
        dy = p.input("dy", md, prim.md(dnnl.QUERY_DIFF_DST_MD))
        dx = p.output("dx", md, prim.md(dnnl.QUERY_DIFF_SRC_MD))
        p.add(prim, [(dnnl.ARG_SRC, y), (dnnl.ARG_DIFF_DST, dy), (dnnl.ARG_DIFF_SRC, dx)])
        p.keep = hint
        return p
    return build


def _large(*arrays: Any) -> bool:
    return all_f32(*arrays) and arrays[0].size >= MIN_SIZE and \
        all(a.shape == arrays[0].shape for a in arrays)


@register_backend_kernel("Relu", "CPU", BACKEND)
def relu(ctx: KernelContext, x: Any) -> np.ndarray:
    """``Relu`` through oneDNN for large float32 arrays."""
    if _large(x):
        y = np.empty(x.shape, np.float32)
        fx, fy = np.ascontiguousarray(x).reshape(-1), y.reshape(-1)
        if batch_split.run_kernel(("Relu", x.size, "float32"), _build_forward, x.size,
                                  lambda i, a, b: dict(x=fx[a:b], y=fy[a:b]), MIN_SIZE, split=False):
            return y
    return reference("Relu")(ctx, x)


@register_backend_kernel("ReluGrad", "CPU", BACKEND)
def relu_grad(ctx: KernelContext, dy: Any, y: Any) -> np.ndarray:
    """``ReluGrad`` (the gradient ``dy`` where ``y`` > 0, else 0) through oneDNN."""
    if _large(dy, y):
        dx = np.empty(y.shape, np.float32)
        fy, fdy = np.ascontiguousarray(y).reshape(-1), np.ascontiguousarray(dy).reshape(-1)
        fdx = dx.reshape(-1)
        if batch_split.run_kernel(("ReluGrad", y.size, "float32"), _build_backward, y.size,
                                  lambda i, a, b: dict(y=fy[a:b], dy=fdy[a:b], dx=fdx[a:b]),
                                  MIN_SIZE, split=False):
            return dx
    return reference("ReluGrad")(ctx, dy, y)


__all__ = ["relu", "relu_grad", "MIN_SIZE"]
