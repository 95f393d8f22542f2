"""Linear operators assembled from others: ``LinearOperatorBlockDiag``,
``LinearOperatorBlockLowerTriangular`` and ``LinearOperatorKronecker``, and the circulant
operators ``LinearOperatorCirculant`` / ``Circulant2D`` / ``Circulant3D`` given by their
spectrum (``tf.linalg``)."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.tensor_shape import TensorShape, broadcast_shape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import complex_ops as C
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.linalg_ops import eye
from tensorfleet.ops.linear_operator import LinearOperator, _check_same_dtype, adjoint_of
from tensorfleet.ops.spectral_ops import fftnd, ifftnd


def _batch_of(operators: Sequence[LinearOperator]) -> TensorShape:
    batch = operators[0].batch_shape
    for op in operators[1:]:
        batch = broadcast_shape(batch, op.batch_shape)
    return batch


def _dims(op: LinearOperator) -> List[int]:
    dims = op.shape.as_list()
    if any(d is None for d in dims):
        raise ValueError(f"{op.name}: its shape {op.shape} must be fully known")
    return dims


def _dense_in(op: LinearOperator, batch: List[int]) -> Tensor:
    dense = op.to_dense()
    dims = _dims(op)
    return dense + A.zeros(batch + dims[-2:], dtype=op.dtype) if dims[:-2] != batch else dense


class LinearOperatorBlockDiag(LinearOperator):
    """The block-diagonal operator with ``operators`` on its diagonal."""

    def __init__(self, operators: Sequence[LinearOperator],
                 is_non_singular: Optional[bool] = None, is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None, is_square: Optional[bool] = True,
                 name: Optional[str] = None):
        self.operators = list(operators)
        dtype = _check_same_dtype(self.operators)
        if is_non_singular is None and all(o.is_non_singular for o in self.operators):
            is_non_singular = True
        if is_self_adjoint is None and all(o.is_self_adjoint for o in self.operators):
            is_self_adjoint = True
        if is_positive_definite is None and all(o.is_positive_definite
                                                for o in self.operators):
            is_positive_definite = True
        super().__init__(dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         name=name or "_ds_".join(o.name for o in self.operators),
                         parameters={"operators": self.operators})

    def _shape(self) -> TensorShape:
        rows = sum(_dims(o)[-2] for o in self.operators)
        cols = sum(_dims(o)[-1] for o in self.operators)
        return _batch_of(self.operators).concatenate([rows, cols])

    def _to_dense(self) -> Tensor:
        batch = _batch_of(self.operators).as_list()
        cols = sum(_dims(o)[-1] for o in self.operators)
        rows, start = [], 0
        for op in self.operators:
            r, c = _dims(op)[-2:]
            pad = [[0, 0]] * len(batch) + [[0, 0], [start, cols - start - c]]
            rows.append(A.pad(_dense_in(op, batch), pad))
            start += c
        return A.concat(rows, -2)

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


class LinearOperatorBlockLowerTriangular(LinearOperator):
    """The block lower-triangular operator whose row ``i`` holds the ``i + 1`` operators
    ``operators[i]`` (the last of each row on the diagonal)."""

    def __init__(self, operators: Sequence[Sequence[LinearOperator]],
                 is_non_singular: Optional[bool] = None, is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None, is_square: Optional[bool] = None,
                 name: str = "LinearOperatorBlockLowerTriangular"):
        self.operators = [list(row) for row in operators]
        for i, row in enumerate(self.operators):
            if len(row) != i + 1:
                raise ValueError(f"row {i} of a block lower-triangular operator must hold "
                                 f"{i + 1} operators, got {len(row)}")
        dtype = _check_same_dtype([o for row in self.operators for o in row])
        diag = [row[-1] for row in self.operators]
        if is_non_singular is None and all(o.is_non_singular for o in diag):
            is_non_singular = True
        super().__init__(dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters={"operators": self.operators})

    def _shape(self) -> TensorShape:
        diag = [row[-1] for row in self.operators]
        n = sum(_dims(o)[-1] for o in diag)
        return _batch_of([o for row in self.operators for o in row]).concatenate([n, n])

    def _to_dense(self) -> Tensor:
        batch = self.batch_shape.as_list()
        widths = [_dims(row[-1])[-1] for row in self.operators]
        total = sum(widths)
        rows = []
        for row in self.operators:
            blocks = [_dense_in(op, batch) for op in row]
            used = sum(widths[:len(row)])
            if used < total:
                height = _dims(row[-1])[-2]
                blocks.append(A.zeros(batch + [height, total - used], dtype=self.dtype))
            rows.append(A.concat(blocks, -1))
        return A.concat(rows, -2)

    def _determinant(self) -> Tensor:
        out = self.operators[0][-1].determinant()
        for row in self.operators[1:]:
            out = M.multiply(out, row[-1].determinant())
        return out

    def _log_abs_determinant(self) -> Tensor:
        out = self.operators[0][-1].log_abs_determinant()
        for row in self.operators[1:]:
            out = M.add(out, row[-1].log_abs_determinant())
        return out


class LinearOperatorKronecker(LinearOperator):
    """The Kronecker product ``op_1 (x) op_2 (x) ... (x) op_k``."""

    def __init__(self, operators: Sequence[LinearOperator],
                 is_non_singular: Optional[bool] = None, is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None, is_square: Optional[bool] = None,
                 name: Optional[str] = None):
        self.operators = list(operators)
        dtype = _check_same_dtype(self.operators)
        if is_non_singular is None and all(o.is_non_singular for o in self.operators):
            is_non_singular = True
        super().__init__(dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         name=name or "_x_".join(o.name for o in self.operators),
                         parameters={"operators": self.operators})

    def _shape(self) -> TensorShape:
        rows = int(np.prod([_dims(o)[-2] for o in self.operators]))
        cols = int(np.prod([_dims(o)[-1] for o in self.operators]))
        return _batch_of(self.operators).concatenate([rows, cols])

    def _to_dense(self) -> Tensor:
        batch = self.batch_shape.as_list()
        out = _dense_in(self.operators[0], batch)
        r, c = _dims(self.operators[0])[-2:]
        for op in self.operators[1:]:
            p, q = _dims(op)[-2:]
            b = _dense_in(op, batch)
            # kron(A, B)[i p + k, j q + l] = A[i, j] B[k, l]
            prod = M.multiply(A.expand_dims(A.expand_dims(out, -1), -3),
                              A.expand_dims(A.expand_dims(b, -3), -2))
            r, c = r * p, c * q
            out = A.reshape(prod, batch + [r, c])
        return out


class _Circulant(LinearOperator):
    """A (block-)circulant operator ``F^-1 diag(spectrum) F`` over the last ``rank`` axes
    of ``spectrum``."""

    _RANK = 1

    def __init__(self, spectrum: Any, input_output_dtype: Any = _dtypes.complex64,
                 is_non_singular: Optional[bool] = None, is_self_adjoint: Optional[bool] = None,
                 is_positive_definite: Optional[bool] = None, is_square: bool = True,
                 name: Optional[str] = None):
        s = convert_to_tensor(spectrum)
        if not s.dtype.is_complex:
            s = C.complex(s, A.zeros_like(s)) if s.dtype.name in ("float32", "float64") \
                else s
        if not s.dtype.is_complex:
            raise TypeError(f"spectrum must be a float or complex tensor, got {s.dtype.name}")
        if s.shape.ndims is None or s.shape.ndims < self._RANK or not s.shape.is_fully_defined():
            raise ValueError(f"spectrum needs rank >= {self._RANK} and a known shape, got "
                             f"{s.shape}")
        self._spectrum = s
        out = _dtypes.as_dtype(input_output_dtype)
        if not (out.is_complex or out.is_floating):
            raise TypeError(f"input_output_dtype must be float or complex, got {out.name}")
        super().__init__(out, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True,
                         name=name or type(self).__name__,
                         parameters={"spectrum": spectrum,
                                     "input_output_dtype": input_output_dtype})

    @property
    def spectrum(self) -> Tensor:
        return self._spectrum

    def _block(self) -> List[int]:
        return self._spectrum.shape.as_list()[-self._RANK:]

    def _shape(self) -> TensorShape:
        n = int(np.prod(self._block()))
        return self._spectrum.shape[:-self._RANK].concatenate([n, n])

    def _to_dense(self) -> Tensor:
        block = self._block()
        n = int(np.prod(block))
        batch = self.batch_shape.as_list()
        k = len(batch)
        basis = A.reshape(eye(n, dtype=self._spectrum.dtype), [n] + block)
        # Column j of the operator is ifft(spectrum * fft(e_j)).
        axes = list(range(-self._RANK, 0))
        spec = A.expand_dims(self._spectrum, k)  # [..., 1, *block]
        cols = ifftnd(M.multiply(spec, fftnd(basis, axes=axes)), axes=axes)
        dense = A.reshape(cols, batch + [n, n])  # [..., j, i]
        dense = A.transpose(dense, list(range(k)) + [k + 1, k])
        if not self.dtype.is_complex:
            dense = C.real(dense)
        if dense.dtype is not self.dtype:
            dense = A.cast(dense, self.dtype)
        return dense

    def _spectral_apply(self, x: Tensor, adjoint: bool, inverse: bool) -> Tensor:
        """``op @ x`` (or ``op^-1 @ x``) by FFTs: each column of ``x`` reshaped to the
        block shape, transformed, scaled by the spectrum and transformed back."""
        block = self._block()
        dims = x.shape.as_list()
        if any(d is None for d in dims):
            raise ValueError(f"{self.name}: the argument's shape {x.shape} must be known")
        k = len(dims) - 2
        cols = A.transpose(x, list(range(k)) + [k + 1, k])
        z = cols if cols.dtype.is_complex else A.cast(cols, self._spectrum.dtype)
        z = A.reshape(z, dims[:-2] + [dims[-1]] + block)
        spec = C.conj(self._spectrum) if adjoint else self._spectrum
        spec = A.expand_dims(spec, -self._RANK - 1)
        axes = list(range(-self._RANK, 0))
        freq = fftnd(z, axes=axes)
        freq = M.div(freq, spec) if inverse else M.multiply(freq, spec)
        out = A.reshape(ifftnd(freq, axes=axes), dims[:-2] + [dims[-1], dims[-2]])
        out = A.transpose(out, list(range(k)) + [k + 1, k])
        return out if self.dtype.is_complex else A.cast(C.real(out), self.dtype)

    def _matmul(self, x: Tensor, adjoint: bool, adjoint_arg: bool) -> Tensor:
        return self._spectral_apply(adjoint_of(x) if adjoint_arg else x, adjoint, False)

    def _solve(self, rhs: Tensor, adjoint: bool) -> Tensor:
        return self._spectral_apply(rhs, adjoint, True)

    def _determinant(self) -> Tensor:
        det = M.reduce_prod(A.reshape(self._spectrum, self.batch_shape.as_list() + [-1]), -1)
        return det if self.dtype.is_complex else A.cast(C.real(det), self.dtype)

    def _log_abs_determinant(self) -> Tensor:
        mags = M.abs(A.reshape(self._spectrum, self.batch_shape.as_list() + [-1]))
        return A.cast(M.reduce_sum(M.log(mags), -1), self.dtype)


class LinearOperatorCirculant(_Circulant):
    """The circulant operator whose eigenvalues are ``spectrum`` ``[..., N]`` (its first
    column is ``ifft(spectrum)``)."""

    _RANK = 1


class LinearOperatorCirculant2D(_Circulant):
    """The block-circulant operator with circulant blocks of ``spectrum``
    ``[..., N0, N1]`` (2-D convolutions with periodic boundaries)."""

    _RANK = 2


class LinearOperatorCirculant3D(_Circulant):
    """The doubly-block-circulant operator of ``spectrum`` ``[..., N0, N1, N2]``."""

    _RANK = 3
