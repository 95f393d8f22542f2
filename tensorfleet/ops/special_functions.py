"""The special functions of ``tf.math.special`` (Bessel functions of the first, second
and modified kinds, Dawson's integral, the exponential integral, Fresnel integrals,
Spence's function) and the regularized incomplete gamma functions ``tf.math.igamma`` /
``igammac``, plus ``tf.math.erfcinv``.

Each function is one elementwise op with TensorFlow's type and default name
(``BesselJ0``, ``Dawsn``, ``Igamma`` ...), on float16/32/64 tensors; values come from
``scipy.special`` (kernels in ``kernels/numpy/special_function_kernels.py``).
"""

from __future__ import annotations

import math
from typing import Any, Optional

from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.ops.math_ops_core import multiply
from tensorfleet.ops.math_ops_special import _binary, _unary, ndtri
from tensorfleet.ops.op_util import broadcast_binary, same_shape

UNARY = {"BesselJ0": "bessel_j0", "BesselJ1": "bessel_j1", "BesselY0": "bessel_y0",
         "BesselY1": "bessel_y1", "BesselK0": "bessel_k0", "BesselK0e": "bessel_k0e",
         "BesselK1": "bessel_k1", "BesselK1e": "bessel_k1e", "Dawsn": "dawsn", "Expint": "expint",
         "FresnelCos": "fresnel_cos", "FresnelSin": "fresnel_sin", "Spence": "spence"}
for _t in UNARY:
    register_op(_t, same_shape)
for _t in ("Igamma", "Igammac", "IgammaGradA"):
    register_op(_t, broadcast_binary)


def bessel_j0(x: Any, name: Optional[str] = None) -> Tensor:
    """Bessel function of the first kind of order 0."""
    return _unary("BesselJ0", x, name)


def bessel_j1(x: Any, name: Optional[str] = None) -> Tensor:
    """Bessel function of the first kind of order 1."""
    return _unary("BesselJ1", x, name)


def bessel_y0(x: Any, name: Optional[str] = None) -> Tensor:
    """Bessel function of the second kind of order 0 (nan below 0, -inf at 0)."""
    return _unary("BesselY0", x, name)


def bessel_y1(x: Any, name: Optional[str] = None) -> Tensor:
    """Bessel function of the second kind of order 1 (nan below 0, -inf at 0)."""
    return _unary("BesselY1", x, name)


def bessel_k0(x: Any, name: Optional[str] = None) -> Tensor:
    """Modified Bessel function of the second kind of order 0."""
    return _unary("BesselK0", x, name)


def bessel_k0e(x: Any, name: Optional[str] = None) -> Tensor:
    """``exp(x) * bessel_k0(x)``."""
    return _unary("BesselK0e", x, name)


def bessel_k1(x: Any, name: Optional[str] = None) -> Tensor:
    """Modified Bessel function of the second kind of order 1."""
    return _unary("BesselK1", x, name)


def bessel_k1e(x: Any, name: Optional[str] = None) -> Tensor:
    """``exp(x) * bessel_k1(x)``."""
    return _unary("BesselK1e", x, name)


def dawsn(x: Any, name: Optional[str] = None) -> Tensor:
    """Dawson's integral ``exp(-x^2) * integral_0^x exp(t^2) dt``."""
    return _unary("Dawsn", x, name)


def expint(x: Any, name: Optional[str] = None) -> Tensor:
    """The exponential integral ``Ei(x)``."""
    return _unary("Expint", x, name)


def fresnel_cos(x: Any, name: Optional[str] = None) -> Tensor:
    """The Fresnel cosine integral ``integral_0^x cos(pi t^2 / 2) dt``."""
    return _unary("FresnelCos", x, name)


def fresnel_sin(x: Any, name: Optional[str] = None) -> Tensor:
    """The Fresnel sine integral ``integral_0^x sin(pi t^2 / 2) dt``."""
    return _unary("FresnelSin", x, name)


def spence(x: Any, name: Optional[str] = None) -> Tensor:
    """Spence's function ``integral_1^x log(t) / (1 - t) dt`` (nan below 0)."""
    return _unary("Spence", x, name)


def igamma(a: Any, x: Any, name: Optional[str] = None) -> Tensor:
    """The lower regularized incomplete gamma function ``P(a, x)``."""
    return _binary("Igamma", a, x, name, "Igamma", params=("a", "x"))


def igammac(a: Any, x: Any, name: Optional[str] = None) -> Tensor:
    """The upper regularized incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return _binary("Igammac", a, x, name, "Igammac", params=("a", "x"))


def igamma_grad_a(a: Any, x: Any, name: Optional[str] = None) -> Tensor:
    """``d igamma(a, x) / da``."""
    return _binary("IgammaGradA", a, x, name, "IgammaGradA", params=("a", "x"))


def erfcinv(x: Any, name: Optional[str] = None) -> Tensor:
    """The inverse of ``erfc``: ``-ndtri(x / 2) / sqrt(2)`` (±inf at 0 and 2)."""
    with name_scope(name, "erfcinv"):
        x = convert_to_tensor(x)
        half = convert_to_tensor(0.5, dtype=x.dtype)
        return multiply(ndtri(multiply(x, half)),
                        convert_to_tensor(-1.0 / math.sqrt(2.0), dtype=x.dtype))
