"""``tf.linalg.experimental.conjugate_gradient``: solves ``A x = rhs`` for a self-adjoint
positive definite ``LinearOperator`` by (preconditioned) conjugate gradients, unrolled for
``max_iter`` steps; a system whose residual norm is at most ``tol`` stops changing."""

from __future__ import annotations

import collections
from typing import Any, Optional

from tensorfleet.framework.graph import convert_to_tensor, name_scope
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.array_transform_ops import broadcast_to
from tensorfleet.ops.complex_ops import conj
from tensorfleet.ops.linear_operator import LinearOperator

CGState = collections.namedtuple("CGState", ["i", "x", "r", "p", "gamma"])


def _dot(a: Any, b: Any) -> Any:
    return M.reduce_sum(M.multiply(conj(a), b), -1, keepdims=True)


def conjugate_gradient(operator: LinearOperator, rhs: Any,
                       preconditioner: Optional[LinearOperator] = None, x: Any = None,
                       tol: float = 1e-5, max_iter: int = 20,
                       name: str = "conjugate_gradient") -> CGState:
    """The state after conjugate-gradient iterations: ``i`` (iterations run), ``x`` (the
    solution), ``r`` (the residual ``rhs - A x``), ``p`` (the search direction) and
    ``gamma``."""
    if not isinstance(operator, LinearOperator):
        raise TypeError("conjugate_gradient takes a tf.linalg.LinearOperator")
    if not (operator.is_self_adjoint and operator.is_positive_definite):
        raise ValueError("conjugate_gradient needs a self-adjoint positive definite operator "
                         "(set is_self_adjoint and is_positive_definite)")
    if int(max_iter) < 0:
        raise ValueError(f"max_iter must be non-negative, got {max_iter}")
    with name_scope(name):
        b = convert_to_tensor(rhs, dtype=operator.dtype)
        x0 = A.zeros_like(b) if x is None else convert_to_tensor(x, dtype=operator.dtype)
        precond = (lambda v: v) if preconditioner is None else preconditioner.matvec
        r = b - operator.matvec(x0)
        p = precond(r)
        gamma = _dot(r, p)
        xs = x0
        i = A.zeros([], dtype="int32")
        tol_t = convert_to_tensor(tol, dtype=operator.dtype.real_dtype)
        for _ in range(int(max_iter)):
            active = M.greater(M.sqrt(M.reduce_sum(M.square(M.abs(r)), -1, keepdims=True)),
                               tol_t)
            z = operator.matvec(p)
            pz = _dot(p, z)
            safe = A.where(active, pz, A.ones_like(pz))
            alpha = M.div(gamma, safe)
            new_x = xs + alpha * p
            new_r = r - alpha * z
            q = precond(new_r)
            new_gamma = _dot(new_r, q)
            beta = M.div(new_gamma, A.where(active, gamma, A.ones_like(gamma)))
            new_p = q + beta * p
            keep = broadcast_to(active, A.shape(xs))
            xs, r, p = (A.where(keep, new_x, xs), A.where(keep, new_r, r),
                        A.where(keep, new_p, p))
            gamma = A.where(active, new_gamma, gamma)
            i = i + A.cast(M.reduce_any(active), "int32")
        return CGState(i, xs, r, p, A.squeeze(gamma, [-1]))
