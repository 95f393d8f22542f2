"""oneDNN kernel of ``MatMul`` (2-D, float32, either operand transposed).

Transposed operands are read in place (a strided descriptor), as BLAS reads them.
A call into oneDNN costs some tens of microseconds of Python and ctypes, more than
a small product takes in numpy's BLAS, so products below ``MIN_MACS`` multiply-adds
run the numpy kernel.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet.kernels.onednn import library as dnnl
from tensorfleet.kernels.onednn import plan as plans
from tensorfleet.kernels.onednn.fallback import BACKEND, all_f32, reference
from tensorfleet.kernels.registry import KernelContext, register_backend_kernel

# Smallest product (M*K*N) worth a oneDNN call.
MIN_MACS = 1 << 22


def _operand(lib: dnnl.Library, rows: int, cols: int, transposed: bool) -> dnnl.MemoryDesc:
    """The (rows, cols) operand of a row-major array, stored transposed or not."""
    strides = (1, rows) if transposed else (cols, 1)
    return dnnl.MemoryDesc(lib, (rows, cols), strides=strides)


def _build(m: int, k: int, n: int, ta: bool, tb: bool):
    def build(lib: dnnl.Library, n_threads: int) -> plans.Plan:
        a = _operand(lib, m, k, ta)
        b = _operand(lib, k, n, tb)
        c = dnnl.MemoryDesc(lib, (m, n), dnnl.TAG_AB)
        prim = dnnl.Primitive(lib, dnnl.primitive_desc(
            lib, "dnnl_matmul_primitive_desc_create", lib.engine, a.handle, b.handle, None,
            c.handle, None))
        p = plans.Plan(lib)
        src = p.input("a", a, prim.md(dnnl.QUERY_SRC_MD))
        wei = p.input("b", b, prim.md(dnnl.QUERY_WEIGHTS_MD))
        dst = p.output("c", c, prim.md(dnnl.QUERY_DST_MD))
        p.add(prim, [(dnnl.ARG_SRC, src), (dnnl.ARG_WEIGHTS, wei), (dnnl.ARG_DST, dst)])
        return p
    return build


@register_backend_kernel("MatMul", "CPU", BACKEND)
def matmul(ctx: KernelContext, a: Any, b: Any) -> np.ndarray:
    """``MatMul`` through oneDNN for large float32 products (numpy's BLAS otherwise)."""
    if all_f32(a, b) and a.ndim == 2 and b.ndim == 2 and a.flags.c_contiguous \
            and b.flags.c_contiguous:
        ta, tb = bool(ctx.attrs.get("transpose_a")), bool(ctx.attrs.get("transpose_b"))
        m, k = (a.shape[1], a.shape[0]) if ta else a.shape
        k2, n = (b.shape[1], b.shape[0]) if tb else b.shape
        if k == k2 and m * k * n >= MIN_MACS and min(m, k, n) > 0:
            plan, nt = plans.cached(("MatMul", m, k, n, ta, tb, "float32"),
                                    _build(m, k, n, ta, tb))
            if plan is not None:
                c = np.empty((m, n), np.float32)
                plan.run(nt, a=a, b=b, c=c)
                return c
    return reference("MatMul")(ctx, a, b)


__all__ = ["matmul", "MIN_MACS"]
