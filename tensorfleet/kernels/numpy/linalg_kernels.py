"""numpy kernels of the linear-algebra ops, batched over leading axes.

numpy's ``linalg`` routines already broadcast over leading axes, so each kernel
is one LAPACK-backed call on the whole batch. A singular or non positive
definite matrix is an ``InvalidArgumentError`` naming the op.
"""

from __future__ import annotations

from typing import Any, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel


def _bad(ctx: KernelContext, msg: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(ctx.op_name, None, msg)


def _square(ctx: KernelContext, x: Any) -> np.ndarray:
    x = np.asarray(x)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise _bad(ctx, f"input must be a square matrix (or a batch of them), got shape "
                        f"{list(x.shape)}")
    return x


def _t(x: np.ndarray) -> np.ndarray:
    return np.swapaxes(x, -1, -2)


@register_kernel("SelfAdjointEigV2")
def _self_adjoint_eig(ctx: KernelContext, x: Any) -> Tuple[np.ndarray, np.ndarray]:
    a = _square(ctx, x)
    if not ctx.attrs["compute_v"]:
        return np.linalg.eigvalsh(a, UPLO="L").astype(a.dtype, copy=False), \
            np.zeros(0, dtype=a.dtype)
    e, v = np.linalg.eigh(a, UPLO="L")
    return e.astype(a.dtype, copy=False), v.astype(a.dtype, copy=False)


@register_kernel("MatrixInverse")
def _inverse(ctx: KernelContext, x: Any) -> np.ndarray:
    x = _square(ctx, x)
    if ctx.attrs.get("adjoint"):
        x = _t(x)
    try:
        return np.linalg.inv(x).astype(x.dtype, copy=False)
    except np.linalg.LinAlgError:
        raise _bad(ctx, "Input is not invertible.") from None


@register_kernel("MatrixDeterminant")
def _det(ctx: KernelContext, x: Any) -> np.ndarray:
    x = _square(ctx, x)
    return np.asarray(np.linalg.det(x), dtype=x.dtype)


@register_kernel("LogMatrixDeterminant")
def _slogdet(ctx: KernelContext, x: Any) -> Tuple[np.ndarray, np.ndarray]:
    x = _square(ctx, x)
    sign, logabs = np.linalg.slogdet(x)
    return np.asarray(sign, dtype=x.dtype), np.asarray(logabs, dtype=x.dtype)


@register_kernel("MatrixDiag")
def _matrix_diag(ctx: KernelContext, d: Any) -> np.ndarray:
    d = np.asarray(d)
    if d.ndim < 1:
        raise _bad(ctx, "diagonal must be at least 1-D")
    n = d.shape[-1]
    out = np.zeros(d.shape + (n,), d.dtype)
    idx = np.arange(n)
    out[..., idx, idx] = d
    return out


@register_kernel("MatrixDiagPart")
def _matrix_diag_part(ctx: KernelContext, x: Any) -> np.ndarray:
    x = np.asarray(x)
    if x.ndim < 2:
        raise _bad(ctx, f"input must be at least 2-D, got shape {list(x.shape)}")
    return np.ascontiguousarray(np.diagonal(x, axis1=-2, axis2=-1))


@register_kernel("MatrixSetDiag")
def _matrix_set_diag(ctx: KernelContext, x: Any, d: Any) -> np.ndarray:
    x, d = np.asarray(x), np.asarray(d)
    k = min(x.shape[-2:]) if x.ndim >= 2 else -1
    if x.ndim < 2 or d.shape != x.shape[:-2] + (k,):
        raise _bad(ctx, f"diagonal has shape {list(d.shape)}, expected "
                        f"{list(x.shape[:-2]) + [k]} for input {list(x.shape)}")
    out = np.array(x, copy=True)
    idx = np.arange(k)
    out[..., idx, idx] = d
    return out


def band_mask(m: int, n: int, lower: int, upper: int) -> np.ndarray:
    """The [m, n] bool mask of a band with ``lower``/``upper`` diagonals (negative: all)."""
    i = np.arange(m)[:, None]
    j = np.arange(n)[None, :]
    keep = np.ones((m, n), bool)
    if lower >= 0:
        keep &= (i - j) <= lower
    if upper >= 0:
        keep &= (j - i) <= upper
    return keep


@register_kernel("MatrixBandPart")
def _band_part(ctx: KernelContext, x: Any, lower: Any, upper: Any) -> np.ndarray:
    x = np.asarray(x)
    if x.ndim < 2:
        raise _bad(ctx, f"input must be at least 2-D, got shape {list(x.shape)}")
    lo, hi = int(lower), int(upper)
    m, n = x.shape[-2:]
    if lo > m or hi > n:
        raise _bad(ctx, f"num_lower ({lo}) must be <= {m} and num_upper ({hi}) <= {n}")
    return np.where(band_mask(m, n, lo, hi), x, np.zeros((), x.dtype))


@register_kernel("Cholesky")
def _cholesky(ctx: KernelContext, x: Any) -> np.ndarray:
    x = _square(ctx, x)
    # Only the lower triangle is read, as the op promises.
    lower = np.tril(x)
    sym = lower + _t(np.tril(x, -1))
    try:
        return np.linalg.cholesky(sym).astype(x.dtype, copy=False)
    except np.linalg.LinAlgError:
        raise _bad(ctx, "Cholesky decomposition was not successful. The input might not be "
                        "valid.") from None


@register_kernel("CholeskyGrad")
def _cholesky_grad(ctx: KernelContext, chol: Any, grad: Any) -> np.ndarray:
    lmat = np.asarray(chol)
    g = np.asarray(grad)
    # With L L^T = A: dA = L^-T Phi(L^T dL) L^-1 symmetrised, where Phi keeps the lower
    # triangle and halves the diagonal.
    phi = np.tril(_t(lmat) @ g)
    idx = np.arange(lmat.shape[-1])
    phi[..., idx, idx] *= 0.5
    linv = np.linalg.inv(lmat)
    mid = _t(linv) @ phi @ linv
    return (0.5 * (mid + _t(mid))).astype(lmat.dtype, copy=False)


def _solve_shapes(ctx: KernelContext, a: np.ndarray, b: np.ndarray) -> None:
    if a.ndim < 2 or a.shape[-1] != a.shape[-2] or b.ndim < 2 or b.shape[-2] != a.shape[-1]:
        raise _bad(ctx, f"matrix must be square [..., N, N] and rhs [..., N, K]; got "
                        f"{list(a.shape)} and {list(b.shape)}")


@register_kernel("MatrixSolve")
def _solve(ctx: KernelContext, a: Any, b: Any) -> np.ndarray:
    a, b = np.asarray(a), np.asarray(b)
    _solve_shapes(ctx, a, b)
    if ctx.attrs.get("adjoint"):
        a = _t(a)
    try:
        return np.linalg.solve(a, b).astype(b.dtype, copy=False)
    except np.linalg.LinAlgError:
        raise _bad(ctx, "Input matrix is not invertible.") from None


@register_kernel("MatrixTriangularSolve")
def _triangular_solve(ctx: KernelContext, a: Any, b: Any) -> np.ndarray:
    a, b = np.asarray(a), np.asarray(b)
    _solve_shapes(ctx, a, b)
    tri = np.tril(a) if ctx.attrs.get("lower", True) else np.triu(a)
    if ctx.attrs.get("adjoint"):
        tri = _t(tri)
    diag = np.diagonal(tri, axis1=-2, axis2=-1)
    if (diag == 0).any():
        raise _bad(ctx, "Input matrix is not invertible (a zero on its diagonal).")
    return np.linalg.solve(tri, b).astype(b.dtype, copy=False)


@register_kernel("Qr")
def _qr(ctx: KernelContext, x: Any) -> Tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x)
    if x.ndim < 2:
        raise _bad(ctx, f"input must be at least 2-D, got shape {list(x.shape)}")
    q, r = np.linalg.qr(x, mode="complete" if ctx.attrs["full_matrices"] else "reduced")
    return q.astype(x.dtype, copy=False), r.astype(x.dtype, copy=False)


