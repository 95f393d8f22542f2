"""Gradients of the complex-number ops (``ops/complex_ops.py``).

As in TensorFlow, the gradient of a real loss with respect to a complex tensor
``z = x + iy`` is ``dL/dx + i dL/dy``.
"""

from __future__ import annotations

from typing import Any, List

from tensorfleet.gradients.math_grad import sum_to
from tensorfleet.gradients.registry import register_gradient
from tensorfleet.ops import complex_ops as C
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import math_ops_special as S
from tensorfleet.ops.array_ops import zeros_like


@register_gradient("Real")
def _real_grad(op: Any, grad: Any) -> Any:
    return C.complex(grad, zeros_like(grad))


@register_gradient("Imag")
def _imag_grad(op: Any, grad: Any) -> Any:
    return C.complex(zeros_like(grad), grad)


@register_gradient("Complex")
def _complex_grad(op: Any, grad: Any) -> List[Any]:
    x, y = op.inputs
    return [sum_to(C.real(grad), x, y.shape), sum_to(C.imag(grad), y, x.shape)]


@register_gradient("Conj")
def _conj_grad(op: Any, grad: Any) -> Any:
    return C.conj(grad)


@register_gradient("ComplexAbs")
def _complex_abs_grad(op: Any, grad: Any) -> Any:
    # d|z| = z / |z| (zero where z is zero), scaled by the real incoming gradient.
    z, r = op.inputs[0], op.outputs[0]
    scale = S.div_no_nan(grad, r)
    return M.multiply(z, C.complex(scale, zeros_like(scale)))


@register_gradient("Angle")
def _angle_grad(op: Any, grad: Any) -> Any:
    # d angle(z) = (x dy - y dx) / |z|^2 = the real part of -grad / (y + ix) paired
    # with the imaginary one.
    z = op.inputs[0]
    inv = M.reciprocal(C.complex(C.imag(z), C.real(z)))
    return M.negative(M.multiply(C.complex(grad, zeros_like(grad)), inv))
