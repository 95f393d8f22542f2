"""Tridiagonal systems: ``tf.linalg.tridiagonal_matmul``, ``tridiagonal_solve`` and
``eigh_tridiagonal``.

The diagonals come in TensorFlow's three formats: 'compact' (``[..., 3, M]``: the
superdiagonal, whose last entry is unused, the diagonal, and the subdiagonal, whose first
entry is unused), 'sequence' (a tuple of those three ``[..., M]`` tensors) and 'matrix'
(``[..., M, M]``, of which only the three diagonals are read). The product is composed of
elementwise ops; the solve is the ``TridiagonalSolve`` op (LAPACK's banded solver through
scipy) whose gradient is a solve with the transposed system.
"""

from __future__ import annotations

import collections
from typing import Any, List, Optional, Tuple

import numpy as np

from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, unknown_shape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.complex_ops import conj
from tensorfleet.ops.linalg_ops import matrix_diag_part, matrix_transpose
from tensorfleet.ops.op_util import make_op, make_tensor


def transposed_compact(compact: Tensor) -> Tensor:
    """The compact diagonals of ``T^T`` from those of ``T``."""
    sup, main, sub = A.unstack(compact, num=3, axis=-2)
    rank = sup.shape.ndims
    n = sup.shape.as_list()[-1]
    new_sup = A.pad(A.slice(sub, [0] * (rank - 1) + [1], [-1] * (rank - 1) + [n - 1]),
                    [[0, 0]] * (rank - 1) + [[0, 1]])
    new_sub = A.pad(A.slice(sup, [0] * rank, [-1] * (rank - 1) + [n - 1]),
                    [[0, 0]] * (rank - 1) + [[1, 0]])
    return A.stack([new_sup, main, new_sub], axis=-2)


def _solve_shape(op: Any) -> List[TensorShape]:
    return [op.inputs[1].shape]


register_op("TridiagonalSolve", _solve_shape)
register_op("EighTridiagonal", lambda op: [unknown_shape() for _ in op.outputs])


def _shift_down(x: Tensor, axis_len: int) -> Tensor:
    """Row i of the result is row i - 1 of ``x`` (zeros in row 0), along axis -2."""
    rank = x.shape.ndims
    return A.pad(A.slice(x, [0] * rank, [-1] * (rank - 2) + [axis_len - 1, -1]),
                 [[0, 0]] * (rank - 2) + [[1, 0], [0, 0]])


def _shift_up(x: Tensor, axis_len: int) -> Tensor:
    rank = x.shape.ndims
    return A.pad(A.slice(x, [0] * (rank - 2) + [1, 0], [-1] * rank),
                 [[0, 0]] * (rank - 2) + [[0, 1], [0, 0]])


def diagonals_of(diagonals: Any, diagonals_format: str) -> Tuple[Tensor, Tensor, Tensor]:
    """``(superdiag, maindiag, subdiag)``, each ``[..., M]``, from any of the formats."""
    if diagonals_format == "compact":
        d = convert_to_tensor(diagonals)
        if d.shape.ndims is None or d.shape.ndims < 2 or d.shape.as_list()[-2] not in (3, None):
            raise ValueError(f"compact diagonals must be [..., 3, M], got shape {d.shape}")
        parts = A.unstack(d, num=3, axis=-2)
        return parts[0], parts[1], parts[2]
    if diagonals_format == "sequence":
        if not isinstance(diagonals, (list, tuple)) or len(diagonals) != 3:
            raise ValueError("sequence diagonals must be a tuple of three tensors "
                             "(superdiagonal, diagonal, subdiagonal)")
        sup, main, sub = (convert_to_tensor(t) for t in diagonals)
        return sup, main, sub
    if diagonals_format == "matrix":
        m = convert_to_tensor(diagonals)
        n = m.shape.as_list()[-1] if m.shape.ndims else None
        if n is None:
            raise ValueError(f"matrix diagonals need a known size, got shape {m.shape}")
        rank = m.shape.ndims
        main = matrix_diag_part(m)
        if n == 1:
            zero = A.zeros_like(main)
            return zero, main, zero
        upper = matrix_diag_part(A.slice(m, [0] * (rank - 2) + [0, 1], [-1] * (rank - 2)
                                         + [n - 1, n - 1]))
        lower = matrix_diag_part(A.slice(m, [0] * (rank - 2) + [1, 0], [-1] * (rank - 2)
                                         + [n - 1, n - 1]))
        pad_end = [[0, 0]] * (rank - 2) + [[0, 1]]
        pad_start = [[0, 0]] * (rank - 2) + [[1, 0]]
        return A.pad(upper, pad_end), main, A.pad(lower, pad_start)
    raise ValueError(f"diagonals_format must be 'compact', 'sequence' or 'matrix', got "
                     f"{diagonals_format!r}")


