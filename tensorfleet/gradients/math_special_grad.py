"""Gradients of the trigonometric, hyperbolic and special-function ops
(``ops/math_ops_special.py``).

Binary ops sum their gradients back to each input's shape with ``math_grad.sum_to``,
as the arithmetic ops do. ``Rint`` is piecewise constant and has none; ``Polygamma``
has none with respect to its order ``a``, as in TensorFlow.
"""

from __future__ import annotations

import math
from typing import Any, List

from tensorfleet.gradients.math_grad import sum_to
from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import math_ops_special as S
from tensorfleet.ops.array_ops import cast, ones_like, where, zeros_like

no_gradient("Rint")
no_gradient("TruncateDiv")

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0
_SQRT_TWO_PI = math.sqrt(2.0 * math.pi)


def _one_minus_square(x: Any) -> Any:
    return M.subtract(ones_like(x), M.square(x))


@register_gradient("Tan")
def _tan_grad(op: Any, grad: Any) -> Any:
    return M.multiply(grad, M.square(M.reciprocal(M.cos(op.inputs[0]))))


@register_gradient("Sinh")
def _sinh_grad(op: Any, grad: Any) -> Any:
    return M.multiply(grad, S.cosh(op.inputs[0]))


@register_gradient("Cosh")
def _cosh_grad(op: Any, grad: Any) -> Any:
    return M.multiply(grad, S.sinh(op.inputs[0]))


@register_gradient("Asin")
def _asin_grad(op: Any, grad: Any) -> Any:
    return M.multiply(grad, M.rsqrt(_one_minus_square(op.inputs[0])))


@register_gradient("Acos")
def _acos_grad(op: Any, grad: Any) -> Any:
    return M.negative(M.multiply(grad, M.rsqrt(_one_minus_square(op.inputs[0]))))


@register_gradient("Atan")
def _atan_grad(op: Any, grad: Any) -> Any:
    x = op.inputs[0]
    return M.realdiv(grad, M.add(ones_like(x), M.square(x)))


@register_gradient("Asinh")
def _asinh_grad(op: Any, grad: Any) -> Any:
    return M.realdiv(grad, S.cosh(op.outputs[0]))


@register_gradient("Acosh")
def _acosh_grad(op: Any, grad: Any) -> Any:
    return M.realdiv(grad, S.sinh(op.outputs[0]))


@register_gradient("Atanh")
def _atanh_grad(op: Any, grad: Any) -> Any:
    return M.realdiv(grad, _one_minus_square(op.inputs[0]))


@register_gradient("Atan2")
def _atan2_grad(op: Any, grad: Any) -> List[Any]:
    y, x = op.inputs
    scaled = M.realdiv(grad, M.add(M.square(x), M.square(y)))
    return [sum_to(M.multiply(x, scaled), y, x.shape),
            sum_to(M.negative(M.multiply(y, scaled)), x, y.shape)]


def _gauss(x: Any) -> Any:
    """``2/sqrt(pi) * exp(-x^2)``: the derivative of ``erf``."""
    return M.multiply(M.exp(M.negative(M.square(x))), _TWO_OVER_SQRT_PI)


@register_gradient("Erf")
def _erf_grad(op: Any, grad: Any) -> Any:
    return M.multiply(grad, _gauss(op.inputs[0]))


@register_gradient("Erfc")
def _erfc_grad(op: Any, grad: Any) -> Any:
    return M.negative(M.multiply(grad, _gauss(op.inputs[0])))


@register_gradient("Lgamma")
def _lgamma_grad(op: Any, grad: Any) -> Any:
    return M.multiply(grad, S.digamma(op.inputs[0]))


@register_gradient("Digamma")
def _digamma_grad(op: Any, grad: Any) -> Any:
    x = op.inputs[0]
    return M.multiply(grad, S.polygamma(ones_like(x), x))


@register_gradient("Polygamma")
def _polygamma_grad(op: Any, grad: Any) -> List[Any]:
    a, x = op.inputs
    higher = S.polygamma(M.add(a, ones_like(a)), x)
    return [None, sum_to(M.multiply(grad, higher), x, a.shape)]


