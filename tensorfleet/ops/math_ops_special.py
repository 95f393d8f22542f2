"""Trigonometric, hyperbolic and special functions, and the small composites beside
them: ``tf.tan`` ... ``tf.atanh``, ``tf.atan2``, ``tf.erf``, ``tf.erfc``, ``tf.lgamma``,
``tf.digamma``, ``tf.polygamma``, ``tf.rint``, ``tf.div_no_nan``, ``tf.log_sigmoid``,
``tf.scalar_mul``, ``tf.math.erfinv``, ``tf.math.ndtri``, ``tf.math.xlogy``,
``tf.math.xdivy``, ``tf.math.multiply_no_nan``, ``tf.math.reciprocal_no_nan``,
``tf.truncatediv``, ``tf.truncatemod``, ``tf.floor_div``, ``tf.is_tensor``, ``tf.lbeta``,
``tf.zeta``, ``tf.betainc``, ``tf.math.bessel_i0`` / ``bessel_i0e`` / ``bessel_i1`` /
``bessel_i1e``, ``tf.math.nextafter`` and ``tf.math.polyval``.

Each elementwise function is one op whose type and default name are TensorFlow's
(``Tan``, ``Atan2``, ``DivNoNan`` named ``div_no_nan``, ...); they take floating-point
tensors only, as TensorFlow's CPU kernels do for real inputs, and say so otherwise. The
truncating integer ops take what TensorFlow 1.x registers them for: ``TruncateDiv``
integers, ``TruncateMod`` integers and floats.
"""

from __future__ import annotations

from typing import Any, List, Optional, Union

from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.framework.tensor_shape import TensorShape, broadcast_shape
from tensorfleet.framework.op_registry import register_op
from tensorfleet.ops.math_ops_core import abs as _abs, add, exp, multiply, negative, subtract
from tensorfleet.ops.math_ops_reduce import reduce_sum
from tensorfleet.ops.nn_ops import softplus
from tensorfleet.ops.array_ops import ones_like
from tensorfleet.ops.op_util import broadcast_binary, convert_pair, make_tensor, same_shape
from tensorfleet.ops.variables import Variable

_UNARY = {"Tan": "tan", "Sinh": "sinh", "Cosh": "cosh", "Asin": "asin", "Acos": "acos",
          "Atan": "atan", "Asinh": "asinh", "Acosh": "acosh", "Atanh": "atanh", "Erf": "erf",
          "Erfc": "erfc", "Lgamma": "lgamma", "Digamma": "digamma", "Rint": "rint",
          "Erfinv": "erfinv", "Ndtri": "ndtri", "BesselI0e": "bessel_i0e",
          "BesselI1e": "bessel_i1e"}
_BINARY = ["Atan2", "DivNoNan", "Polygamma", "Xlogy", "Xdivy", "MulNoNan", "TruncateDiv",
           "TruncateMod", "Zeta", "NextAfter"]

for _t in _UNARY:
    register_op(_t, same_shape)
for _t in _BINARY:
    register_op(_t, broadcast_binary)


def _ternary_shape(op: Any) -> List[TensorShape]:
    a, b, x = (t.shape for t in op.inputs)
    return [broadcast_shape(broadcast_shape(a, b), x)]


register_op("Betainc", _ternary_shape)


def _float_only(x: Tensor, op_type: str, param: str = "x") -> None:
    if x.dtype.np.kind != "f":
        raise TypeError(f"Value passed to parameter '{param}' of op '{op_type}' has DataType "
                        f"{x.dtype.name} not in the list of allowed types for it "
                        "(float16, float32, float64)")


def _unary(op_type: str, x: Any, name: Optional[str]) -> Tensor:
    x = convert_to_tensor(x)
    _float_only(x, op_type)
    return make_tensor(op_type, [x], x.dtype, name=name or op_type)


def _binary(op_type: str, x: Any, y: Any, name: Optional[str], default: str,
            params: tuple = ("x", "y"), kinds: str = "f") -> Tensor:
    x, y = convert_pair(x, y)
    if x.dtype.np.kind not in kinds:
        allowed = {"f": "float16, float32, float64", "iu": "integer types",
                   "iuf": "integer and floating-point types"}[kinds]
        raise TypeError(f"Value passed to parameter '{params[0]}' of op '{op_type}' has "
                        f"DataType {x.dtype.name} not in the list of allowed types for it "
                        f"({allowed})")
    return make_tensor(op_type, [x, y], x.dtype, name=name or default)