def tridiagonal_matmul(diagonals: Any, rhs: Any, diagonals_format: str = "compact",
                       name: Optional[str] = None) -> Tensor:
    """``T @ rhs`` for the tridiagonal ``[..., M, M]`` matrix ``T`` given by its
    diagonals, ``rhs`` ``[..., M, N]``."""
    with name_scope(name, "tridiagonal_matmul"):
        sup, main, sub = diagonals_of(diagonals, diagonals_format)
        r = convert_to_tensor(rhs)
        n = r.shape.as_list()[-2] if r.shape.ndims is not None and r.shape.ndims >= 2 else None
        if n is None:
            raise ValueError(f"rhs must be [..., M, N] with M known, got shape {r.shape}")
        col = lambda d: A.expand_dims(d, -1)  # noqa: E731
        # Row i: sub[i] x[i-1] + main[i] x[i] + sup[i] x[i+1].
        return (col(main) * r + col(sub) * _shift_down(r, n) + col(sup) * _shift_up(r, n))


def tridiagonal_solve(diagonals: Any, rhs: Any, diagonals_format: str = "compact",
                      transpose_rhs: bool = False, conjugate_rhs: bool = False,
                      name: Optional[str] = None, partial_pivoting: bool = True,
                      perturb_singular: bool = False) -> Tensor:
    """``X`` with ``T @ X == rhs`` for a tridiagonal ``T``; ``rhs`` is ``[..., M, K]``
    (or ``[..., M]`` for one right-hand side; ``[..., K, M]`` with ``transpose_rhs``).

    Raises:
      ValueError: ``perturb_singular`` (TensorFlow's option to perturb zero pivots) is not
        supported; a singular system fails at run time instead.
    """
    if perturb_singular:
        raise ValueError("tridiagonal_solve: perturb_singular=True is not supported; "
                         "singular systems raise InvalidArgumentError")
    with name_scope(name, "tridiagonal_solve"):
        sup, main, sub = diagonals_of(diagonals, diagonals_format)
        r = convert_to_tensor(rhs)
        if r.dtype.is_complex:
            raise TypeError("tridiagonal_solve takes real tensors")
        vector = r.shape.ndims is not None and r.shape.ndims == main.shape.ndims
        if vector:
            r = A.expand_dims(r, -1)
        elif transpose_rhs:
            r = matrix_transpose(r)
        if conjugate_rhs:
            r = conj(r)
        compact = A.stack([sup, main, sub], axis=-2)
        out = make_tensor("TridiagonalSolve", [compact, r], r.dtype,
                          {"partial_pivoting": bool(partial_pivoting)},
                          name="TridiagonalSolve")
        return A.squeeze(out, [-1]) if vector else out


EighTridiagonal = collections.namedtuple("EighTridiagonal", ["eigenvalues", "eigenvectors"])


def eigh_tridiagonal(alpha: Any, beta: Any, eigvals_only: bool = True, select: str = "a",
                     select_range: Any = None, tol: Optional[float] = None,
                     name: Optional[str] = None) -> Any:
    """Eigenvalues (ascending) and, unless ``eigvals_only``, eigenvectors (as columns) of
    the symmetric tridiagonal matrix with diagonal ``alpha`` ``[n]`` and off-diagonal
    ``beta`` ``[n - 1]``; ``select`` 'a' (all), 'v' (values in ``select_range``) or 'i'
    (indices ``select_range[0]..select_range[1]``), as LAPACK's stebz. ``tol`` bounds the
    eigenvalues' absolute error (default: machine precision)."""
    a = convert_to_tensor(alpha)
    b = convert_to_tensor(beta)
    if a.dtype.name not in ("float32", "float64") or b.dtype is not a.dtype:
        raise TypeError(f"alpha and beta must be float32 or float64 of one dtype, got "
                        f"{a.dtype.name} and {b.dtype.name}")
    if select not in ("a", "v", "i"):
        raise ValueError(f"select must be 'a', 'v' or 'i', got {select!r}")
    rng = [0.0, 0.0]
    if select != "a":
        if select_range is None or len(select_range) != 2:
            raise ValueError("select 'v' or 'i' needs select_range (lo, hi)")
        rng = [float(v) for v in select_range]
    attrs = {"eigvals_only": bool(eigvals_only), "select": select,
             "select_range": rng, "tol": -1.0 if tol is None else float(tol)}
    outs = [a.dtype] if eigvals_only else [a.dtype, a.dtype]
    op = make_op("EighTridiagonal", [a, b], outs, attrs, name=name or "eigh_tridiagonal")
    if eigvals_only:
        return op.outputs[0]
    return EighTridiagonal(op.outputs[0], op.outputs[1])
