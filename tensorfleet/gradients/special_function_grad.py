"""Gradients of the special functions (``ops/special_functions.py``), from their
derivative identities (``J0' = -J1``, ``Ei'(x) = e^x / x`` ...), as TensorFlow defines
them."""

from __future__ import annotations

import math
from typing import Any, List

from tensorfleet.gradients.math_grad import sum_to
from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import special_functions as F
from tensorfleet.ops.array_ops import ones_like, where
from tensorfleet.ops.math_ops_special import lgamma

no_gradient("IgammaGradA")


def _unary(op_type: str, deriv: Any) -> None:
    def grad_fn(op: Any, grad: Any) -> Any:
        return M.multiply(grad, deriv(op.inputs[0], op.outputs[0]))
    register_gradient(op_type)(grad_fn)


_unary("BesselJ0", lambda x, y: M.negative(F.bessel_j1(x)))
_unary("BesselJ1", lambda x, y: M.subtract(F.bessel_j0(x), M.div(y, x)))
_unary("BesselY0", lambda x, y: M.negative(F.bessel_y1(x)))
_unary("BesselY1", lambda x, y: M.subtract(F.bessel_y0(x), M.div(y, x)))
_unary("BesselK0", lambda x, y: M.negative(F.bessel_k1(x)))
_unary("BesselK0e", lambda x, y: M.subtract(y, F.bessel_k1e(x)))
_unary("BesselK1", lambda x, y: M.negative(M.add(F.bessel_k0(x), M.div(y, x))))
_unary("BesselK1e", lambda x, y: M.subtract(M.multiply(y, M.subtract(ones_like(x),
                                                                     M.reciprocal(x))),
                                            F.bessel_k0e(x)))
_unary("Dawsn", lambda x, y: M.subtract(ones_like(x), M.multiply(M.multiply(x, y), 2.0)))
_unary("Expint", lambda x, y: M.div(M.exp(x), x))
_unary("FresnelCos", lambda x, y: M.cos(M.multiply(M.square(x), math.pi / 2)))
_unary("FresnelSin", lambda x, y: M.sin(M.multiply(M.square(x), math.pi / 2)))


@register_gradient("Spence")
def _spence_grad(op: Any, grad: Any) -> Any:
    x = op.inputs[0]
    one = ones_like(x)
    # log(x) / (1 - x), whose limit at x = 1 is -1.
    at_one = M.equal(x, one)
    safe = where(at_one, M.multiply(one, 2.0), x)
    deriv = M.div(M.log(safe), M.subtract(one, safe))
    return M.multiply(grad, where(at_one, M.negative(one), deriv))


def _dlower_dx(a: Any, x: Any) -> Any:
    """d P(a, x) / dx = x^(a-1) e^(-x) / Gamma(a)."""
    return M.exp(M.subtract(M.subtract(M.multiply(M.subtract(a, 1.0), M.log(x)), x),
                            lgamma(a)))


@register_gradient("Igamma")
def _igamma_grad(op: Any, grad: Any) -> List[Any]:
    a, x = op.inputs
    return [sum_to(M.multiply(grad, F.igamma_grad_a(a, x)), a, x.shape),
            sum_to(M.multiply(grad, _dlower_dx(a, x)), x, a.shape)]


@register_gradient("Igammac")
def _igammac_grad(op: Any, grad: Any) -> List[Any]:
    a, x = op.inputs
    return [sum_to(M.negative(M.multiply(grad, F.igamma_grad_a(a, x))), a, x.shape),
            sum_to(M.negative(M.multiply(grad, _dlower_dx(a, x))), x, a.shape)]
