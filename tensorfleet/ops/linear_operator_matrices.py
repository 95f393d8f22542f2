"""Linear operators given by a matrix or a structured description of one:
``LinearOperatorFullMatrix``, ``Diag``, ``LowerTriangular``, ``Identity``,
``ScaledIdentity``, ``Zeros``, ``Householder``, ``Permutation``, ``Toeplitz``, ``Tridiag``
and ``LowRankUpdate`` (``tf.linalg``). Diagonal and triangular operators solve and take
determinants without forming the dense matrix."""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.tensor_shape import TensorShape, broadcast_shape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.complex_ops import conj
from tensorfleet.ops.linalg_ops import (eye, matrix_band_part, matrix_diag, matrix_diag_part,
                                        matrix_triangular_solve)
from tensorfleet.ops.linear_operator import LinearOperator, adjoint_of
from tensorfleet.ops.sort_ops import reverse
from tensorfleet.ops.tridiagonal_ops import diagonals_of, tridiagonal_matmul, tridiagonal_solve


def _known(t: Tensor, what: str, min_rank: int) -> Tensor:
    if t.shape.ndims is None or t.shape.ndims < min_rank or not t.shape.is_fully_defined():
        raise ValueError(f"{what} needs a tensor of rank >= {min_rank} with a known shape, "
                         f"got {t.shape}")
    return t


class LinearOperatorFullMatrix(LinearOperator):
    """The operator of a dense ``[..., M, N]`` matrix."""

    def __init__(self, matrix: Any, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None, is_square: Optional[bool] = None,
                 name: str = "LinearOperatorFullMatrix"):
        self._matrix = _known(convert_to_tensor(matrix), name, 2)
        super().__init__(self._matrix.dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         name=name, parameters={"matrix": matrix})

    def _shape(self) -> TensorShape:
        return self._matrix.shape

    def _to_dense(self) -> Tensor:
        return self._matrix


class LinearOperatorDiag(LinearOperator):
    """The square operator with ``diag`` ``[..., N]`` on its diagonal."""

    def __init__(self, diag: Any, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None, is_square: Optional[bool] = True,
                 name: str = "LinearOperatorDiag"):
        if is_square is False:
            raise ValueError("A diagonal operator is always square.")
        self._diag = _known(convert_to_tensor(diag), name, 1)
        super().__init__(self._diag.dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True,
                         name=name, parameters={"diag": diag})

    @property
    def diag(self) -> Tensor:
        return self._diag

    def _shape(self) -> TensorShape:
        return self._diag.shape.concatenate([self._diag.shape[-1]])

    def _to_dense(self) -> Tensor:
        return matrix_diag(self._diag)

    def _matmul(self, x: Tensor, adjoint: bool, adjoint_arg: bool) -> Tensor:
        d = conj(self._diag) if adjoint else self._diag
        return M.multiply(A.expand_dims(d, -1), adjoint_of(x) if adjoint_arg else x)

    def _solve(self, rhs: Tensor, adjoint: bool) -> Tensor:
        d = conj(self._diag) if adjoint else self._diag
        return M.div(rhs, A.expand_dims(d, -1))

    def _determinant(self) -> Tensor:
        return M.reduce_prod(self._diag, -1)

    def _log_abs_determinant(self) -> Tensor:
        return M.reduce_sum(M.log(M.abs(self._diag)), -1)

    def _diag_part(self) -> Tensor:
        return self._diag


class LinearOperatorLowerTriangular(LinearOperator):
    """The square operator of the lower triangle of ``tril`` ``[..., N, N]`` (the rest of
    ``tril`` is not read)."""

    def __init__(self, tril: Any, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None, is_square: Optional[bool] = None,
                 name: str = "LinearOperatorLowerTriangular"):
        if is_square is False:
            raise ValueError("A triangular operator is always square.")
        self._tril = _known(convert_to_tensor(tril), name, 2)
        super().__init__(self._tril.dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True,
                         name=name, parameters={"tril": tril})

    def _shape(self) -> TensorShape:
        return self._tril.shape

    def _to_dense(self) -> Tensor:
        return matrix_band_part(self._tril, -1, 0)

    def _solve(self, rhs: Tensor, adjoint: bool) -> Tensor:
        return matrix_triangular_solve(self._to_dense(), rhs, lower=True, adjoint=adjoint)

    def _determinant(self) -> Tensor:
        return M.reduce_prod(matrix_diag_part(self._tril), -1)

    def _log_abs_determinant(self) -> Tensor:
        return M.reduce_sum(M.log(M.abs(matrix_diag_part(self._tril))), -1)


