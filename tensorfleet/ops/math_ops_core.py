"""The base of the math op family: elementwise arithmetic, comparisons, logic, matmul,
and the Tensor operators.

``math_ops_reduce`` (reductions, cumulative ops, clipping) builds on this module;
``math_ops`` re-exports both, so ``tf.<name>`` and ``math_ops.<name>`` find the family there.
"""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, broadcast_shape, unknown_shape
from tensorfleet.ops.array_ops_core import cast, reshape
from tensorfleet.ops.array_indexing_ops import transpose
from tensorfleet.ops.complex_ops import complex_abs, conj
from tensorfleet.ops.op_util import (broadcast_binary, convert_pair, make_tensor,
                                     same_shape)

_BINARY = ["Add", "Sub", "Mul", "RealDiv", "FloorDiv", "FloorMod", "Pow", "Maximum",
           "Minimum", "SquaredDifference", "Equal", "NotEqual", "Less", "LessEqual",
           "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr"]
_UNARY = ["Neg", "Square", "Sqrt", "Rsqrt", "Reciprocal", "Exp", "Expm1", "Log", "Log1p",
          "Abs", "Sign", "Sigmoid", "Tanh", "LogicalNot", "Floor", "Ceil", "Round", "Sin", "Cos",
          "IsFinite", "IsNan", "IsInf"]
# Fused backward ops (y, dy) -> dx, as TensorFlow has them: one kernel instead of three.
_UNARY_GRADS = ["SqrtGrad", "RsqrtGrad", "ReciprocalGrad", "SigmoidGrad", "TanhGrad"]

for _t in _BINARY:
    register_op(_t, broadcast_binary)
for _t in _UNARY + _UNARY_GRADS:
    register_op(_t, same_shape)


def _addn_shape(op: Any) -> List[TensorShape]:
    out = op.inputs[0].shape
    for t in op.inputs[1:]:
        try:
            out = out.merge_with(t.shape)
        except ValueError:
            raise ValueError(f"Shapes must be equal; got {op.inputs[0].shape} and "
                             f"{t.shape}") from None
    return [out]


def _matmul_shape(op: Any) -> List[TensorShape]:
    a, b = op.inputs[0].shape, op.inputs[1].shape
    for s in (a, b):
        if s.ndims is not None and s.ndims != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {s.ndims}")
    if a.ndims is None or b.ndims is None:
        m = None if a.ndims is None else a[0 if not op.attrs["transpose_a"] else 1]
        n = None if b.ndims is None else b[1 if not op.attrs["transpose_b"] else 0]
        return [TensorShape([m, n])]
    m, k1 = (a[1], a[0]) if op.attrs["transpose_a"] else (a[0], a[1])
    k2, n = (b[1], b[0]) if op.attrs["transpose_b"] else (b[0], b[1])
    if k1 is not None and k2 is not None and k1 != k2:
        raise ValueError(f"Dimensions must be equal, but are {k1} and {k2}")
    return [TensorShape([m, n])]


def _batch_matmul_shape(op: Any) -> List[TensorShape]:
    a, b = op.inputs[0].shape, op.inputs[1].shape
    for s in (a, b):
        if s.ndims is not None and s.ndims < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {s.ndims}")
    if a.ndims is None or b.ndims is None:
        return [unknown_shape()]
    m, k1 = (a[-1], a[-2]) if op.attrs["adj_x"] else (a[-2], a[-1])
    k2, n = (b[-1], b[-2]) if op.attrs["adj_y"] else (b[-2], b[-1])
    if k1 is not None and k2 is not None and k1 != k2:
        raise ValueError(f"Dimensions must be equal, but are {k1} and {k2}")
    batch = broadcast_shape(a[:-2], b[:-2])
    return [batch.concatenate([m, n])]


register_op("AddN", _addn_shape)
register_op("MatMul", _matmul_shape)
register_op("BatchMatMulV2", _batch_matmul_shape)


# -- helpers ------------------------------------------------------------------------------

def _check_kind(x: Tensor, kinds: str, op: str) -> None:
    """TypeError naming the op when ``x``'s dtype is not of one of numpy ``kinds``."""
    if x.dtype.kind not in kinds:
        raise TypeError(f"Value passed to parameter 'x' of op '{op}' has DataType "
                        f"{x.dtype.name} not in the list of allowed types for it")


def _unary(op_type: str, x: Any, name: Optional[str], default: str, kinds: str = "iuf",
           out_dtype: Any = None) -> Tensor:
    x = convert_to_tensor(x)
    _check_kind(x, kinds, op_type)
    return make_tensor(op_type, [x], out_dtype or x.dtype, name=name or default)


def _binary(op_type: str, x: Any, y: Any, name: Optional[str], default: str,
            kinds: str = "iuf", out_dtype: Any = None) -> Tensor:
    x, y = convert_pair(x, y)
    _check_kind(x, kinds, op_type)
    return make_tensor(op_type, [x, y], out_dtype or x.dtype, name=name or default)


