"""Linear algebra over the last two axes (batched over the leading ones), ``einsum``,
``eye``, ``trace``, ``norm`` and the tensor ``diag``/``diag_part``.

The decompositions and solvers are numpy kernels (``linalg_kernels``); the
gradient of each differentiable op sits in ``linalg_grad``. Composite ops
(``trace``, ``norm``, ``logdet``, ``cholesky_solve`` ...) are built from them and
from the math ops, so they differentiate through their parts.
"""

from __future__ import annotations

import collections
import re
import string
from typing import Any, List, Optional

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, unknown_shape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.complex_ops import conj
from tensorfleet.ops.op_util import convert_pair, make_op, make_tensor, same_shape

Qr = collections.namedtuple("Qr", ["q", "r"])


def _batch_square(op: Any) -> List[TensorShape]:
    s = op.inputs[0].shape
    if s.ndims is not None:
        if s.ndims < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {s.ndims}")
        if None not in (s[-1], s[-2]) and s[-1] != s[-2]:
            raise ValueError(f"Dimensions must be equal, but are {s[-2]} and {s[-1]}")
    return [s]


def _det_shape(op: Any) -> List[TensorShape]:
    s = _batch_square(op)[0]
    out = unknown_shape() if s.ndims is None else TensorShape(s.as_list()[:-2])
    return [out for _ in op.outputs]


def _diag_shape(op: Any) -> List[TensorShape]:
    s = op.inputs[0].shape
    return [unknown_shape() if s.ndims is None else TensorShape(s.as_list() + [s[-1]])]


def _diag_part_shape(op: Any) -> List[TensorShape]:
    s = op.inputs[0].shape
    if s.ndims is None:
        return [unknown_shape()]
    m, n = s[-2], s[-1]
    return [TensorShape(s.as_list()[:-2] + [None if None in (m, n) else min(m, n)])]


def _solve_shape(op: Any) -> List[TensorShape]:
    a, b = op.inputs[0].shape, op.inputs[1].shape
    if a.ndims is None or b.ndims is None:
        return [b]
    return [TensorShape(b.as_list()[:-2] + [a[-1], b[-1]])]


def _qr_shape(op: Any) -> List[TensorShape]:
    s = op.inputs[0].shape
    if s.ndims is None or None in (s[-1], s[-2]):
        return [unknown_shape(), unknown_shape()]
    m, n = s[-2], s[-1]
    k = m if op.attrs["full_matrices"] else min(m, n)
    lead = s.as_list()[:-2]
    return [TensorShape(lead + [m, k]), TensorShape(lead + [k, n])]


def _svd_shape(op: Any) -> List[TensorShape]:
    s = op.inputs[0].shape
    if s.ndims is None or None in (s[-1], s[-2]):
        return [unknown_shape() for _ in op.outputs]
    m, n = s[-2], s[-1]
    k = min(m, n)
    lead = s.as_list()[:-2]
    if not op.attrs["compute_uv"]:
        return [TensorShape(lead + [k]), TensorShape([0]), TensorShape([0])]
    full = op.attrs["full_matrices"]
    return [TensorShape(lead + [k]), TensorShape(lead + [m, m if full else k]),
            TensorShape(lead + [n, n if full else k])]


def _tensor_diag_shape(op: Any) -> List[TensorShape]:
    s = op.inputs[0].shape
    return [unknown_shape() if s.ndims is None else TensorShape(s.as_list() * 2)]


