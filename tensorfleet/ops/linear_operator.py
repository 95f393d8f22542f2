"""``tf.linalg.LinearOperator``: a ``[..., M, N]`` matrix (or batch of them) known by what
it does rather than by its entries, and the operators built from others:
``LinearOperatorAdjoint``, ``LinearOperatorInversion`` and ``LinearOperatorComposition``.

A subclass says how to build its dense matrix from graph ops (``_to_dense``) and may do
products, solves and determinants more cheaply; everything else falls back to the dense
matrix, so each method differentiates through the ops it runs. Shapes must be known when
the graph is built.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.tensor_shape import TensorShape, broadcast_shape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.check_ops import assert_near, assert_positive
from tensorfleet.ops.complex_ops import conj
from tensorfleet.ops.linalg_ops import (cholesky, eye, matrix_triangular_solve, log_matrix_determinant, matrix_determinant,
                                        matrix_diag_part, matrix_solve, matrix_transpose,
                                        self_adjoint_eigvals, svd)


def adjoint_of(x: Tensor) -> Tensor:
    """The conjugate transpose of the innermost two axes."""
    return conj(matrix_transpose(x))


class LinearOperator:
    """The base class of TensorFlow's linear operators (``tf.linalg.LinearOperator``)."""

    def __init__(self, dtype: Any, graph_parents: Any = None,
                 is_non_singular: Optional[bool] = None, is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None, is_square: Optional[bool] = None,
                 name: Optional[str] = None, parameters: Any = None):
        if is_positive_definite and is_non_singular is False:
            raise ValueError("A positive definite operator is always non-singular.")
        self._dtype = dtype
        self._name = name or type(self).__name__
        self._is_non_singular = True if is_positive_definite else is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        self._is_square_hint = is_square
        self._parameters = dict(parameters or {})

    # -- what a subclass provides ------------------------------------------------------
    def _shape(self) -> TensorShape:
        raise TypeError(f"{type(self).__name__} does not say its shape")

    def _to_dense(self) -> Tensor:
        raise TypeError(f"{type(self).__name__} has no dense form")

    # -- facts -------------------------------------------------------------------------
    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def name(self) -> str:
        return self._name

    @property
    def parameters(self) -> dict:
        """The arguments the operator was built with."""
        return dict(self._parameters)

    @property
    def graph_parents(self) -> List[Any]:
        return []

    @property
    def shape(self) -> TensorShape:
        return self._shape()

    @property
    def batch_shape(self) -> TensorShape:
        return self.shape[:-2]

    @property
    def tensor_rank(self) -> Optional[int]:
        return self.shape.ndims

    @property
    def domain_dimension(self) -> Optional[int]:
        return self.shape.as_list()[-1]

    @property
    def range_dimension(self) -> Optional[int]:
        return self.shape.as_list()[-2]

    def shape_tensor(self, name: str = "shape_tensor") -> Tensor:
        """The shape as an int32 tensor."""
        return convert_to_tensor(np.asarray(self._static_dims(), np.int32), name=name)

    def batch_shape_tensor(self, name: str = "batch_shape_tensor") -> Tensor:
        return convert_to_tensor(np.asarray(self._static_dims()[:-2], np.int32), name=name)

    def tensor_rank_tensor(self, name: str = "tensor_rank_tensor") -> Tensor:
        return convert_to_tensor(len(self._static_dims()), name=name)

    def domain_dimension_tensor(self, name: str = "domain_dimension_tensor") -> Tensor:
        return convert_to_tensor(self._static_dims()[-1], name=name)

    def range_dimension_tensor(self, name: str = "range_dimension_tensor") -> Tensor:
        return convert_to_tensor(self._static_dims()[-2], name=name)

    def _static_dims(self) -> List[int]:
        dims = self.shape.as_list()
        if any(d is None for d in dims):
            raise ValueError(f"{self.name}: the shape {self.shape} is not fully known")
        return dims

    @property
    def is_non_singular(self) -> Optional[bool]:
        return self._is_non_singular

    @property
    def is_self_adjoint(self) -> Optional[bool]:
        return self._is_self_adjoint

    @property
    def is_positive_definite(self) -> Optional[bool]:
        return self._is_positive_definite

    @property
    def is_square(self) -> Optional[bool]:
        dims = self.shape.as_list()
        if dims[-1] is not None and dims[-2] is not None:
            return dims[-1] == dims[-2]
        return self._is_square_hint

    # -- what it does --------------------------------------------------------------------
    def to_dense(self, name: str = "to_dense") -> Tensor:
        """The operator as a dense ``[..., M, N]`` tensor."""
        with name_scope(self.name):
            with name_scope(name):
                return self._to_dense()

    def matmul(self, x: Any, adjoint: bool = False, adjoint_arg: bool = False,
               name: str = "matmul") -> Any:
        """``op @ x`` (``op^H`` with ``adjoint``, ``x^H`` with ``adjoint_arg``); another
        operator gives their composition."""
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            return LinearOperatorComposition([left, right])
        with name_scope(self.name):
            with name_scope(name):
                return self._matmul(convert_to_tensor(x, dtype=self.dtype), adjoint,
                                    adjoint_arg)

    def _matmul(self, x: Tensor, adjoint: bool, adjoint_arg: bool) -> Tensor:
        return M.matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def __matmul__(self, other: Any) -> Any:
        return self.matmul(other)

    def matvec(self, x: Any, adjoint: bool = False, name: str = "matvec") -> Tensor:
        """``op @ x`` for vectors ``x`` ``[..., N]``."""
        x = convert_to_tensor(x, dtype=self.dtype)
        return A.squeeze(self.matmul(A.expand_dims(x, -1), adjoint=adjoint, name=name), [-1])

    def solve(self, rhs: Any, adjoint: bool = False, adjoint_arg: bool = False,
              name: str = "solve") -> Any:
        """``X`` with ``op @ X == rhs`` (``op^H`` with ``adjoint``)."""
        if isinstance(rhs, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = rhs.adjoint() if adjoint_arg else rhs
            return LinearOperatorComposition([left.inverse(), right])
        self._need_square("solve")
        if self.is_non_singular is False:
            raise ValueError(f"{self.name} is singular; it has no solve")
        with name_scope(self.name):
            with name_scope(name):
                r = convert_to_tensor(rhs, dtype=self.dtype)
                return self._solve(adjoint_of(r) if adjoint_arg else r, adjoint)

    def _solve(self, rhs: Tensor, adjoint: bool) -> Tensor:
        dense = self.to_dense()
        return matrix_solve(adjoint_of(dense) if adjoint else dense, rhs)

    def solvevec(self, rhs: Any, adjoint: bool = False, name: str = "solve") -> Tensor:
        """``solve`` for vectors ``rhs`` ``[..., M]``."""
        r = convert_to_tensor(rhs, dtype=self.dtype)
        return A.squeeze(self.solve(A.expand_dims(r, -1), adjoint=adjoint, name=name), [-1])

    def _need_square(self, what: str) -> None:
        if self.is_square is False:
            raise ValueError(f"{what} needs a square operator; {self.name} is {self.shape}")

    def determinant(self, name: str = "det") -> Tensor:
        """The determinant of each square matrix."""
        self._need_square("determinant")
        with name_scope(self.name):
            with name_scope(name):
                return self._determinant()

    def _determinant(self) -> Tensor:
        return matrix_determinant(self.to_dense())

    def log_abs_determinant(self, name: str = "log_abs_det") -> Tensor:
        """``log |det(op)|``."""
        self._need_square("log_abs_determinant")
        with name_scope(self.name):
            with name_scope(name):
                return self._log_abs_determinant()

    def _log_abs_determinant(self) -> Tensor:
        return log_matrix_determinant(self.to_dense())[1]

    def diag_part(self, name: str = "diag_part") -> Tensor:
        """The main diagonal ``[..., min(M, N)]``."""
        with name_scope(self.name):
            with name_scope(name):
                return self._diag_part()

    def _diag_part(self) -> Tensor:
        return matrix_diag_part(self.to_dense())

    def trace(self, name: str = "trace") -> Tensor:
        """The sum of the main diagonal."""
        return M.reduce_sum(self.diag_part(), -1, name=name)

    def add_to_tensor(self, x: Any, name: str = "add_to_tensor") -> Tensor:
        """``op + x`` as a dense tensor."""
        with name_scope(self.name):
            with name_scope(name):
                return M.add(self.to_dense(), convert_to_tensor(x, dtype=self.dtype))

    def adjoint(self, name: str = "adjoint") -> "LinearOperator":
        """The conjugate transpose as an operator."""
        if self.is_self_adjoint:
            return self
        return LinearOperatorAdjoint(self)

    H = property(adjoint)

    def inverse(self, name: str = "inverse") -> "LinearOperator":
        """The inverse as an operator."""
        self._need_square("inverse")
        if self.is_non_singular is False:
            raise ValueError(f"{self.name} is singular; it has no inverse")
        return LinearOperatorInversion(self)

    def cholesky(self, name: str = "cholesky") -> "LinearOperator":
        """The lower Cholesky factor as an operator (self-adjoint positive definite
        operators only)."""
        if not (self.is_self_adjoint and self.is_positive_definite):
            raise ValueError("Cholesky decomposition is only defined for self-adjoint "
                             "positive definite operators (set both hints).")
        return _CholeskyFactor(self)

    def eigvals(self, name: str = "eigvals") -> Tensor:
        """The eigenvalues (self-adjoint operators only)."""
        if not self.is_self_adjoint:
            raise ValueError("eigvals needs a self-adjoint operator (is_self_adjoint=True)")
        return self_adjoint_eigvals(self.to_dense())

    def cond(self, name: str = "cond") -> Tensor:
        """The condition number: largest over smallest singular value."""
        s = svd(self.to_dense(), compute_uv=False)
        return M.div(M.reduce_max(s, -1), M.reduce_min(s, -1), name=name)

    def assert_non_singular(self, name: str = "assert_non_singular") -> Any:
        """An op that fails at run time when a matrix is singular."""
        return assert_positive(M.abs(self.determinant()),
                               message=f"{self.name} is singular")

    def assert_positive_definite(self, name: str = "assert_positive_definite") -> Any:
        """An op that fails at run time unless every eigenvalue is positive."""
        return assert_positive(self_adjoint_eigvals(self.to_dense()),
                               message=f"{self.name} is not positive definite")

    def assert_self_adjoint(self, name: str = "assert_self_adjoint") -> Any:
        """An op that fails at run time unless the operator equals its adjoint."""
        dense = self.to_dense()
        return assert_near(dense, adjoint_of(dense), message=f"{self.name} is not self-adjoint")


def _check_same_dtype(operators: Sequence[LinearOperator]) -> Any:
    if not operators:
        raise ValueError("at least one operator is needed")
    dts = {op.dtype for op in operators}
    if len(dts) != 1:
        raise TypeError(f"the operators must share a dtype, got {sorted(d.name for d in dts)}")
    return operators[0].dtype


class LinearOperatorAdjoint(LinearOperator):
    """The conjugate transpose of another operator."""

    def __init__(self, operator: LinearOperator, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None, is_square: Optional[bool] = None,
                 name: Optional[str] = None):
        self.operator = operator
        super().__init__(operator.dtype,
                         is_non_singular=operator.is_non_singular if is_non_singular is None
                         else is_non_singular,
                         is_self_adjoint=operator.is_self_adjoint if is_self_adjoint is None
                         else is_self_adjoint,
                         is_positive_definite=operator.is_positive_definite
                         if is_positive_definite is None else is_positive_definite,
                         is_square=is_square, name=name or operator.name + "_adjoint",
                         parameters={"operator": operator})

    def _shape(self) -> TensorShape:
        s = self.operator.shape
        return s[:-2].concatenate([s[-1], s[-2]])

    def _to_dense(self) -> Tensor:
        return adjoint_of(self.operator.to_dense())

    def _matmul(self, x: Tensor, adjoint: bool, adjoint_arg: bool) -> Tensor:
        return self.operator.matmul(x, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs: Tensor, adjoint: bool) -> Tensor:
        return self.operator.solve(rhs, adjoint=not adjoint)

    def _determinant(self) -> Tensor:
        return conj(self.operator.determinant())

    def _log_abs_determinant(self) -> Tensor:
        return self.operator.log_abs_determinant()


class LinearOperatorInversion(LinearOperator):
    """The inverse of another (square, non-singular) operator: products are its solves."""

    def __init__(self, operator: LinearOperator, is_non_singular: Optional[bool] = None,
                 is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None, is_square: Optional[bool] = None,
                 name: Optional[str] = None):
        if operator.is_non_singular is False or is_non_singular is False:
            raise ValueError("An inverse of a singular operator does not exist.")
        operator._need_square("LinearOperatorInversion")
        self.operator = operator
        super().__init__(operator.dtype, is_non_singular=True,
                         is_self_adjoint=operator.is_self_adjoint if is_self_adjoint is None
                         else is_self_adjoint,
                         is_positive_definite=operator.is_positive_definite
                         if is_positive_definite is None else is_positive_definite,
                         is_square=True, name=name or operator.name + "_inverse",
                         parameters={"operator": operator})

    def _shape(self) -> TensorShape:
        return self.operator.shape

    def _to_dense(self) -> Tensor:
        dims = self._static_dims()
        identity = eye(dims[-1], batch_shape=dims[:-2] or None, dtype=self.dtype)
        return self.operator.solve(identity)

    def _matmul(self, x: Tensor, adjoint: bool, adjoint_arg: bool) -> Tensor:
        return self.operator.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs: Tensor, adjoint: bool) -> Tensor:
        return self.operator.matmul(rhs, adjoint=adjoint)

    def _determinant(self) -> Tensor:
        return M.reciprocal(self.operator.determinant())

    def _log_abs_determinant(self) -> Tensor:
        return M.negative(self.operator.log_abs_determinant())