def _batch(batch_shape: Any) -> list:
    return [] if batch_shape is None else [int(d) for d in np.asarray(batch_shape).reshape(-1)]


class LinearOperatorIdentity(LinearOperator):
    """The ``num_rows x num_rows`` identity (a batch of them with ``batch_shape``)."""

    def __init__(self, num_rows: int, batch_shape: Any = None, dtype: Any = None,
                 is_non_singular: bool = True, is_self_adjoint: bool = True,
                 is_positive_definite: bool = True, is_square: bool = True,
                 assert_proper_shapes: bool = False, name: str = "LinearOperatorIdentity"):
        if not (is_non_singular and is_self_adjoint and is_positive_definite and is_square):
            raise ValueError("An identity operator is non-singular, self-adjoint, positive "
                             "definite and square.")
        self._rows = int(num_rows)
        if self._rows < 0:
            raise ValueError(f"num_rows must be non-negative, got {num_rows}")
        self._batch_dims = _batch(batch_shape)
        super().__init__(_dtypes.as_dtype(dtype or _dtypes.float32), is_non_singular=True,
                         is_self_adjoint=True, is_positive_definite=True, is_square=True,
                         name=name, parameters={"num_rows": num_rows,
                                                "batch_shape": batch_shape})

    def _shape(self) -> TensorShape:
        return TensorShape(self._batch_dims + [self._rows, self._rows])

    def _to_dense(self) -> Tensor:
        return eye(self._rows, batch_shape=self._batch_dims or None, dtype=self.dtype)

    def _matmul(self, x: Tensor, adjoint: bool, adjoint_arg: bool) -> Tensor:
        x = adjoint_of(x) if adjoint_arg else x
        return x + A.zeros(self._batch_dims + [1, 1], dtype=self.dtype) if self._batch_dims \
            else x

    def _solve(self, rhs: Tensor, adjoint: bool) -> Tensor:
        return self._matmul(rhs, False, False)

    def _determinant(self) -> Tensor:
        return A.ones(self._batch_dims, dtype=self.dtype)

    def _log_abs_determinant(self) -> Tensor:
        return A.zeros(self._batch_dims, dtype=self.dtype)


class LinearOperatorScaledIdentity(LinearOperator):
    """``multiplier`` (a scalar or a batch of them) times the identity."""

    def __init__(self, num_rows: int, multiplier: Any, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None, is_square: bool = True,
                 assert_proper_shapes: bool = False,
                 name: str = "LinearOperatorScaledIdentity"):
        self._rows = int(num_rows)
        self._multiplier = _known(convert_to_tensor(multiplier), name, 0)
        super().__init__(self._multiplier.dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters={"num_rows": num_rows, "multiplier": multiplier})

    @property
    def multiplier(self) -> Tensor:
        return self._multiplier

    def _shape(self) -> TensorShape:
        return self._multiplier.shape.concatenate([self._rows, self._rows])

    def _scale(self, adjoint: bool) -> Tensor:
        m = conj(self._multiplier) if adjoint else self._multiplier
        return A.expand_dims(A.expand_dims(m, -1), -1)

    def _to_dense(self) -> Tensor:
        return M.multiply(self._scale(False), eye(self._rows, dtype=self.dtype))

    def _matmul(self, x: Tensor, adjoint: bool, adjoint_arg: bool) -> Tensor:
        return M.multiply(self._scale(adjoint), adjoint_of(x) if adjoint_arg else x)

    def _solve(self, rhs: Tensor, adjoint: bool) -> Tensor:
        return M.div(rhs, self._scale(adjoint))

    def _determinant(self) -> Tensor:
        return M.pow(self._multiplier, float(self._rows) if self.dtype.is_floating
                     else self._rows)

    def _log_abs_determinant(self) -> Tensor:
        return M.multiply(M.log(M.abs(self._multiplier)), float(self._rows))


