"""``tf.linalg`` functions built from existing ops: ``cross``, ``normalize``,
least squares (``lstsq`` / ``tf.matrix_solve_ls``), ``pinv`` and ``matrix_rank``.
Their gradients follow from the ops they are made of."""

from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.linalg_ops import eye, matrix_solve, matrix_transpose, norm, svd
from tensorfleet.ops.math_ops_reduce import reduce_max, reduce_sum


def _float(x: Any, what: str) -> Tensor:
    t = convert_to_tensor(x)
    if not t.dtype.is_floating:
        raise TypeError(f"{what}: expected a float tensor, got {t.dtype.name}")
    return t


def cross(a: Any, b: Any, name: Optional[str] = None) -> Tensor:
    """The cross product of the 3-vectors along the last dimension of ``a`` and ``b``.

    Raises:
      ValueError: a last dimension other than 3, or shapes that differ.
    """
    with name_scope(name, "Cross"):
        x, y = convert_to_tensor(a, name="a"), convert_to_tensor(b, name="b")
        for t, what in ((x, "a"), (y, "b")):
            if t.shape.ndims is not None and t.shape[-1] not in (None, 3):
                raise ValueError(f"cross: the last dimension of {what} must be 3, got "
                                 f"{t.shape}")
        if not x.shape.is_compatible_with(y.shape):
            raise ValueError(f"cross: a and b must have the same shape, got {x.shape} and "
                             f"{y.shape}")
        ax = [A.gather(x, i, axis=-1) for i in range(3)]
        by = [A.gather(y, i, axis=-1) for i in range(3)]
        return A.stack([ax[1] * by[2] - ax[2] * by[1], ax[2] * by[0] - ax[0] * by[2],
                        ax[0] * by[1] - ax[1] * by[0]], axis=-1)


def normalize(tensor: Any, ord: Any = "euclidean", axis: Any = None,  # noqa: A002
              name: Optional[str] = None) -> Tuple[Tensor, Tensor]:
    """``(tensor / norm, norm)``, the norm as ``tf.norm`` computes it (kept dims)."""
    with name_scope(name, "normalize"):
        x = _float(tensor, "normalize")
        n = norm(x, ord=ord, axis=axis, keepdims=True)
        return x / n, n


def matrix_solve_ls(matrix: Any, rhs: Any, l2_regularizer: float = 0.0, fast: bool = True,
                    name: Optional[str] = None) -> Tensor:
    """The least-squares solution ``X`` of ``matrix @ X = rhs`` for each matrix of the
    batch, with ridge term ``l2_regularizer * ||X||^2``: through the normal equations
    (``fast``), or through the pseudo-inverse (``fast=False``, which also handles
    rank-deficient matrices without a regularizer).

    Raises:
      ValueError: a negative ``l2_regularizer``, ``fast=False`` with a regularizer (as
        TensorFlow), or matrix dimensions unknown when the graph is built.
    """
    if l2_regularizer < 0:
        raise ValueError(f"matrix_solve_ls: l2_regularizer must be >= 0, got {l2_regularizer}")
    with name_scope(name, "matrix_solve_ls"):
        a = _float(matrix, "matrix_solve_ls")
        b = convert_to_tensor(rhs, dtype=a.dtype, name="rhs")
        if not fast:
            if l2_regularizer:
                raise ValueError("matrix_solve_ls: fast=False does not take an l2_regularizer")
            return M.matmul(pinv(a), b)
        m, n = (a.shape[-2], a.shape[-1]) if a.shape.ndims else (None, None)
        if m is None or n is None:
            raise ValueError(f"matrix_solve_ls: the matrix dimensions must be known, got "
                             f"{a.shape}")
        at = matrix_transpose(a)
        if m >= n:
            gram = M.matmul(at, a) + l2_regularizer * eye(n, dtype=a.dtype)
            return matrix_solve(gram, M.matmul(at, b))
        gram = M.matmul(a, at) + l2_regularizer * eye(m, dtype=a.dtype)
        return M.matmul(at, matrix_solve(gram, b))


def lstsq(matrix: Any, rhs: Any, l2_regularizer: float = 0.0, fast: bool = True,
          name: Optional[str] = None) -> Tensor:
    """``tf.linalg.lstsq``: see ``matrix_solve_ls``."""
    return matrix_solve_ls(matrix, rhs, l2_regularizer, fast, name)


def _cutoff(s: Tensor, a: Tensor, rcond: Any) -> Tensor:
    m, n = a.shape[-2], a.shape[-1]
    if rcond is None:
        if m is None or n is None:
            raise ValueError(f"pinv: the matrix dimensions must be known for the default "
                             f"rcond, got {a.shape}")
        rcond = 10.0 * max(m, n) * np.finfo(a.dtype.np).eps
    return rcond * reduce_max(s, axis=-1, keepdims=True)


def pinv(a: Any, rcond: Any = None, validate_args: bool = False,
         name: Optional[str] = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse of each matrix, from its SVD; singular values
    below ``rcond`` times the largest count as zero."""
    with name_scope(name, "pinv"):
        x = _float(a, "pinv")
        s, u, v = svd(x)
        big = M.greater(s, _cutoff(s, x, rcond))
        inv_s = A.where(big, 1.0 / A.where(big, s, A.ones_like(s)), A.zeros_like(s))
        return M.matmul(v * A.expand_dims(inv_s, -2), u, adjoint_b=True)


def matrix_rank(a: Any, tol: Any = None, validate_args: bool = False,
                name: Optional[str] = None) -> Tensor:
    """The number of singular values of each matrix above ``tol`` (by default
    ``10 * max(rows, cols) * eps`` times the largest), as int32."""
    with name_scope(name, "matrix_rank"):
        x = _float(a, "matrix_rank")
        s = svd(x, compute_uv=False)
        cut = _cutoff(s, x, None) if tol is None else convert_to_tensor(tol, dtype=x.dtype)
        return reduce_sum(A.cast(M.greater(s, cut), "int32"), axis=-1)
