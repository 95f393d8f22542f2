"""Gradients of the matrix functions (``ops/matrix_functions.py``)."""

from __future__ import annotations

from typing import Any

from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops import matrix_functions as F

no_gradient("MatrixLogarithm")
no_gradient("MatrixExponentialGrad")
no_gradient("MatrixSquareRootGrad")


@register_gradient("MatrixExponential")
def _expm_grad(op: Any, grad: Any) -> Any:
    return F.expm_grad(op.inputs[0], grad)


@register_gradient("MatrixSquareRoot")
def _sqrtm_grad(op: Any, grad: Any) -> Any:
    return F.sqrtm_grad(op.outputs[0], grad)