class LinearOperatorZeros(LinearOperator):
    """The ``num_rows x num_columns`` zero matrix."""

    def __init__(self, num_rows: int, num_columns: Optional[int] = None,
                 batch_shape: Any = None, dtype: Any = None, is_non_singular: bool = False,
                 is_self_adjoint: bool = True, is_positive_definite: bool = False,
                 is_square: bool = True, assert_proper_shapes: bool = False,
                 name: str = "LinearOperatorZeros"):
        if is_non_singular or is_positive_definite:
            raise ValueError("A zero operator is singular and not positive definite.")
        self._rows = int(num_rows)
        self._cols = self._rows if num_columns is None else int(num_columns)
        self._batch_dims = _batch(batch_shape)
        super().__init__(_dtypes.as_dtype(dtype or _dtypes.float32), is_non_singular=False,
                         is_self_adjoint=self._rows == self._cols, is_positive_definite=False,
                         is_square=self._rows == self._cols, name=name,
                         parameters={"num_rows": num_rows, "num_columns": num_columns})

    def _shape(self) -> TensorShape:
        return TensorShape(self._batch_dims + [self._rows, self._cols])

    def _to_dense(self) -> Tensor:
        return A.zeros(self._batch_dims + [self._rows, self._cols], dtype=self.dtype)

    def _matmul(self, x: Tensor, adjoint: bool, adjoint_arg: bool) -> Tensor:
        return M.matmul(self._to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _determinant(self) -> Tensor:
        return A.zeros(self._batch_dims, dtype=self.dtype)

    def _log_abs_determinant(self) -> Tensor:
        return A.fill(self._batch_dims, np.array(-np.inf, self.dtype.np))


class LinearOperatorHouseholder(LinearOperator):
    """The reflection ``I - 2 v v^H / (v^H v)`` across the hyperplane normal to
    ``reflection_axis`` ``v`` ``[..., N]``."""

    def __init__(self, reflection_axis: Any, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None, is_square: Optional[bool] = None,
                 name: str = "LinearOperatorHouseholder"):
        if is_positive_definite:
            raise ValueError("A Householder reflection is not positive definite.")
        self._v = _known(convert_to_tensor(reflection_axis), name, 1)
        super().__init__(self._v.dtype, is_non_singular=True, is_self_adjoint=True,
                         is_positive_definite=False, is_square=True, name=name,
                         parameters={"reflection_axis": reflection_axis})

    def _shape(self) -> TensorShape:
        return self._v.shape.concatenate([self._v.shape[-1]])

    def _to_dense(self) -> Tensor:
        v = A.expand_dims(self._v, -1)
        n = self._v.shape.as_list()[-1]
        norm2 = M.reduce_sum(M.multiply(conj(self._v), self._v), -1, keepdims=True)
        outer = M.matmul(v, v, adjoint_b=True)
        return eye(n, dtype=self.dtype) - M.multiply(
            outer, M.div(2.0, A.expand_dims(norm2, -1)))

    def _determinant(self) -> Tensor:
        return -A.ones(self.batch_shape.as_list(), dtype=self.dtype)

    def _log_abs_determinant(self) -> Tensor:
        return A.zeros(self.batch_shape.as_list(), dtype=self.dtype)


class LinearOperatorPermutation(LinearOperator):
    """The permutation matrix ``P`` with ``(P @ x)[i] == x[perm[i]]``."""

    def __init__(self, perm: Any, dtype: Any = None, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None, is_square: Optional[bool] = None,
                 name: str = "LinearOperatorPermutation"):
        self._perm = _known(convert_to_tensor(perm), name, 1)
        if not self._perm.dtype.is_integer:
            raise TypeError(f"perm must be an integer tensor, got {self._perm.dtype.name}")
        super().__init__(_dtypes.as_dtype(dtype or _dtypes.float32), is_non_singular=True,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters={"perm": perm})

    @property
    def perm(self) -> Tensor:
        return self._perm

    def _shape(self) -> TensorShape:
        return self._perm.shape.concatenate([self._perm.shape[-1]])

    def _to_dense(self) -> Tensor:
        return A.one_hot(self._perm, self._perm.shape.as_list()[-1], dtype=self.dtype)

    def _solve(self, rhs: Tensor, adjoint: bool) -> Tensor:
        # P is orthogonal: P^-1 = P^T.
        return M.matmul(self._to_dense(), rhs, transpose_a=not adjoint)


class LinearOperatorToeplitz(LinearOperator):
    """The Toeplitz matrix with first column ``col`` and first row ``row`` (``row[0]`` is
    not read: the diagonal is ``col[0]``)."""

    def __init__(self, col: Any, row: Any, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None, is_square: Optional[bool] = None,
                 name: str = "LinearOperatorToeplitz"):
        self._col = _known(convert_to_tensor(col), name, 1)
        self._row = _known(convert_to_tensor(row, dtype=self._col.dtype), name, 1)
        if self._col.shape.as_list()[-1] != self._row.shape.as_list()[-1]:
            raise ValueError(f"col and row must have the same length, got {self._col.shape} "
                             f"and {self._row.shape}")
        super().__init__(self._col.dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters={"col": col, "row": row})

    def _shape(self) -> TensorShape:
        batch = broadcast_shape(self._col.shape[:-1], self._row.shape[:-1])
        n = self._col.shape.as_list()[-1]
        return batch.concatenate([n, n])

    def _to_dense(self) -> Tensor:
        n = self._col.shape.as_list()[-1]
        rank = self._row.shape.ndims
        tail = reverse(A.slice(self._row, [0] * (rank - 1) + [1], [-1] * rank), [-1])
        batch = self.batch_shape.as_list()
        values = A.concat([tail + A.zeros(batch + [n - 1], dtype=self.dtype),
                           self._col + A.zeros(batch + [n], dtype=self.dtype)], -1)
        i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
        return A.gather(values, (n - 1 + i - j).astype(np.int32), axis=len(batch))


class LinearOperatorTridiag(LinearOperator):
    """A square tridiagonal operator given by its diagonals, in the 'compact',
    'sequence' or 'matrix' format of ``tf.linalg.tridiagonal_matmul``."""

    def __init__(self, diagonals: Any, diagonals_format: str = "compact",
                 is_non_singular: Optional[bool] = None, is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None, is_square: Optional[bool] = None,
                 name: str = "LinearOperatorTridiag"):
        sup, main, sub = diagonals_of(diagonals, diagonals_format)
        self._main = _known(main, name, 1)
        self._compact = A.stack([sup, main, sub], axis=-2)
        self._format = diagonals_format
        self._diagonals = diagonals
        super().__init__(main.dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters={"diagonals": diagonals,
                                     "diagonals_format": diagonals_format})

    @property
    def diagonals(self) -> Any:
        return self._diagonals

    @property
    def diagonals_format(self) -> str:
        return self._format

    def _shape(self) -> TensorShape:
        return self._main.shape.concatenate([self._main.shape[-1]])

    def _to_dense(self) -> Tensor:
        n = self._main.shape.as_list()[-1]
        return tridiagonal_matmul(self._compact, eye(n, dtype=self.dtype))

    def _matmul(self, x: Tensor, adjoint: bool, adjoint_arg: bool) -> Tensor:
        if adjoint:
            return super()._matmul(x, adjoint, adjoint_arg)
        return tridiagonal_matmul(self._compact, adjoint_of(x) if adjoint_arg else x)

    def _solve(self, rhs: Tensor, adjoint: bool) -> Tensor:
        if adjoint or self.dtype.is_complex:
            return super()._solve(rhs, adjoint)
        return tridiagonal_solve(self._compact, rhs)


class LinearOperatorLowRankUpdate(LinearOperator):
    """``base_operator + U D V^H``: ``u`` ``[..., M, K]``, ``diag_update`` ``[..., K]``
    (default ones) and ``v`` (default ``u``)."""

    def __init__(self, base_operator: LinearOperator, u: Any, diag_update: Any = None,
                 v: Any = None, is_diag_update_positive: Optional[bool] = None,
                 is_non_singular: Optional[bool] = None, is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None, is_square: Optional[bool] = None,
                 name: str = "LinearOperatorLowRankUpdate"):
        self.base_operator = base_operator
        self._u = _known(convert_to_tensor(u, dtype=base_operator.dtype), name, 2)
        self._v = self._u if v is None else _known(convert_to_tensor(
            v, dtype=base_operator.dtype), name, 2)
        self._diag_update = None if diag_update is None else convert_to_tensor(
            diag_update, dtype=base_operator.dtype)
        if is_self_adjoint is None and v is None and base_operator.is_self_adjoint:
            is_self_adjoint = True
        super().__init__(base_operator.dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         name=name, parameters={"base_operator": base_operator, "u": u,
                                                "diag_update": diag_update, "v": v})

    @property
    def u(self) -> Tensor:
        return self._u

    @property
    def v(self) -> Tensor:
        return self._v

    @property
    def diag_update(self) -> Optional[Tensor]:
        return self._diag_update

    def _shape(self) -> TensorShape:
        return self.base_operator.shape

    def _to_dense(self) -> Tensor:
        u = self._u
        if self._diag_update is not None:
            u = M.multiply(u, A.expand_dims(self._diag_update, -2))
        return M.add(self.base_operator.to_dense(), M.matmul(u, self._v, adjoint_b=True))