# -- arithmetic ---------------------------------------------------------------------------

def add(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x + y`` with broadcasting."""
    x, y = convert_pair(x, y)
    return make_tensor("Add", [x, y], x.dtype, name=name or "add")


def add_n(inputs: List[Any], name: Optional[str] = None) -> Tensor:
    """Sums a list of tensors of the same shape and dtype."""
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError("inputs must be a non-empty list of tensors")
    ts = [convert_to_tensor(i) for i in inputs]
    if any(t.dtype is not ts[0].dtype for t in ts):
        raise TypeError(f"add_n needs inputs of one dtype, got "
                        f"{sorted({t.dtype.name for t in ts})}")
    if len(ts) == 1:
        return ts[0]
    return make_tensor("AddN", ts, ts[0].dtype, name=name or "AddN")


def accumulate_n(inputs: List[Any], shape: Any = None, tensor_dtype: Any = None,
                 name: Optional[str] = None) -> Tensor:
    """Sums a list of tensors; here the same as ``add_n``."""
    return add_n(inputs, name=name or "AccumulateN")


def subtract(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x - y`` with broadcasting."""
    return _binary("Sub", x, y, name, "sub", "iufc")


def multiply(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x * y`` with broadcasting."""
    return _binary("Mul", x, y, name, "mul", "iufc")


def realdiv(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x / y`` for floating-point tensors."""
    return _binary("RealDiv", x, y, name, "RealDiv", "fc")


def truediv(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Python 3 division: integer operands are cast to floating point first."""
    x, y = convert_pair(x, y)
    if x.dtype.is_integer:
        ft = _dtypes.float32 if x.dtype.size <= 2 else _dtypes.float64
        x, y = cast(x, ft), cast(y, ft)
    return _binary("RealDiv", x, y, name, "truediv", "fc")


def divide(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """``x / y`` with Python 3 semantics (see ``truediv``)."""
    return truediv(x, y, name=name or "div")


def div(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Python 2 division: floor division for integers, true division for floats."""
    x, y = convert_pair(x, y)
    if x.dtype.is_integer:
        return floordiv(x, y, name=name)
    return realdiv(x, y, name=name or "div")


def floordiv(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``floor(x / y)``; integer division by zero fails at run time."""
    return _binary("FloorDiv", x, y, name, "floordiv")


def floormod(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise remainder with the sign of ``y`` (Python's ``%``)."""
    return _binary("FloorMod", x, y, name, "floormod")


mod = floormod


def negative(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``-x``."""
    return _unary("Neg", x, name, "Neg", "iufc")


def square(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x * x``."""
    return _unary("Square", x, name, "Square", "iufc")


def sqrt(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise square root."""
    return _unary("Sqrt", x, name, "Sqrt", "fc")


def rsqrt(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``1 / sqrt(x)``."""
    return _unary("Rsqrt", x, name, "Rsqrt", "fc")


def reciprocal(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``1 / x``."""
    return _unary("Reciprocal", x, name, "Reciprocal", "fc")


def exp(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``e ** x``."""
    return _unary("Exp", x, name, "Exp", "fc")


def log(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise natural logarithm."""
    return _unary("Log", x, name, "Log", "fc")


def log1p(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``log(1 + x)``, accurate for small ``x``."""
    return _unary("Log1p", x, name, "Log1p", "f")


def pow(x: Any, y: Any, name: Optional[str] = None) -> Tensor:  # noqa: A001 - TF name
    """Elementwise ``x ** y`` with broadcasting."""
    return _binary("Pow", x, y, name, "Pow", "iufc")


def abs(x: Any, name: Optional[str] = None) -> Tensor:  # noqa: A001 - TF name
    """Elementwise absolute value (a float tensor for complex input)."""
    x = convert_to_tensor(x)
    if x.dtype.is_complex:
        return complex_abs(x, name=name)
    return _unary("Abs", x, name, "Abs")


def sign(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise -1, 0 or 1 by the sign of ``x``."""
    return _unary("Sign", x, name, "Sign")


def maximum(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise max of ``x`` and ``y`` with broadcasting."""
    return _binary("Maximum", x, y, name, "Maximum")


def minimum(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise min of ``x`` and ``y`` with broadcasting."""
    return _binary("Minimum", x, y, name, "Minimum")


def squared_difference(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``(x - y) ** 2`` with broadcasting."""
    return _binary("SquaredDifference", x, y, name, "SquaredDifference")


def sigmoid(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise logistic function ``1 / (1 + exp(-x))``."""
    return _unary("Sigmoid", x, name, "Sigmoid", "f")


def tanh(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise hyperbolic tangent."""
    return _unary("Tanh", x, name, "Tanh", "fc")


def expm1(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``exp(x) - 1``, accurate for small ``x``."""
    return _unary("Expm1", x, name, "Expm1", "f")


def floor(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise largest integer not greater than ``x``."""
    return _unary("Floor", x, name, "Floor", "f")


def ceil(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise smallest integer not less than ``x``."""
    return _unary("Ceil", x, name, "Ceil", "f")


def round(x: Any, name: Optional[str] = None) -> Tensor:  # noqa: A001 - TF name
    """Elementwise rounding to the nearest integer, halves to even."""
    return _unary("Round", x, name, "Round", "iuf")


def sin(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise sine."""
    return _unary("Sin", x, name, "Sin", "fc")


def cos(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise cosine."""
    return _unary("Cos", x, name, "Cos", "fc")


def is_finite(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise: neither inf nor nan."""
    return _unary("IsFinite", x, name, "IsFinite", "f", _dtypes.bool)


def is_nan(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise: is nan."""
    return _unary("IsNan", x, name, "IsNan", "f", _dtypes.bool)


def is_inf(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise: is +inf or -inf."""
    return _unary("IsInf", x, name, "IsInf", "f", _dtypes.bool)


# -- comparisons and logic -----------------------------------------------------------------

def equal(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x == y`` as a bool tensor."""
    return _binary("Equal", x, y, name, "Equal", "iufbOc", _dtypes.bool)


def not_equal(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x != y`` as a bool tensor."""
    return _binary("NotEqual", x, y, name, "NotEqual", "iufbOc", _dtypes.bool)


def less(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x < y`` as a bool tensor."""
    return _binary("Less", x, y, name, "Less", "iuf", _dtypes.bool)


def less_equal(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x <= y`` as a bool tensor."""
    return _binary("LessEqual", x, y, name, "LessEqual", "iuf", _dtypes.bool)


def greater(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x > y`` as a bool tensor."""
    return _binary("Greater", x, y, name, "Greater", "iuf", _dtypes.bool)


def greater_equal(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x >= y`` as a bool tensor."""
    return _binary("GreaterEqual", x, y, name, "GreaterEqual", "iuf", _dtypes.bool)


def logical_and(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x AND y`` of bool tensors."""
    return _binary("LogicalAnd", x, y, name, "LogicalAnd", "b")


def logical_or(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x OR y`` of bool tensors."""
    return _binary("LogicalOr", x, y, name, "LogicalOr", "b")


def logical_not(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``NOT x`` of a bool tensor."""
    return _unary("LogicalNot", x, name, "LogicalNot", "b")


def logical_xor(x: Any, y: Any, name: Optional[str] = "LogicalXor") -> Tensor:
    """Elementwise exclusive or of bool tensors."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


# -- matrix products -----------------------------------------------------------------------

def matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False,
           adjoint_a: bool = False, adjoint_b: bool = False, a_is_sparse: bool = False,
           b_is_sparse: bool = False, name: Optional[str] = None) -> Tensor:
    """Matrix product ``a @ b`` of rank-2 tensors, or batched over leading dims.

    For rank > 2 the leading (batch) dims broadcast against each other. ``adjoint_*``
    conjugates a complex operand as well as transposing it.

    Raises:
      ValueError: if the inner dimensions or the ranks do not match.
    """
    if transpose_a and adjoint_a or transpose_b and adjoint_b:
        raise ValueError("Only one of transpose_a and adjoint_a (or _b) can be True.")
    a, b = convert_pair(a, b)
    _check_kind(a, "iufc", "MatMul")
    if a.dtype.is_complex:
        a = conj(a) if adjoint_a else a
        b = conj(b) if adjoint_b else b
    ta, tb = bool(transpose_a or adjoint_a), bool(transpose_b or adjoint_b)
    ra, rb = a.shape.ndims, b.shape.ndims
    if ra == 2 and rb == 2:
        return make_tensor("MatMul", [a, b], a.dtype,
                           {"transpose_a": ta, "transpose_b": tb}, name=name or "MatMul")
    return make_tensor("BatchMatMulV2", [a, b], a.dtype, {"adj_x": ta, "adj_y": tb},
                       name=name or "MatMul")


def tensordot(a: Any, b: Any, axes: Any, name: Optional[str] = None) -> Tensor:
    """Sums the products of ``a`` and ``b`` over the given axes (static shapes only)."""
    a, b = convert_pair(a, b)
    if not (a.shape.is_fully_defined() and b.shape.is_fully_defined()):
        raise ValueError("tensordot needs fully defined static shapes for both inputs, got "
                         f"{a.shape} and {b.shape}")
    sa, sb = a.shape.as_list(), b.shape.as_list()
    if isinstance(axes, int):
        ax_a, ax_b = list(range(len(sa) - axes, len(sa))), list(range(axes))
    else:
        ax_a, ax_b = [list(x) if isinstance(x, (list, tuple)) else [x] for x in axes]
    ax_a = [i % len(sa) for i in ax_a]
    ax_b = [i % len(sb) for i in ax_b]
    if [sa[i] for i in ax_a] != [sb[i] for i in ax_b]:
        raise ValueError(f"tensordot: contracted dims of {a.shape} and {b.shape} differ")
    free_a = [i for i in range(len(sa)) if i not in ax_a]
    free_b = [i for i in range(len(sb)) if i not in ax_b]
    k = 1
    for i in ax_a:
        k *= sa[i]
    ma = transpose(a, free_a + ax_a) if free_a + ax_a != list(range(len(sa))) else a
    mb = transpose(b, ax_b + free_b) if ax_b + free_b != list(range(len(sb))) else b
    ma = reshape(ma, [-1, k])
    mb = reshape(mb, [k, -1])
    out_shape = [sa[i] for i in free_a] + [sb[i] for i in free_b]
    return reshape(matmul(ma, mb), out_shape, name=name or "Tensordot")


# -- fused gradient ops (used by math_grad) -------------------------------------------------

def unary_grad(op_type: str, y: Tensor, dy: Tensor) -> Tensor:
    """``op_type`` in SqrtGrad, RsqrtGrad, ReciprocalGrad, SigmoidGrad, TanhGrad."""
    if op_type not in _UNARY_GRADS:
        raise ValueError(f"unknown fused gradient op {op_type!r}")
    y, dy = convert_pair(y, dy)
    return make_tensor(op_type, [y, dy], y.dtype, name=op_type)


# -- Tensor operators ---------------------------------------------------------------------

def _bool_only(fn: Any, symbol: str) -> Any:
    def op(a: Any, b: Any) -> Tensor:
        a, b = convert_pair(a, b)
        if not a.dtype.is_bool:
            raise TypeError(f"Operator {symbol} is only defined for bool tensors, got "
                            f"{a.dtype.name} ({a.name})")
        return fn(a, b)
    return op


def _invert(a: Tensor) -> Tensor:
    if not a.dtype.is_bool:
        raise TypeError(f"Operator ~ is only defined for bool tensors, got {a.dtype.name} "
                        f"({a.name})")
    return logical_not(a)


_OPERATORS = {
    "__add__": lambda a, b: add(a, b), "__radd__": lambda a, b: add(b, a),
    "__sub__": lambda a, b: subtract(a, b), "__rsub__": lambda a, b: subtract(b, a),
    "__mul__": lambda a, b: multiply(a, b), "__rmul__": lambda a, b: multiply(b, a),
    "__truediv__": lambda a, b: truediv(a, b), "__rtruediv__": lambda a, b: truediv(b, a),
    "__floordiv__": lambda a, b: floordiv(a, b), "__rfloordiv__": lambda a, b: floordiv(b, a),
    "__mod__": lambda a, b: floormod(a, b), "__rmod__": lambda a, b: floormod(b, a),
    "__pow__": lambda a, b: pow(a, b), "__rpow__": lambda a, b: pow(b, a),
    "__matmul__": lambda a, b: matmul(a, b), "__rmatmul__": lambda a, b: matmul(b, a),
    "__neg__": lambda a: negative(a), "__abs__": lambda a: abs(a),
    "__lt__": lambda a, b: less(a, b), "__le__": lambda a, b: less_equal(a, b),
    "__gt__": lambda a, b: greater(a, b), "__ge__": lambda a, b: greater_equal(a, b),
    "__and__": _bool_only(logical_and, "&"), "__rand__": _bool_only(
        lambda a, b: logical_and(b, a), "&"),
    "__or__": _bool_only(logical_or, "|"), "__ror__": _bool_only(
        lambda a, b: logical_or(b, a), "|"),
    "__xor__": _bool_only(logical_xor, "^"), "__rxor__": _bool_only(
        lambda a, b: logical_xor(b, a), "^"),
    "__invert__": _invert,
}
for _name, _fn in _OPERATORS.items():
    Tensor._override_operator(_name, _fn)

__all__ = [
    "add", "add_n", "accumulate_n", "subtract", "multiply", "realdiv", "truediv", "divide",
    "div", "floordiv", "floormod", "mod", "negative", "square", "sqrt", "rsqrt", "reciprocal",
    "exp", "expm1", "log", "log1p", "pow", "floor", "ceil", "round", "sin", "cos", "is_finite",
    "is_nan", "is_inf", "abs", "sign", "maximum", "minimum", "squared_difference",
    "sigmoid", "tanh", "equal", "not_equal", "less", "less_equal", "greater",
    "greater_equal", "logical_and", "logical_or", "logical_not", "logical_xor", "matmul",
    "tensordot",
]
