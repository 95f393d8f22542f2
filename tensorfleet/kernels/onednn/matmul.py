"""oneDNN kernel of ``MatMul`` (2-D, float32, either operand transposed).

Transposed operands are read in place (a strided descriptor), as BLAS reads them.
A call into oneDNN costs some tens of microseconds of Python and ctypes, more than
a small product takes in numpy's BLAS, so products below ``MIN_MACS`` multiply-adds
run the numpy kernel.
"""

from __future__ import annotations

from typing import Any, Optional

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


def _build(m: int, k: int, n: int, ta: bool, tb: bool, bias: bool = False,
           relu: bool = False):
    """The product's plan; with ``bias`` it adds a bias row ("bias") to every row, with
    ``relu`` it clips at zero, both as the output is written."""
    def build(lib: dnnl.Library, n_threads: int) -> plans.Plan:
        a = _operand(lib, m, k, ta)
        b = _operand(lib, k, n, tb)
        c = dnnl.MemoryDesc(lib, (m, n), dnnl.TAG_AB)
        bias_md = dnnl.MemoryDesc(lib, (1, n), dnnl.TAG_AB) if bias else None
        attr = dnnl.Attr(lib, (dnnl.ELTWISE_RELU,) if relu else ())
        prim = dnnl.Primitive(lib, dnnl.primitive_desc(
            lib, "dnnl_matmul_primitive_desc_create", lib.engine, a.handle, b.handle,
            None if bias_md is None else bias_md.handle, c.handle, attr.handle))
        p = plans.Plan(lib)
        src = p.input("a", a, prim.md(dnnl.QUERY_SRC_MD))
        wei = p.input("b", b, prim.md(dnnl.QUERY_WEIGHTS_MD))
        dst = p.output("c", c, prim.md(dnnl.QUERY_DST_MD))
        args = [(dnnl.ARG_SRC, src), (dnnl.ARG_WEIGHTS, wei), (dnnl.ARG_DST, dst)]
        if bias_md is not None:
            args.append((dnnl.ARG_BIAS, p.input("bias", bias_md, bias_md.handle)))
        p.add(prim, args)
        return p
    return build


def _run(ctx: KernelContext, a: Any, b: Any, bias: Any = None, relu: bool = False
         ) -> Optional[np.ndarray]:
    """The product through oneDNN, or None where the reference kernel must run it."""
    if not (all_f32(a, b) and a.ndim == 2 and b.ndim == 2 and a.flags.c_contiguous
            and b.flags.c_contiguous):
        return None
    ta, tb = bool(ctx.attrs.get("transpose_a")), bool(ctx.attrs.get("transpose_b"))
    m, k = (a.shape[1], a.shape[0]) if ta else a.shape
    k2, n = (b.shape[1], b.shape[0]) if tb else b.shape
    if k != k2 or m * k * n < MIN_MACS or min(m, k, n) == 0:
        return None
    if bias is not None and not (all_f32(bias) and bias.shape == (n,)):
        return None
    plan, nt = plans.cached(("MatMul", m, k, n, ta, tb, bias is not None, relu, "float32"),
                            _build(m, k, n, ta, tb, bias is not None, relu))
    if plan is None:
        return None
    c = np.empty((m, n), np.float32)
    extra = {} if bias is None else dict(bias=np.ascontiguousarray(bias))
    plan.run(nt, a=a, b=b, c=c, **extra)
    return c


@register_backend_kernel("MatMul", "CPU", BACKEND)
def matmul(ctx: KernelContext, a: Any, b: Any) -> np.ndarray:
    """``MatMul`` through oneDNN for large float32 products (numpy's BLAS otherwise)."""
    c = _run(ctx, a, b)
    return c if c is not None else reference("MatMul")(ctx, a, b)


@register_backend_kernel("_FusedMatMul", "CPU", BACKEND)
def fused_matmul(ctx: KernelContext, a: Any, b: Any, *bias: Any) -> np.ndarray:
    """``MatMul`` with its bias and ReLU (``fused_ops``) in one oneDNN primitive."""
    fused = ctx.attrs.get("fused_ops", ())
    c = _run(ctx, a, b, bias[0] if "BiasAdd" in fused else None, "Relu" in fused)
    return c if c is not None else reference("_FusedMatMul")(ctx, a, b, *bias)


__all__ = ["matmul", "fused_matmul", "MIN_MACS"]