def _tensor_diag_part_shape(op: Any) -> List[TensorShape]:
    s = op.inputs[0].shape
    if s.ndims is None:
        return [unknown_shape()]
    if s.ndims % 2:
        raise ValueError(f"diag_part: input must have an even rank, got {s}")
    return [TensorShape(s.as_list()[:s.ndims // 2])]


register_op("MatrixInverse", _batch_square)
register_op("MatrixDeterminant", _det_shape)
register_op("LogMatrixDeterminant", _det_shape)
register_op("MatrixDiag", _diag_shape)
register_op("MatrixDiagPart", _diag_part_shape)
register_op("MatrixSetDiag", same_shape)
register_op("MatrixBandPart", same_shape)
register_op("Cholesky", _batch_square)
register_op("CholeskyGrad", same_shape)
register_op("MatrixSolve", _solve_shape)
register_op("MatrixTriangularSolve", _solve_shape)
register_op("Qr", _qr_shape)
register_op("Svd", _svd_shape)
register_op("SvdGrad", lambda op: [op.inputs[0].shape])
register_op("Einsum", lambda op: [unknown_shape()])
register_op("Diag", _tensor_diag_shape)
register_op("DiagPart", _tensor_diag_part_shape)


def _eig_shape(op: Any) -> List[TensorShape]:
    s = op.inputs[0].shape
    if s.ndims is not None and (s.ndims < 2 or (None not in (s[-1], s[-2]) and
                                               s[-1] != s[-2])):
        raise ValueError(f"self_adjoint_eig: input must be a square matrix (or a batch of "
                         f"them), got shape {s}")
    if s.ndims is None:
        return [unknown_shape(), unknown_shape()]
    lead, n = s.as_list()[:-2], s[-1]
    vectors = TensorShape(lead + [n, n]) if op.attrs["compute_v"] else TensorShape([0])
    return [TensorShape(lead + [n]), vectors]


register_op("SelfAdjointEigV2", _eig_shape)


def _float_matrix(x: Any, fname: str, min_rank: int = 2) -> Tensor:
    t = convert_to_tensor(x)
    if not t.dtype.is_floating:
        raise TypeError(f"{fname}: needs a floating-point tensor, got {t.dtype.name}")
    if t.shape.ndims is not None and t.shape.ndims < min_rank:
        raise ValueError(f"{fname}: input must have rank >= {min_rank}, got shape {t.shape}")
    return t


def matrix_inverse(input: Any, adjoint: bool = False,  # noqa: A002
                   name: Optional[str] = None) -> Tensor:
    """The inverse of each square matrix (of its transpose when ``adjoint``)."""
    x = _float_matrix(input, "matrix_inverse")
    return make_tensor("MatrixInverse", [x], x.dtype, {"adjoint": bool(adjoint)},
                       name=name or "MatrixInverse")


def matrix_determinant(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The determinant of each square matrix."""
    x = _float_matrix(input, "matrix_determinant")
    return make_tensor("MatrixDeterminant", [x], x.dtype, name=name or "MatrixDeterminant")


def log_matrix_determinant(input: Any, name: Optional[str] = None) -> Any:  # noqa: A002
    """``(sign, log(abs(det)))`` of each square matrix."""
    x = _float_matrix(input, "log_matrix_determinant")
    op = make_op("LogMatrixDeterminant", [x], [x.dtype, x.dtype],
                 name=name or "LogMatrixDeterminant")
    return op.outputs[0], op.outputs[1]


def matrix_transpose(a: Any, name: str = "matrix_transpose", conjugate: bool = False) -> Tensor:
    """Swaps the last two axes of ``a``, and conjugates complex entries when ``conjugate``.

    Raises:
      ValueError: for an input of unknown rank or rank below 2.
    """
    x = convert_to_tensor(a)
    r = x.shape.ndims
    if r is None or r < 2:
        raise ValueError(f"matrix_transpose needs a known rank >= 2, got shape {x.shape}")
    perm = list(range(r - 2)) + [r - 1, r - 2]
    if conjugate and x.dtype.is_complex:
        return conj(A.transpose(x, perm), name=name)
    return A.transpose(x, perm, name=name)


def adjoint(matrix: Any, name: Optional[str] = None) -> Tensor:
    """The conjugate transpose of the innermost two axes (``tf.linalg.adjoint``)."""
    return matrix_transpose(matrix, name=name or "adjoint", conjugate=True)


def matrix_diag(diagonal: Any, name: Optional[str] = None) -> Tensor:
    """Square matrices with ``diagonal`` [..., N] on their diagonal and zeros elsewhere."""
    d = _float_or_int(diagonal, "matrix_diag", 1)
    return make_tensor("MatrixDiag", [d], d.dtype, name=name or "MatrixDiag")


def matrix_diag_part(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The main diagonal [..., min(M, N)] of each matrix."""
    x = _float_or_int(input, "matrix_diag_part", 2)
    return make_tensor("MatrixDiagPart", [x], x.dtype, name=name or "MatrixDiagPart")


def matrix_set_diag(input: Any, diagonal: Any, name: Optional[str] = None) -> Tensor:  # noqa
    """``input`` with the main diagonal of each matrix replaced by ``diagonal``."""
    x, d = convert_pair(input, diagonal)
    _float_or_int(x, "matrix_set_diag", 2)
    return make_tensor("MatrixSetDiag", [x, d], x.dtype, name=name or "MatrixSetDiag")


def matrix_band_part(input: Any, num_lower: Any, num_upper: Any,  # noqa: A002
                     name: Optional[str] = None) -> Tensor:
    """Keeps ``num_lower`` sub- and ``num_upper`` super-diagonals of each matrix (a
    negative count keeps the whole triangle) and zeroes the rest."""
    x = _float_or_int(input, "matrix_band_part", 2)
    lo = convert_to_tensor(num_lower, dtype=_dtypes.int64) if not isinstance(
        num_lower, Tensor) else num_lower
    hi = convert_to_tensor(num_upper, dtype=lo.dtype) if not isinstance(
        num_upper, Tensor) else num_upper
    return make_tensor("MatrixBandPart", [x, lo, hi], x.dtype, name=name or "MatrixBandPart")


def _float_or_int(x: Any, fname: str, min_rank: int) -> Tensor:
    t = convert_to_tensor(x)
    if t.shape.ndims is not None and t.shape.ndims < min_rank:
        raise ValueError(f"{fname}: input must have rank >= {min_rank}, got shape {t.shape}")
    return t


def cholesky(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The lower-triangular Cholesky factor ``L`` of each symmetric positive definite
    matrix (``L @ L^T == input``); only the lower triangle of ``input`` is read."""
    x = _float_matrix(input, "cholesky")
    return make_tensor("Cholesky", [x], x.dtype, name=name or "Cholesky")


def cholesky_grad(l: Any, grad: Any, name: Optional[str] = None) -> Tensor:  # noqa: E741
    """Gradient of ``cholesky`` with respect to its (symmetric) input."""
    lt, g = convert_pair(l, grad)
    return make_tensor("CholeskyGrad", [lt, g], lt.dtype, name=name or "CholeskyGrad")


def matrix_solve(matrix: Any, rhs: Any, adjoint: bool = False,
                 name: Optional[str] = None) -> Tensor:
    """``X`` with ``matrix @ X == rhs`` (``matrix^T`` when ``adjoint``)."""
    a, b = convert_pair(matrix, rhs)
    _float_matrix(a, "matrix_solve")
    _float_matrix(b, "matrix_solve")
    return make_tensor("MatrixSolve", [a, b], a.dtype, {"adjoint": bool(adjoint)},
                       name=name or "MatrixSolve")


def matrix_triangular_solve(matrix: Any, rhs: Any, lower: bool = True, adjoint: bool = False,
                            name: Optional[str] = None) -> Tensor:
    """Solves ``matrix @ X == rhs`` reading only the lower (or upper) triangle of
    ``matrix``; with ``adjoint`` solves with its transpose."""
    a, b = convert_pair(matrix, rhs)
    _float_matrix(a, "matrix_triangular_solve")
    _float_matrix(b, "matrix_triangular_solve")
    return make_tensor("MatrixTriangularSolve", [a, b], a.dtype,
                       {"lower": bool(lower), "adjoint": bool(adjoint)},
                       name=name or "MatrixTriangularSolve")


def cholesky_solve(chol: Any, rhs: Any, name: Optional[str] = None) -> Tensor:
    """``X`` with ``A @ X == rhs`` given ``chol``, the Cholesky factor of ``A``."""
    with name_scope(name, "cholesky_solve"):
        y = matrix_triangular_solve(chol, rhs, lower=True, adjoint=False)
        return matrix_triangular_solve(chol, y, lower=True, adjoint=True)


def qr(input: Any, full_matrices: bool = False, name: Optional[str] = None) -> Qr:  # noqa
    """``(q, r)``: orthonormal columns ``q`` and upper-triangular ``r`` with ``q @ r ==
    input``; [M, K] and [K, N] with K = min(M, N), or M when ``full_matrices``."""
    x = _float_matrix(input, "qr")
    op = make_op("Qr", [x], [x.dtype, x.dtype], {"full_matrices": bool(full_matrices)},
                 name=name or "Qr")
    return Qr(op.outputs[0], op.outputs[1])


def svd(tensor: Any, full_matrices: bool = False, compute_uv: bool = True,
        name: Optional[str] = None) -> Any:
    """Singular values ``s`` (descending) of each matrix, and with ``compute_uv``
    ``(s, u, v)`` such that ``input == u @ diag(s) @ v^T``."""
    x = _float_matrix(tensor, "svd")
    op = make_op("Svd", [x], [x.dtype, x.dtype, x.dtype],
                 {"full_matrices": bool(full_matrices), "compute_uv": bool(compute_uv)},
                 name=name or "Svd")
    if not compute_uv:
        return op.outputs[0]
    return op.outputs[0], op.outputs[1], op.outputs[2]


def svd_grad(a: Any, s: Any, u: Any, v: Any, ds: Any, du: Any, dv: Any,
             name: Optional[str] = None) -> Tensor:
    """Gradient of a reduced ``svd`` of ``a`` from the gradients of ``s``, ``u``, ``v``."""
    x = convert_to_tensor(a)
    return make_tensor("SvdGrad", [x, s, u, v, ds, du, dv], x.dtype, name=name or "SvdGrad")


def self_adjoint_eig(tensor: Any, name: Optional[str] = None) -> Any:
    """Eigen-decomposition of each symmetric matrix (only its lower triangle is read):
    ``(e, v)`` with eigenvalues ``e`` ascending and orthonormal eigenvectors as the
    columns of ``v``, so that ``tensor == v @ diag(e) @ v^T``."""
    x = _float_matrix(tensor, "self_adjoint_eig")
    op = make_op("SelfAdjointEigV2", [x], [x.dtype, x.dtype], {"compute_v": True},
                 name=name or "SelfAdjointEigV2")
    return op.outputs[0], op.outputs[1]


def self_adjoint_eigvals(tensor: Any, name: Optional[str] = None) -> Tensor:
    """The eigenvalues (ascending) of each symmetric matrix, from its lower triangle."""
    x = _float_matrix(tensor, "self_adjoint_eigvals")
    op = make_op("SelfAdjointEigV2", [x], [x.dtype, x.dtype], {"compute_v": False},
                 name=name or "SelfAdjointEigV2")
    return op.outputs[0]


def diag(diagonal: Any, name: Optional[str] = None) -> Tensor:
    """The tensor of rank 2k with ``diagonal`` (rank k) at ``[i..., i...]``, zeros elsewhere."""
    d = convert_to_tensor(diagonal)
    if d.shape.ndims == 0:
        raise ValueError("diag: input must have rank >= 1, got a scalar")
    return make_tensor("Diag", [d], d.dtype, name=name or "Diag")


def diag_part(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The inverse of ``diag``: entries ``[i..., i...]`` of a rank-2k tensor."""
    x = convert_to_tensor(input)
    return make_tensor("DiagPart", [x], x.dtype, name=name or "DiagPart")


def eye(num_rows: int, num_columns: Optional[int] = None, batch_shape: Any = None,
        dtype: Any = _dtypes.float32, name: Optional[str] = None) -> Tensor:
    """An identity matrix [num_rows, num_columns], repeated over ``batch_shape``."""
    dt = _dtypes.as_dtype(dtype)
    rows = int(num_rows)
    cols = rows if num_columns is None else int(num_columns)
    if rows < 0 or cols < 0:
        raise ValueError(f"eye: sizes must be non-negative, got {rows} x {cols}")
    value = np.eye(rows, cols, dtype=dt.np)
    if batch_shape is not None:
        lead = [int(b) for b in batch_shape]
        value = np.broadcast_to(value, lead + [rows, cols]).copy()
    return A.constant(value, dtype=dt, name=name or "eye")


def trace(x: Any, name: Optional[str] = None) -> Tensor:
    """The sum of the main diagonal of each matrix in ``x`` [..., M, N]."""
    with name_scope(name, "Trace"):
        return M.reduce_sum(matrix_diag_part(x), -1)


def logdet(matrix: Any, name: Optional[str] = None) -> Tensor:
    """``log(det(matrix))`` of Hermitian positive definite matrices, via Cholesky."""
    with name_scope(name, "logdet"):
        chol = cholesky(matrix)
        return M.multiply(2.0, M.reduce_sum(M.log(matrix_diag_part(chol)), -1))


def matvec(a: Any, b: Any, transpose_a: bool = False, adjoint_a: bool = False,
           name: Optional[str] = None) -> Tensor:
    """``a @ b`` for matrices ``a`` [..., M, N] and vectors ``b`` [..., N]."""
    with name_scope(name, "matvec"):
        prod = M.matmul(a, A.expand_dims(b, -1), transpose_a=transpose_a or adjoint_a)
        return A.squeeze(prod, [-1])


def norm(tensor: Any, ord: Any = "euclidean", axis: Any = None,  # noqa: A002
         keepdims: Optional[bool] = None, name: Optional[str] = None,
         keep_dims: Optional[bool] = None) -> Tensor:
    """Vector norms (ord 1, 2, 'euclidean', a positive p, np.inf) over ``axis`` (None: the
    whole tensor as a vector), or matrix norms ('fro', 'euclidean', 1, np.inf) over a
    pair of axes.

    Raises:
      ValueError: for an ord TensorFlow does not support with that axis.
    """
    keep = bool(keepdims if keepdims is not None else keep_dims)
    x = convert_to_tensor(tensor)
    matrix = isinstance(axis, (list, tuple)) and len(axis) == 2
    if isinstance(axis, (list, tuple)) and len(axis) not in (1, 2):
        raise ValueError(f"norm: axis must be None, an int or a pair of ints, got {axis}")
    if isinstance(axis, (list, tuple)) and len(axis) == 1:
        axis = axis[0]
    with name_scope(name, "norm"):
        if matrix:
            if ord in ("fro", "euclidean"):
                res = M.sqrt(M.reduce_sum(M.square(x), list(axis), keepdims=True))
            elif ord in (1, np.inf):
                rows, cols = axis
                if ord == np.inf:
                    rows, cols = cols, rows
                colsum = M.reduce_sum(M.abs(x), rows, keepdims=True)
                res = M.reduce_max(colsum, cols, keepdims=True)
            else:
                raise ValueError(f"norm: ord must be 'fro', 'euclidean', 1 or np.inf for a "
                                 f"matrix norm, got {ord!r}")
            return res if keep else A.squeeze(res, list(axis))
        if ord in ("euclidean", 2):
            res = M.sqrt(M.reduce_sum(M.square(x), axis, keepdims=True))
        elif ord == 1:
            res = M.reduce_sum(M.abs(x), axis, keepdims=True)
        elif ord == np.inf:
            res = M.reduce_max(M.abs(x), axis, keepdims=True)
        elif isinstance(ord, (int, float)) and not isinstance(ord, bool) and ord > 0:
            res = M.pow(M.reduce_sum(M.pow(M.abs(x), float(ord)), axis, keepdims=True),
                        1.0 / float(ord))
        else:
            raise ValueError(f"norm: ord must be 'euclidean', a positive number or np.inf "
                             f"for a vector norm, got {ord!r}")
        if keep:
            return res
        return A.reshape(res, []) if axis is None else A.squeeze(res, [axis])


_EINSUM_OK = re.compile(r"^[a-zA-Z.,]*(->[a-zA-Z.]*)?$")


def einsum(equation: str, *inputs: Any, **kwargs: Any) -> Tensor:
    """Sums of products of ``inputs`` over the indices ``equation`` names (numpy's
    notation, with an optional ``->output`` and ``...`` for broadcast dims).

    Raises:
      ValueError: for a malformed equation or an operand count that does not match it.
    """
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"einsum: unexpected arguments {sorted(kwargs)}")
    eq = equation.replace(" ", "")
    if not _EINSUM_OK.match(eq):
        raise ValueError(f"einsum: malformed equation {equation!r}")
    lhs = eq.split("->")[0]
    if len(lhs.split(",")) != len(inputs):
        raise ValueError(f"einsum: equation {equation!r} names {len(lhs.split(','))} operands "
                         f"but {len(inputs)} were given")
    if "->" not in eq:
        letters = [c for c in lhs if c.isalpha()]
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
        eq = f"{lhs}->{'...' if '...' in lhs else ''}{out}"
    ts = [convert_to_tensor(t) for t in inputs]
    for t in ts[1:]:
        if t.dtype is not ts[0].dtype:
            raise TypeError(f"einsum: operands must share a dtype, got {ts[0].dtype.name} and "
                            f"{t.dtype.name}")
    y = make_tensor("Einsum", ts, ts[0].dtype, {"equation": eq}, name=name or "Einsum")
    y.set_shape(_einsum_static_shape(eq, ts))
    return y


def _einsum_static_shape(eq: str, ts: List[Tensor]) -> TensorShape:
    if "." in eq or any(t.shape.ndims is None for t in ts):
        return unknown_shape()
    lhs, out = eq.split("->")
    sizes: dict = {}
    for sub, t in zip(lhs.split(","), ts):
        if len(sub) != t.shape.ndims:
            raise ValueError(f"einsum: operand subscripts {sub!r} do not match shape {t.shape}")
        for c, d in zip(sub, t.shape.as_list()):
            if d is not None:
                if sizes.get(c) not in (None, d):
                    raise ValueError(f"einsum: index {c!r} has sizes {sizes[c]} and {d}")
                sizes[c] = d
    return TensorShape([sizes.get(c) for c in out])


def einsum_letters_free(eq: str) -> List[str]:
    """Letters not used in ``eq``, for naming broadcast dims explicitly."""
    return [c for c in string.ascii_letters if c not in eq]


__all__ = ["matrix_inverse", "matrix_determinant", "log_matrix_determinant",
           "matrix_transpose", "adjoint", "matrix_diag", "matrix_diag_part", "matrix_set_diag",
           "matrix_band_part", "cholesky", "cholesky_solve", "matrix_solve",
           "matrix_triangular_solve", "qr", "svd", "self_adjoint_eig", "self_adjoint_eigvals",
           "diag", "diag_part", "eye", "trace",
           "logdet", "matvec", "norm", "einsum"]
