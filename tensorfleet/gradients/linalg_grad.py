"""Gradients of the linear-algebra ops and ``einsum``.

The rules follow from differentiating the defining identities: for the inverse
``d(A^-1) = -A^-1 dA A^-1``, for a solve ``A X = B`` the right-hand side's
gradient is a solve with ``A^T`` and the matrix's is ``-dB X^T``, and so on. The
Cholesky and SVD rules are kernels of their own (``CholeskyGrad``, ``SvdGrad``).
"""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet.framework.graph import Tensor
from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import linalg_ops as L
from tensorfleet.ops import math_ops as M

no_gradient("CholeskyGrad")
no_gradient("SvdGrad")


def _t(x: Tensor) -> Tensor:
    return L.matrix_transpose(x)


def _unsqueeze2(x: Tensor) -> Tensor:
    return A.expand_dims(A.expand_dims(x, -1), -1)


@register_gradient("MatrixInverse")
def _inverse_grad(op: Any, grad: Any) -> Any:
    inv = op.outputs[0]
    adj = op.attrs.get("adjoint", False)
    # d(A^-1) = -A^-1 dA A^-1, so dA = -A^-T g A^-T (for the adjoint form, its transpose).
    g = M.negative(M.matmul(inv, M.matmul(grad, inv, transpose_b=True), transpose_a=True))
    return _t(g) if adj else g


@register_gradient("MatrixDeterminant")
def _det_grad(op: Any, grad: Any) -> Any:
    x = op.inputs[0]
    scale = _unsqueeze2(M.multiply(grad, op.outputs[0]))
    return M.multiply(scale, _t(L.matrix_inverse(x)))


@register_gradient("LogMatrixDeterminant")
def _slogdet_grad(op: Any, grad_sign: Any, grad_logabs: Any) -> Any:
    return M.multiply(_unsqueeze2(grad_logabs), _t(L.matrix_inverse(op.inputs[0])))


@register_gradient("MatrixDiag")
def _matrix_diag_grad(op: Any, grad: Any) -> Any:
    return L.matrix_diag_part(grad)


@register_gradient("MatrixDiagPart")
def _matrix_diag_part_grad(op: Any, grad: Any) -> Any:
    return L.matrix_set_diag(A.zeros_like(op.inputs[0]), grad)


@register_gradient("MatrixSetDiag")
def _matrix_set_diag_grad(op: Any, grad: Any) -> List[Any]:
    diag = op.inputs[1]
    return [L.matrix_set_diag(grad, A.zeros_like(diag)), L.matrix_diag_part(grad)]


@register_gradient("MatrixBandPart")
def _band_part_grad(op: Any, grad: Any) -> List[Any]:
    return [L.matrix_band_part(grad, op.inputs[1], op.inputs[2]), None, None]


@register_gradient("Cholesky")
def _cholesky_grad(op: Any, grad: Any) -> Any:
    return L.cholesky_grad(op.outputs[0], grad)


@register_gradient("MatrixSolve")
def _solve_grad(op: Any, grad: Any) -> List[Any]:
    a = op.inputs[0]
    x = op.outputs[0]
    adj = op.attrs.get("adjoint", False)
    gb = L.matrix_solve(a, grad, adjoint=not adj)
    ga = M.negative(M.matmul(x, gb, transpose_b=True) if adj else
                    M.matmul(gb, x, transpose_b=True))
    return [ga, gb]


@register_gradient("MatrixTriangularSolve")
def _triangular_solve_grad(op: Any, grad: Any) -> List[Any]:
    a = op.inputs[0]
    x = op.outputs[0]
    lower, adj = op.attrs.get("lower", True), op.attrs.get("adjoint", False)
    gb = L.matrix_triangular_solve(a, grad, lower=lower, adjoint=not adj)
    ga = M.negative(M.matmul(x, gb, transpose_b=True) if adj else
                    M.matmul(gb, x, transpose_b=True))
    # Only the triangle the solve read depends on the matrix.
    ga = L.matrix_band_part(ga, -1, 0) if lower else L.matrix_band_part(ga, 0, -1)
    return [ga, gb]


def _tri_solve_right(x: Tensor, r: Tensor) -> Tensor:
    """``x @ r^-T`` for upper-triangular ``r``."""
    return _t(L.matrix_triangular_solve(r, _t(x), lower=False, adjoint=False))


@register_gradient("Qr")
def _qr_grad(op: Any, dq: Any, dr: Any) -> Any:
    x = op.inputs[0]
    q, r = op.outputs
    s = x.shape
    if s.ndims is None or None in (s[-1], s[-2]):
        raise ValueError("The gradient of qr needs the matrix dimensions known statically")
    m, n = s[-2], s[-1]
    if m < n or (op.attrs["full_matrices"] and m != n):
        raise ValueError(f"The gradient of qr is defined for matrices with rows >= columns "
                         f"and full_matrices=False (or square), got shape {s} and "
                         f"full_matrices={op.attrs['full_matrices']}")
    qdq = M.matmul(q, dq, transpose_a=True)
    rdr = M.matmul(r, dr, transpose_b=True)
    tril = L.matrix_band_part(M.add(M.subtract(qdq, _t(qdq)), M.subtract(rdr, _t(rdr))), -1, 0)
    ga = M.matmul(q, M.add(dr, _tri_solve_right(tril, r)))
    gb = _tri_solve_right(M.subtract(dq, M.matmul(q, qdq)), r)
    return M.add(ga, gb)