@register_kernel("Svd")
def _svd(ctx: KernelContext, x: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = np.asarray(x)
    if x.ndim < 2:
        raise _bad(ctx, f"input must be at least 2-D, got shape {list(x.shape)}")
    if not ctx.attrs["compute_uv"]:
        s = np.linalg.svd(x, compute_uv=False)
        empty = np.zeros([0], x.dtype)
        return s.astype(x.dtype, copy=False), empty, empty
    u, s, vt = np.linalg.svd(x, full_matrices=ctx.attrs["full_matrices"])
    return (s.astype(x.dtype, copy=False), u.astype(x.dtype, copy=False),
            np.ascontiguousarray(_t(vt)).astype(x.dtype, copy=False))


def _svd_grad_tall(u: np.ndarray, s: np.ndarray, v: np.ndarray, ds: np.ndarray,
                   du: np.ndarray, dv: np.ndarray) -> np.ndarray:
    """Gradient of A = U diag(s) V^T for A [..., M, N] with M >= N (reduced factors)."""
    s2 = s[..., None, :] ** 2
    diff = s2 - _t(s2)  # [..., i, j] = s_j^2 - s_i^2
    eye = np.eye(s.shape[-1], dtype=bool)
    with np.errstate(divide="ignore"):
        f = np.where(eye, 0.0, 1.0 / np.where(eye, 1.0, diff))
    sdiag = s[..., None, :]
    utdu = _t(u) @ du
    vtdv = _t(v) @ dv
    inner = (f * (utdu - _t(utdu))) * sdiag + (sdiag.swapaxes(-1, -2) * (f * (vtdv - _t(vtdv))))
    idx = np.arange(s.shape[-1])
    inner[..., idx, idx] += ds
    out = u @ inner @ _t(v)
    # Directions of dU outside the span of U reach A through U = A V S^-1.
    with np.errstate(divide="ignore", invalid="ignore"):
        sinv = np.where(s > 0, 1.0 / s, 0.0)
    proj = du - u @ utdu
    return out + (proj * sinv[..., None, :]) @ _t(v)


@register_kernel("SvdGrad")
def _svd_grad(ctx: KernelContext, a: Any, s: Any, u: Any, v: Any, ds: Any, du: Any,
              dv: Any) -> np.ndarray:
    a = np.asarray(a)
    m, n = a.shape[-2:]
    if m >= n:
        g = _svd_grad_tall(u, s, v, ds, du, dv)
    else:
        # A^T = V diag(s) U^T: the same formula with the factors' roles swapped.
        g = _t(_svd_grad_tall(v, s, u, ds, dv, du))
    return g.astype(a.dtype, copy=False)


@register_kernel("Einsum")
def _einsum(ctx: KernelContext, *operands: Any) -> np.ndarray:
    try:
        out = np.einsum(ctx.attrs["equation"], *operands, optimize=len(operands) > 2)
    except ValueError as e:
        raise _bad(ctx, f"einsum {ctx.attrs['equation']!r}: {e}") from None
    return np.asarray(out, dtype=np.result_type(*operands))


@register_kernel("Diag")
def _diag(ctx: KernelContext, d: Any) -> np.ndarray:
    d = np.asarray(d)
    flat = d.reshape(-1)
    return np.diag(flat).reshape(d.shape * 2)


@register_kernel("DiagPart")
def _diag_part(ctx: KernelContext, x: Any) -> np.ndarray:
    x = np.asarray(x)
    k = x.ndim // 2
    if x.ndim % 2 or x.shape[:k] != x.shape[k:]:
        raise _bad(ctx, f"input must have shape [d..., d...], got {list(x.shape)}")
    n = int(np.prod(x.shape[:k], dtype=np.int64))
    return np.ascontiguousarray(np.diagonal(x.reshape(n, n))).reshape(x.shape[:k])
