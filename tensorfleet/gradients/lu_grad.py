"""Gradient of the ``Lu`` op (``ops/lu_ops.py``) for square matrices: with
``P A = L U``, ``dA = P^T L^-T (tril(L^T dL, -1) + triu(dU U^T)) U^-T``."""

from __future__ import annotations

from typing import Any, List

from tensorfleet.gradients.registry import register_gradient
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.linalg_ops import matrix_band_part, matrix_triangular_solve, \
    matrix_transpose
from tensorfleet.ops.lu_ops import factors


@register_gradient("Lu")
def _lu_grad(op: Any, grad_lu: Any, grad_perm: Any = None) -> List[Any]:
    lower, upper = factors(op.outputs[0])
    lower_grad = matrix_band_part(grad_lu, -1, 0) - matrix_band_part(grad_lu, 0, 0)
    upper_grad = matrix_band_part(grad_lu, 0, -1)
    middle = (matrix_band_part(M.matmul(lower, lower_grad, transpose_a=True), -1, 0)
              - matrix_band_part(M.matmul(lower, lower_grad, transpose_a=True), 0, 0)
              + matrix_band_part(M.matmul(upper_grad, upper, transpose_b=True), 0, -1))
    # L^-T middle U^-T, by two triangular solves: (left U^-T)^T = U^-1 left^T.
    left = matrix_triangular_solve(lower, middle, lower=True, adjoint=True)
    grad_perm_a = matrix_transpose(matrix_triangular_solve(
        upper, matrix_transpose(left), lower=False))
    n = op.inputs[0].shape.as_list()[-1]
    perm = A.one_hot(op.outputs[1], n if n is not None else A.shape(op.inputs[0])[-1],
                     dtype=grad_lu.dtype)
    return [M.matmul(perm, grad_perm_a, transpose_a=True)]