@register_gradient("Svd")
def _svd_grad(op: Any, ds: Any, du: Any, dv: Any) -> Any:
    x = op.inputs[0]
    s = x.shape
    full = op.attrs["full_matrices"]
    if op.attrs["compute_uv"]:
        if full and (s.ndims is None or s[-1] is None or s[-1] != s[-2]):
            raise ValueError(f"The gradient of svd with full_matrices=True is defined only for "
                             f"square matrices, got shape {s}")
        sv, u, v = op.outputs
    else:
        sv, u, v = L.svd(x, full_matrices=False, compute_uv=True)
        du, dv = A.zeros_like(u), A.zeros_like(v)
    return L.svd_grad(x, sv, u, v, ds, du, dv)


@register_gradient("SelfAdjointEigV2")
def _self_adjoint_eig_grad(op: Any, de: Any, dv: Any) -> Any:
    # With A = V diag(e) V^T: dA = V (diag(de) + F * (V^T dV)) V^T, where F[i, j] =
    # 1 / (e_j - e_i) off the diagonal. Only the lower triangle of A is read, so the
    # gradient of an entry below the diagonal collects both of its mirror entries.
    x = op.inputs[0]
    if op.attrs["compute_v"]:
        e, v = op.outputs
    else:
        e, v = L.self_adjoint_eig(x)
        dv = None
    de = A.zeros_like(e) if de is None else de
    inner = L.matrix_diag(de)
    if dv is not None:
        gaps = M.subtract(A.expand_dims(e, -2), A.expand_dims(e, -1))
        f = L.matrix_set_diag(M.reciprocal(gaps), A.zeros_like(e))
        inner = M.add(inner, M.multiply(f, M.matmul(v, dv, transpose_a=True)))
    ga = M.matmul(M.matmul(v, inner), v, transpose_b=True)
    lower = L.matrix_band_part(M.add(ga, _t(ga)), -1, 0)
    return L.matrix_set_diag(lower, M.multiply(L.matrix_diag_part(lower), 0.5))


@register_gradient("Diag")
def _diag_grad(op: Any, grad: Any) -> Any:
    return L.diag_part(grad)


@register_gradient("DiagPart")
def _diag_part_grad(op: Any, grad: Any) -> Any:
    return L.diag(grad)


# -- einsum ----------------------------------------------------------------------------------

def _explicit(eq: str, inputs: List[Tensor]) -> str:
    """``eq`` with each ``...`` spelled out as letters (the operands' ranks must be known
    and their broadcast dims the same)."""
    if "." not in eq:
        return eq
    lhs, out = eq.split("->")
    subs = lhs.split(",")
    free = L.einsum_letters_free(eq)
    counts = []
    for sub, t in zip(subs, inputs):
        if t.shape.ndims is None:
            raise ValueError("The gradient of einsum with '...' needs operands of known rank")
        counts.append(t.shape.ndims - len(sub.replace("...", "")) if "..." in sub else 0)
    width = max(counts) if counts else 0
    if any(c not in (0, width) for c, sub in zip(counts, subs) if "..." in sub):
        raise ValueError(f"The gradient of einsum {eq!r} needs every '...' to cover the same "
                         f"number of dimensions")
    ell = "".join(free[:width])
    return ",".join(sub.replace("...", ell) for sub in subs) + "->" + out.replace("...", ell)


def _einsum_input_grad(eq: str, grad: Tensor, inputs: List[Tensor], i: int) -> Optional[Tensor]:
    lhs, out = eq.split("->")
    subs = lhs.split(",")
    mine = subs[i]
    if len(set(mine)) != len(mine):
        raise ValueError(f"The gradient of einsum {eq!r} is not supported for an operand with "
                         f"a repeated index ({mine!r})")
    others = [s for j, s in enumerate(subs) if j != i]
    seen = set(out).union(*others) if others else set(out)
    kept = "".join(c for c in mine if c in seen)
    terms = [out] + others
    operands = [grad] + [t for j, t in enumerate(inputs) if j != i]
    g = L.einsum(",".join(terms) + "->" + kept, *operands)
    if kept == mine:
        return g
    # Indices summed within this operand alone: its gradient is constant along them.
    for pos, c in enumerate(mine):
        if c not in seen:
            g = A.expand_dims(g, pos)
    return M.multiply(g, A.ones_like(inputs[i]))


@register_gradient("Einsum")
def _einsum_grad(op: Any, grad: Any) -> List[Any]:
    inputs = list(op.inputs)
    eq = _explicit(op.attrs["equation"], inputs)
    return [_einsum_input_grad(eq, grad, inputs, i) for i in range(len(inputs))]
