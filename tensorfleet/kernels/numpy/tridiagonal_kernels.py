"""numpy kernels of the tridiagonal ops (``ops/tridiagonal_ops.py``): LAPACK's banded
solver (gbsv, partial pivoting) or the Thomas algorithm (no pivoting) for
``TridiagonalSolve``, LAPACK's stebz/stein through ``scipy.linalg.eigh_tridiagonal``."""

from __future__ import annotations

from typing import Any, List

import numpy as np
from tensorfleet.platform.deferred_scipy import linalg

from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel


def _thomas(sup: np.ndarray, main: np.ndarray, sub: np.ndarray, b: np.ndarray) -> np.ndarray:
    n = main.shape[0]
    c = np.zeros(n)
    d = np.zeros_like(b, dtype=np.float64)
    denom = main[0]
    if denom == 0:
        raise ZeroDivisionError
    c[0], d[0] = sup[0] / denom, b[0] / denom
    for i in range(1, n):
        denom = main[i] - sub[i] * c[i - 1]
        if denom == 0:
            raise ZeroDivisionError
        c[i] = sup[i] / denom if i < n - 1 else 0.0
        d[i] = (b[i] - sub[i] * d[i - 1]) / denom
    for i in range(n - 2, -1, -1):
        d[i] -= c[i] * d[i + 1]
    return d


@register_kernel("TridiagonalSolve")
def _solve(ctx: KernelContext, diags: Any, rhs: Any) -> np.ndarray:
    diags, rhs = np.asarray(diags), np.asarray(rhs)
    n = diags.shape[-1]
    if rhs.shape[-2] != n:
        raise errors.InvalidArgumentError(ctx.op_name, None, f"rhs has {rhs.shape[-2]} rows "
                                          f"for a {n} x {n} tridiagonal system")
    batch = np.broadcast_shapes(diags.shape[:-2], rhs.shape[:-2])
    d = np.broadcast_to(diags, batch + diags.shape[-2:]).reshape((-1, 3, n))
    b = np.broadcast_to(rhs, batch + rhs.shape[-2:]).reshape((-1,) + rhs.shape[-2:])
    out = np.empty(b.shape, dtype=rhs.dtype)
    for i in range(d.shape[0]):
        sup, main, sub = d[i].astype(np.float64)
        try:
            if ctx.attrs["partial_pivoting"]:
                ab = np.zeros((3, n))
                ab[0, 1:], ab[1], ab[2, :-1] = sup[:-1], main, sub[1:]
                out[i] = linalg.solve_banded((1, 1), ab, b[i].astype(np.float64))
            else:
                out[i] = _thomas(sup, main, sub, b[i].astype(np.float64))
        except (np.linalg.LinAlgError, ZeroDivisionError):
            raise errors.InvalidArgumentError(ctx.op_name, None,
                                              "The tridiagonal matrix is singular") from None
    return out.reshape(batch + rhs.shape[-2:])


@register_kernel("EighTridiagonal")
def _eigh(ctx: KernelContext, alpha: Any, beta: Any) -> Any:
    attrs = ctx.attrs
    alpha, beta = np.asarray(alpha), np.asarray(beta)
    if alpha.ndim != 1 or beta.shape != (max(alpha.shape[0] - 1, 0),):
        raise errors.InvalidArgumentError(ctx.op_name, None, f"alpha must be [n] and beta "
                                          f"[n - 1], got {alpha.shape} and {beta.shape}")
    select = attrs["select"]
    rng = None if select == "a" else (
        tuple(int(v) for v in attrs["select_range"]) if select == "i"
        else tuple(attrs["select_range"]))
    tol = None if attrs["tol"] < 0 else attrs["tol"]
    res = linalg.eigh_tridiagonal(alpha.astype(np.float64), beta.astype(np.float64),
                                        eigvals_only=attrs["eigvals_only"], select=select,
                                        select_range=rng, tol=tol if tol else 0.0)
    if attrs["eigvals_only"]:
        return np.asarray(res, dtype=alpha.dtype)
    return [res[0].astype(alpha.dtype), res[1].astype(alpha.dtype)]