@register_gradient("DivNoNan")
def _div_no_nan_grad(op: Any, grad: Any) -> List[Any]:
    x, y = op.inputs
    gx = S.div_no_nan(grad, y)
    gy = M.multiply(grad, S.div_no_nan(S.div_no_nan(M.negative(x), y), y))
    return [sum_to(gx, x, y.shape), sum_to(gy, y, x.shape)]


@register_gradient("Erfinv")
def _erfinv_grad(op: Any, grad: Any) -> Any:
    return M.multiply(grad, M.multiply(M.exp(M.square(op.outputs[0])), _SQRT_PI_OVER_TWO))


@register_gradient("Ndtri")
def _ndtri_grad(op: Any, grad: Any) -> Any:
    half_square = M.multiply(M.square(op.outputs[0]), 0.5)
    return M.multiply(grad, M.multiply(M.exp(half_square), _SQRT_TWO_PI))


def _x_is_nonzero(x: Any) -> Any:
    return cast(M.not_equal(x, zeros_like(x)), x.dtype)


@register_gradient("Xlogy")
def _xlogy_grad(op: Any, grad: Any) -> List[Any]:
    x, y = op.inputs
    gx = M.multiply(grad, S.xlogy(_x_is_nonzero(x), y))
    gy = M.multiply(grad, S.xdivy(x, y))
    return [sum_to(gx, x, y.shape), sum_to(gy, y, x.shape)]


@register_gradient("Xdivy")
def _xdivy_grad(op: Any, grad: Any) -> List[Any]:
    x, y = op.inputs
    gx = M.multiply(grad, S.xdivy(_x_is_nonzero(x), y))
    gy = M.multiply(grad, S.xdivy(M.negative(x), M.square(y)))
    return [sum_to(gx, x, y.shape), sum_to(gy, y, x.shape)]


@register_gradient("MulNoNan")
def _mul_no_nan_grad(op: Any, grad: Any) -> List[Any]:
    x, y = op.inputs
    gx = S.multiply_no_nan(grad, y)
    gy = S.multiply_no_nan(x, grad)
    return [sum_to(gx, x, y.shape), sum_to(gy, y, x.shape)]


@register_gradient("Zeta")
def _zeta_grad(op: Any, grad: Any) -> List[Any]:
    # d/dq zeta(x, q) = -x * zeta(x + 1, q); like TensorFlow, none with respect to x.
    x, q = op.inputs
    partial_q = M.negative(M.multiply(x, S.zeta(M.add(x, ones_like(x)), q)))
    return [None, sum_to(M.multiply(grad, partial_q), q, x.shape)]


@register_gradient("Betainc")
def _betainc_grad(op: Any, grad: Any) -> List[Any]:
    # Only d/dx, the density of the beta distribution, as in TensorFlow:
    # x^(a-1) (1-x)^(b-1) / Beta(a, b), taken in log space.
    a, b, x = op.inputs
    one = ones_like(a)
    log_beta = M.subtract(M.add(S.lgamma(a), S.lgamma(b)), S.lgamma(M.add(a, b)))
    log_density = M.subtract(
        M.add(M.multiply(M.subtract(b, one), M.log1p(M.negative(x))),
              M.multiply(M.subtract(a, one), M.log(x))), log_beta)
    return [None, None, sum_to(M.multiply(grad, M.exp(log_density)), x, op.outputs[0].shape)]


no_gradient("NextAfter")


@register_gradient("BesselI0e")
def _bessel_i0e_grad(op: Any, grad: Any) -> Any:
    # d/dx exp(-|x|) I0(x) = i1e(x) - sign(x) i0e(x)
    x, y = op.inputs[0], op.outputs[0]
    return M.multiply(grad, M.subtract(S.bessel_i1e(x), M.multiply(M.sign(x), y)))


@register_gradient("BesselI1e")
def _bessel_i1e_grad(op: Any, grad: Any) -> Any:
    # d/dx exp(-|x|) I1(x) = i0e(x) - i1e(x) / x - sign(x) i1e(x), which is 1/2 at 0.
    x, y = op.inputs[0], op.outputs[0]
    nonzero = M.not_equal(x, zeros_like(x))
    safe_x = where(nonzero, x, ones_like(x))
    core = where(nonzero, M.subtract(S.bessel_i0e(x), M.divide(y, safe_x)),
                 M.multiply(ones_like(x), 0.5))
    return M.multiply(grad, M.subtract(core, M.multiply(M.sign(x), y)))
