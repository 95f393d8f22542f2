"""LU decompositions: ``tf.linalg.lu`` (the ``Lu`` op: packed factors and a row
permutation, batched) and what is built from one, ``lu_reconstruct``, ``lu_solve`` and
``lu_matrix_inverse``, composed of triangular solves and products so their gradients are
those ops'.

``perm`` says which input row lands in each row: ``input[..., perm, :] == L @ U`` with
``L`` the unit lower triangle of ``lower_upper`` and ``U`` its upper triangle.
"""

from __future__ import annotations

import collections
from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, control_dependencies, convert_to_tensor, \
    name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.check_ops import assert_less, assert_non_negative
from tensorfleet.ops.linalg_ops import (eye, matrix_band_part, matrix_diag_part, matrix_set_diag,
                                        matrix_triangular_solve)
from tensorfleet.ops.op_util import make_op

Lu = collections.namedtuple("Lu", ["lu", "p"])


def _lu_shape(op: Any) -> List[TensorShape]:
    s = op.inputs[0].shape
    return [s, s[:-1] if s.ndims is not None else s]


register_op("Lu", _lu_shape)


def lu(input: Any, output_idx_type: Any = _dtypes.int32,  # noqa: A002
       name: Optional[str] = None) -> Lu:
    """The LU decomposition with partial pivoting of each ``[..., M, M]`` matrix:
    ``(lu, p)``, the factors packed in one matrix and the row permutation."""
    x = convert_to_tensor(input)
    if not x.dtype.is_floating:
        raise TypeError(f"lu takes a float tensor, got {x.dtype.name}")
    idx = _dtypes.as_dtype(output_idx_type)
    if idx not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"output_idx_type must be int32 or int64, got {idx.name}")
    dims = x.shape.as_list() if x.shape.ndims is not None else None
    if dims is not None and (len(dims) < 2 or (None not in dims[-2:] and dims[-1] != dims[-2])):
        raise ValueError(f"lu needs square matrices, got shape {x.shape}")
    op = make_op("Lu", [x], [x.dtype, idx], {"output_idx_type": idx}, name=name or "Lu")
    return Lu(op.outputs[0], op.outputs[1])


def factors(lower_upper: Tensor) -> tuple:
    """``(L, U)`` of a packed LU matrix (``L`` with its unit diagonal)."""
    lower = matrix_band_part(lower_upper, -1, 0)
    ones = A.ones_like(matrix_diag_part(lower_upper))
    return matrix_set_diag(lower, ones), matrix_band_part(lower_upper, 0, -1)


def _permutation(perm: Tensor, n: Any, dtype: Any) -> Tensor:
    """``P`` with ``(P @ X)[i] == X[perm[i]]``."""
    return A.one_hot(perm, n, dtype=dtype)


def _checked(lower_upper: Any, perm: Any, validate_args: bool) -> tuple:
    lu_t = convert_to_tensor(lower_upper)
    p = convert_to_tensor(perm)
    if not lu_t.dtype.is_floating:
        raise TypeError(f"lower_upper must be a float tensor, got {lu_t.dtype.name}")
    if not p.dtype.is_integer:
        raise TypeError(f"perm must be an integer tensor, got {p.dtype.name}")
    if validate_args:
        n = A.cast(A.shape(lu_t)[-1], p.dtype)
        checks = [assert_non_negative(p, message="perm has a negative entry"),
                  assert_less(p, n, message="perm has an entry past the matrix size")]
        with control_dependencies(checks):
            lu_t = A.identity(lu_t)
    return lu_t, p


def _size(lu_t: Tensor) -> Any:
    dim = lu_t.shape.as_list()[-1] if lu_t.shape.ndims is not None else None
    return dim if dim is not None else A.shape(lu_t)[-1]


def lu_reconstruct(lower_upper: Any, perm: Any, validate_args: bool = False,
                   name: Optional[str] = None) -> Tensor:
    """The matrix whose ``lu`` is ``(lower_upper, perm)``."""
    with name_scope(name, "lu_reconstruct"):
        lu_t, p = _checked(lower_upper, perm, validate_args)
        lower, upper = factors(lu_t)
        return M.matmul(_permutation(p, _size(lu_t), lu_t.dtype), M.matmul(lower, upper),
                        transpose_a=True)


def lu_solve(lower_upper: Any, perm: Any, rhs: Any, validate_args: bool = False,
             name: Optional[str] = None) -> Tensor:
    """``X`` with ``A @ X == rhs`` for the ``A`` whose LU decomposition is given."""
    with name_scope(name, "lu_solve"):
        lu_t, p = _checked(lower_upper, perm, validate_args)
        lower, upper = factors(lu_t)
        permuted = M.matmul(_permutation(p, _size(lu_t), lu_t.dtype), rhs)
        y = matrix_triangular_solve(lower, permuted, lower=True)
        return matrix_triangular_solve(upper, y, lower=False)


def lu_matrix_inverse(lower_upper: Any, perm: Any, validate_args: bool = False,
                      name: Optional[str] = None) -> Tensor:
    """The inverse of the ``A`` whose LU decomposition is given."""
    with name_scope(name, "lu_matrix_inverse"):
        lu_t = convert_to_tensor(lower_upper)
        n = _size(lu_t)
        if not isinstance(n, int):
            raise ValueError("lu_matrix_inverse needs the matrix size known when the graph "
                             f"is built, got shape {lu_t.shape}")
        identity = eye(n, dtype=lu_t.dtype)
        return lu_solve(lu_t, perm, identity + A.zeros_like(lu_t), validate_args)