def tan(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise tangent."""
    return _unary("Tan", x, name)


def sinh(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise hyperbolic sine."""
    return _unary("Sinh", x, name)


def cosh(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise hyperbolic cosine."""
    return _unary("Cosh", x, name)


def asin(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise arcsine; nan outside ``[-1, 1]``."""
    return _unary("Asin", x, name)


def acos(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise arccosine; nan outside ``[-1, 1]``."""
    return _unary("Acos", x, name)


def atan(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise arctangent."""
    return _unary("Atan", x, name)


def asinh(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise inverse hyperbolic sine."""
    return _unary("Asinh", x, name)


def acosh(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise inverse hyperbolic cosine; nan below 1."""
    return _unary("Acosh", x, name)


def atanh(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise inverse hyperbolic tangent; ±inf at ±1, nan beyond."""
    return _unary("Atanh", x, name)


def atan2(y: Any, x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise angle of the point ``(x, y)``, in ``[-pi, pi]``, with broadcasting."""
    return _binary("Atan2", y, x, name, "Atan2", ("y", "x"))


def erf(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise Gauss error function."""
    return _unary("Erf", x, name)


def erfc(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise complementary error function ``1 - erf(x)``, exact in the tail."""
    return _unary("Erfc", x, name)


def lgamma(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``log|Gamma(x)|``; inf at the poles (0, -1, -2, ...)."""
    return _unary("Lgamma", x, name)


def digamma(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise derivative of ``lgamma``; nan at the poles (0, -1, -2, ...)."""
    return _unary("Digamma", x, name)


def polygamma(a: Any, x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``a``-th derivative of ``digamma`` at ``x``, with broadcasting.

    ``a`` is a float tensor holding non-negative integers; elsewhere the result is
    nan, as in TensorFlow.
    """
    return _binary("Polygamma", a, x, name, "Polygamma", ("a", "x"))


def rint(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise rounding to the nearest integer, halves to even (``-0.5 -> -0.``)."""
    return _unary("Rint", x, name)


def div_no_nan(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x / y`` that is 0 wherever ``y`` is 0, with broadcasting."""
    return _binary("DivNoNan", x, y, name, "div_no_nan")


def divide_no_nan(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """``tf.math.divide_no_nan``: :func:`div_no_nan` under its ``tf.math`` name."""
    return div_no_nan(x, y, name=name)


def log_sigmoid(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``log(sigmoid(x))`` computed as ``-softplus(-x)``, stable for large |x|.

    The result is named ``LogSigmoid`` by default, as in TensorFlow.
    """
    x = convert_to_tensor(x, name="x")
    _float_only(x, "LogSigmoid")
    return negative(softplus(negative(x)), name=name or "LogSigmoid")


def scalar_mul(scalar: Any, x: Any, name: Optional[str] = None
               ) -> Union[Tensor, IndexedSlices]:
    """``scalar * x`` for a 0-D ``scalar``; an ``IndexedSlices`` ``x`` stays sparse."""
    values = x.values if isinstance(x, IndexedSlices) else convert_to_tensor(x)
    scalar = convert_to_tensor(scalar, dtype=values.dtype, name="scalar")
    if scalar.shape.ndims != 0:
        raise ValueError(f"The input scalar must be a 0-D value. Received shape "
                         f"{scalar.shape}.")
    product = make_tensor("Mul", [scalar, values], values.dtype, name=name or "Mul")
    if isinstance(x, IndexedSlices):
        return IndexedSlices(product, x.indices, x.dense_shape)
    return product


def erfinv(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise inverse of ``erf``: ±inf at ±1, nan outside ``[-1, 1]``."""
    return _unary("Erfinv", x, name)


def ndtri(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise inverse of the standard normal CDF: -inf at 0, inf at 1."""
    return _unary("Ndtri", x, name)


def xlogy(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x * log(y)``, 0 wherever ``x`` is 0, with broadcasting."""
    return _binary("Xlogy", x, y, name, "Xlogy")


def xdivy(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x / y``, 0 wherever ``x`` is 0, with broadcasting."""
    return _binary("Xdivy", x, y, name, "Xdivy")


def multiply_no_nan(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x * y`` that is 0 wherever ``y`` is 0, even for inf or nan ``x``."""
    return _binary("MulNoNan", x, y, name, "multiply_no_nan")


def reciprocal_no_nan(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``1 / x`` that is 0 wherever ``x`` is 0."""
    x = convert_to_tensor(x, name="x")
    _float_only(x, "DivNoNan")
    return div_no_nan(ones_like(x), x, name=name or "reciprocal_no_nan")


def truncatediv(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise integer ``x / y`` rounded toward zero (C division)."""
    return _binary("TruncateDiv", x, y, name, "TruncateDiv", kinds="iu")


def truncatemod(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise remainder of the division rounded toward zero (C ``fmod``): the
    result takes the sign of ``x``."""
    return _binary("TruncateMod", x, y, name, "TruncateMod", kinds="iuf")


def floor_div(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """``tf.floor_div``: the ``FloorDiv`` op under its generated name."""
    return _binary("FloorDiv", x, y, name, "FloorDiv", kinds="iuf")


def is_tensor(x: Any) -> bool:
    """True for the graph's tensor-like values: ``Tensor``, ``SparseTensor``,
    ``IndexedSlices`` and ``Variable``; False for Python and numpy values."""
    return isinstance(x, (Tensor, SparseTensor, IndexedSlices, Variable))


def lbeta(x: Any, name: Optional[str] = None) -> Tensor:
    """``log|Beta(x)|`` over the last axis: ``sum(lgamma(x)) - lgamma(sum(x))``.

    An empty last axis gives -inf, as in TensorFlow.
    """
    with name_scope(name, "lbeta"):
        x = convert_to_tensor(x, name="x")
        _float_only(x, "Lgamma")
        return subtract(reduce_sum(lgamma(x), axis=-1), lgamma(reduce_sum(x, axis=-1)))


def zeta(x: Any, q: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise Hurwitz zeta ``sum_n (n + q)^-x``; inf at ``x = 1``, nan below."""
    return _binary("Zeta", x, q, name, "Zeta", ("x", "q"))


def betainc(a: Any, b: Any, x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise regularized incomplete beta function ``I_x(a, b)``, broadcasting
    ``a``, ``b`` and ``x`` together."""
    a, b, x = (convert_to_tensor(v) for v in (a, b, x))
    for param, v in (("a", a), ("b", b), ("x", x)):
        _float_only(v, "Betainc", param)
    if not (a.dtype == b.dtype == x.dtype):
        raise TypeError(f"Betainc needs a, b and x of one dtype, got {a.dtype.name}, "
                        f"{b.dtype.name} and {x.dtype.name}")
    return make_tensor("Betainc", [a, b, x], x.dtype, name=name or "Betainc")


def bessel_i0e(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise exponentially scaled modified Bessel function of order 0,
    ``exp(-|x|) * I0(x)``."""
    return _unary("BesselI0e", x, name)


def bessel_i1e(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise exponentially scaled modified Bessel function of order 1,
    ``exp(-|x|) * I1(x)``."""
    return _unary("BesselI1e", x, name)


def bessel_i0(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise modified Bessel function of order 0, ``exp(|x|) * bessel_i0e(x)``."""
    with name_scope(name or "bessel_i0"):
        x = convert_to_tensor(x)
        return multiply(exp(_abs(x)), bessel_i0e(x))


def bessel_i1(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise modified Bessel function of order 1, ``exp(|x|) * bessel_i1e(x)``."""
    with name_scope(name or "bessel_i1"):
        x = convert_to_tensor(x)
        return multiply(exp(_abs(x)), bessel_i1e(x))


def nextafter(x1: Any, x2: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise the next representable value after ``x1`` towards ``x2``."""
    return _binary("NextAfter", x1, x2, name, "NextAfter", params=("x1", "x2"))


def polyval(coeffs: Any, x: Any, name: Optional[str] = None) -> Tensor:
    """The polynomial with ``coeffs`` (a list, highest power first) at ``x``, by Horner's
    rule; zero for no coefficients."""
    if isinstance(coeffs, Tensor) or not isinstance(coeffs, (list, tuple)):
        raise ValueError(f"coeffs must be a Python list of tensors, got {type(coeffs).__name__}")
    with name_scope(name or "polyval"):
        x = convert_to_tensor(x)
        if not coeffs:
            return multiply(x, 0)
        p = convert_to_tensor(coeffs[0], dtype=x.dtype)
        for c in coeffs[1:]:
            p = add(convert_to_tensor(c, dtype=x.dtype), multiply(p, x))
        return p


__all__: List[str] = [
    "tan", "sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "atan2", "erf",
    "erfc", "lgamma", "digamma", "polygamma", "rint", "div_no_nan", "log_sigmoid",
    "scalar_mul", "truncatediv", "truncatemod", "floor_div", "is_tensor", "lbeta", "zeta",
    "betainc",
]
