"""oneDNN kernels of a bias add: ``BiasAdd``, and ``Add`` of an array and a vector
along its last axis (``conv2d(x, k) + b``, ``matmul(x, w) + b``).

numpy's broadcasting add runs in one thread; oneDNN's binary primitive adds the
broadcast vector in one pass on the OpenMP team. The array is seen as a (rows, C)
matrix (NHWC, or any rank with the bias on the last axis) or, for ``BiasAdd`` in
NCHW, as (N, C, H*W). float32 only, from ``MIN_SIZE`` elements; anything else runs
the numpy kernel.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from tensorfleet.kernels.onednn import batch_split
from tensorfleet.kernels.onednn import plan as plans
from tensorfleet.kernels.onednn import library as dnnl
from tensorfleet.kernels.onednn.fallback import BACKEND, all_f32, reference
from tensorfleet.kernels.registry import KernelContext, register_backend_kernel

# Fewest elements worth a oneDNN call.
MIN_SIZE = 1 << 15


def _dense(shape: Tuple[int, ...]) -> Tuple[int, ...]:
    """Row-major strides, in elements."""
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= d
    return tuple(reversed(strides))


def _build(x_shape: Tuple[int, ...], b_shape: Tuple[int, ...]):
    def build(lib: dnnl.Library, n_threads: int) -> plans.Plan:
        x_md = dnnl.MemoryDesc(lib, x_shape, strides=_dense(x_shape))
        b_md = dnnl.MemoryDesc(lib, b_shape, strides=_dense(b_shape))
        prim = dnnl.Primitive(lib, dnnl.primitive_desc(
            lib, "dnnl_binary_primitive_desc_create", lib.engine, dnnl.BINARY_ADD,
            x_md.handle, b_md.handle, x_md.handle, None))
        p = plans.Plan(lib)
        x = p.input("x", x_md, prim.md(dnnl.QUERY_SRC_MD))
        b = p.input("b", b_md, b_md)
        y = p.output("y", x_md, prim.md(dnnl.QUERY_DST_MD))
        p.add(prim, [(dnnl.ARG_SRC, x), (dnnl.ARG_SRC_1, b), (dnnl.ARG_DST, y)])
        return p
    return build


def _run(x: np.ndarray, b: np.ndarray, x_shape: Tuple[int, ...],
         b_shape: Tuple[int, ...]) -> Optional[np.ndarray]:
    """``x + b`` with ``x`` seen as ``x_shape``, sliced over its first axis."""
    y = np.empty(x.shape, np.float32)
    fx, fy = np.ascontiguousarray(x).reshape(x_shape), y.reshape(x_shape)
    b = np.ascontiguousarray(b)
    row = x.size // x_shape[0]
    if batch_split.run_kernel(("BiasAdd", x_shape, b_shape, "float32"),
                              lambda k: _build((k,) + x_shape[1:], b_shape), x_shape[0],
                              lambda i, lo, hi: dict(x=fx[lo:hi], b=b, y=fy[lo:hi]),
                              -(-MIN_SIZE // row), split=False):
        return y
    return None


def _last_axis(x: Any, b: Any) -> bool:
    """Whether ``x + b`` adds the vector ``b`` along the last axis of a large ``x``."""
    return (all_f32(x, b) and b.ndim == 1 and x.ndim >= 2 and x.size >= MIN_SIZE
            and x.shape[-1] == b.shape[0])


@register_backend_kernel("BiasAdd", "CPU", BACKEND)
def bias_add(ctx: KernelContext, x: Any, b: Any) -> np.ndarray:
    """``BiasAdd`` through oneDNN (NHWC or NCHW)."""
    if ctx.attrs.get("data_format") == "NCHW":
        if all_f32(x, b) and b.ndim == 1 and x.ndim >= 3 and x.size >= MIN_SIZE \
                and x.shape[1] == b.shape[0]:
            c = x.shape[1]
            y = _run(x, b, (x.shape[0], c, x.size // (x.shape[0] * c)), (1, c, 1))
            if y is not None:
                return y
    elif _last_axis(x, b):
        c = x.shape[-1]
        y = _run(x, b, (x.size // c, c), (1, c))
        if y is not None:
            return y
    return reference("BiasAdd")(ctx, x, b)


@register_backend_kernel("Add", "CPU", BACKEND)
def add(ctx: KernelContext, x: Any, y: Any) -> Any:
    """``Add`` through oneDNN when one side is a vector along the other's last axis."""
    if _last_axis(x, y):
        r = _run(x, y, (x.size // x.shape[-1], x.shape[-1]), (1, x.shape[-1]))
    elif _last_axis(y, x):
        r = _run(y, x, (y.size // y.shape[-1], y.shape[-1]), (1, y.shape[-1]))
    else:
        r = None
    return reference("Add")(ctx, x, y) if r is None else r


__all__ = ["bias_add", "add", "MIN_SIZE"]