class LinearOperatorComposition(LinearOperator):
    """The product ``op_1 @ op_2 @ ... @ op_k`` of operators, applied right to left."""

    def __init__(self, operators: Sequence[LinearOperator],
                 is_non_singular: Optional[bool] = None, is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None, is_square: Optional[bool] = None,
                 name: Optional[str] = None):
        ops = list(operators)
        dtype = _check_same_dtype(ops)
        for left, right in zip(ops, ops[1:]):
            a, b = left.shape.as_list()[-1], right.shape.as_list()[-2]
            if a is not None and b is not None and a != b:
                raise ValueError(f"cannot compose {left.shape} with {right.shape}")
        self.operators = ops
        if is_non_singular is None and all(op.is_non_singular for op in ops):
            is_non_singular = True
        super().__init__(dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         name=name or "_o_".join(op.name for op in ops),
                         parameters={"operators": ops})

    def _shape(self) -> TensorShape:
        batch = self.operators[0].batch_shape
        for op in self.operators[1:]:
            batch = broadcast_shape(batch, op.batch_shape)
        return batch.concatenate([self.operators[0].shape[-2], self.operators[-1].shape[-1]])

    def _to_dense(self) -> Tensor:
        out = self.operators[-1].to_dense()
        for op in reversed(self.operators[:-1]):
            out = op.matmul(out)
        return out

    def _matmul(self, x: Tensor, adjoint: bool, adjoint_arg: bool) -> Tensor:
        ops = self.operators if not adjoint else list(reversed(self.operators))
        out = ops[-1].matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for op in reversed(ops[:-1]):
            out = op.matmul(out, adjoint=adjoint)
        return out

    def _solve(self, rhs: Tensor, adjoint: bool) -> Tensor:
        if not all(op.is_square is not False for op in self.operators):
            return super()._solve(rhs, adjoint)
        out = rhs
        # (A B C)^-1 = C^-1 B^-1 A^-1: solve with the leftmost first; adjoint reverses.
        order = self.operators if not adjoint else list(reversed(self.operators))
        for op in order:
            out = op.solve(out, adjoint=adjoint)
        return out

    def _determinant(self) -> Tensor:
        out = self.operators[0].determinant()
        for op in self.operators[1:]:
            out = M.multiply(out, op.determinant())
        return out

    def _log_abs_determinant(self) -> Tensor:
        out = self.operators[0].log_abs_determinant()
        for op in self.operators[1:]:
            out = M.add(out, op.log_abs_determinant())
        return out


class _CholeskyFactor(LinearOperator):
    """The lower Cholesky factor ``L`` of a self-adjoint positive definite operator."""

    def __init__(self, operator: LinearOperator):
        self.operator = operator
        super().__init__(operator.dtype, is_non_singular=True, is_square=True,
                         name=operator.name + "_cholesky")

    def _shape(self) -> TensorShape:
        return self.operator.shape

    def _to_dense(self) -> Tensor:
        return cholesky(self.operator.to_dense())

    def _solve(self, rhs: Tensor, adjoint: bool) -> Tensor:
        return matrix_triangular_solve(self.to_dense(), rhs, lower=True, adjoint=adjoint)

    def _determinant(self) -> Tensor:
        return M.reduce_prod(matrix_diag_part(self.to_dense()), -1)

    def _log_abs_determinant(self) -> Tensor:
        return M.reduce_sum(M.log(M.abs(matrix_diag_part(self.to_dense()))), -1)
