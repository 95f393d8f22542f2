"""Math ops: the whole family as one module (``tf.<name>``, ``math_ops.<name>``).

Elementwise arithmetic, comparisons, logic, matmul and the Tensor operators are defined
in ``math_ops_core``; reductions, cumulative ops and clipping in ``math_ops_reduce``.
This module re-exports both.
"""

from __future__ import annotations

from tensorfleet.ops.math_ops_core import (  # noqa: F401
    abs, accumulate_n, add, add_n, ceil, cos, div, divide, equal, exp, expm1, floor, floordiv,
    floormod, greater, greater_equal, is_finite, is_inf, is_nan, less, less_equal, log, log1p,
    logical_and, logical_not, logical_or, logical_xor, matmul, maximum, minimum, mod, multiply,
    negative, not_equal, pow, realdiv, reciprocal, round, rsqrt, sigmoid, sign, sin, sqrt,
    square, squared_difference, subtract, tanh, tensordot, truediv, unary_grad)
from tensorfleet.ops.math_ops_reduce import (  # noqa: F401
    argmax, argmin, clip_by_global_norm, clip_by_norm, clip_by_value, count_nonzero, cumprod,
    cumsum, global_norm, reduce_all, reduce_any, reduce_logsumexp, reduce_max, reduce_mean,
    reduce_min, reduce_prod, reduce_sum)

__all__ = [
    "add", "add_n", "accumulate_n", "subtract", "multiply", "realdiv", "truediv", "divide",
    "div", "floordiv", "floormod", "mod", "negative", "square", "sqrt", "rsqrt", "reciprocal",
    "exp", "expm1", "log", "log1p", "pow", "floor", "ceil", "round", "sin", "cos", "is_finite",
    "is_nan", "is_inf", "abs", "sign", "maximum", "minimum", "squared_difference", "sigmoid",
    "tanh", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_not", "logical_xor", "matmul", "tensordot",
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_all",
    "reduce_any", "reduce_logsumexp", "argmax", "argmin", "cumsum", "cumprod", "count_nonzero",
    "clip_by_value", "clip_by_norm", "global_norm", "clip_by_global_norm",
]
