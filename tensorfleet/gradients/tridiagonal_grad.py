"""Gradient of ``TridiagonalSolve`` (``ops/tridiagonal_ops.py``): with ``T X = B``,
``dB = T^-T dX`` and ``dT = -dB X^T`` read on the three diagonals."""

from __future__ import annotations

from typing import Any, List

from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import tridiagonal_ops as T
from tensorfleet.ops.op_util import make_tensor

no_gradient("EighTridiagonal")


@register_gradient("TridiagonalSolve")
def _solve_grad(op: Any, grad: Any) -> List[Any]:
    diags, x = op.inputs[0], op.outputs[0]
    grad_rhs = make_tensor("TridiagonalSolve", [T.transposed_compact(diags), grad], grad.dtype,
                           {"partial_pivoting": op.attrs["partial_pivoting"]},
                           name="TridiagonalSolveGrad")
    n = x.shape.as_list()[-2]
    # -sum_k dB[i, k] X[j, k] for j = i + 1, i, i - 1.
    main = -M.reduce_sum(grad_rhs * x, -1)
    sup = -M.reduce_sum(grad_rhs * T._shift_up(x, n), -1)
    sub = -M.reduce_sum(grad_rhs * T._shift_down(x, n), -1)
    grad_diags = A.stack([sup, main, sub], axis=-2)
    return [grad_diags, grad_rhs]
