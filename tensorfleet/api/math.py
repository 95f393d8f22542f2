"""``tf.math``: the math ops under their ``tf.math`` names."""

from tensorfleet.ops.array_indexing_ops import unsorted_segment_sum
from tensorfleet.ops.array_ops_core import invert_permutation
from tensorfleet.ops.linalg_ops import trace
from tensorfleet.ops.math_ops_core import (abs, accumulate_n, add, add_n, ceil, cos, divide,
    equal, exp, expm1, floor, floordiv, floormod, greater, greater_equal, is_finite, is_inf,
    is_nan, less, less_equal, log, log1p, logical_and, logical_not, logical_or, logical_xor,
    maximum, minimum, floormod as mod, multiply, negative, not_equal, pow, realdiv, reciprocal,
    round, rsqrt, sigmoid, sign, sin, sqrt, square, squared_difference, subtract, tanh, truediv)
from tensorfleet.ops.math_ops_reduce import (argmax, argmin, count_nonzero, cumprod, cumsum,
    reduce_all, reduce_any, reduce_logsumexp, reduce_max, reduce_mean, reduce_min, reduce_prod,
    reduce_sum)
from tensorfleet.ops.math_ops_special import (acos, acosh, asin, asinh, atan, atan2, atanh,
    bessel_i0, bessel_i0e, bessel_i1, bessel_i1e, betainc, cosh, digamma, divide_no_nan, erf,
    erfc, erfinv, lbeta, lgamma, log_sigmoid, multiply_no_nan, ndtri, nextafter, polygamma,
    polyval, reciprocal_no_nan, rint, scalar_mul, sinh, tan, truncatediv, truncatemod, xdivy,
    xlogy, zeta)
from tensorfleet.ops.math_ops_stats import (confusion_matrix, reduce_euclidean_norm,
    reduce_std, reduce_variance)
from tensorfleet.ops.nn_composite_ops import softsign
from tensorfleet.ops.nn_norm_ops import zero_fraction
from tensorfleet.ops.nn_ops import (in_top_k, l2_normalize, log_softmax, softmax, softplus)
from tensorfleet.ops.nn_sampling_ops import top_k
from tensorfleet.ops.scatter_ops import bincount
from tensorfleet.ops.segment_ops import (segment_max, segment_mean, segment_min, segment_prod,
    segment_sum, unsorted_segment_max, unsorted_segment_mean, unsorted_segment_min,
    unsorted_segment_prod, unsorted_segment_sqrt_n)
from tensorfleet.ops.check_ops import (is_non_decreasing, is_strictly_increasing)

from tensorfleet.ops.math_composite_ops import (cumulative_logsumexp, xlog1py)
from tensorfleet.ops.complex_ops import (angle, conj, imag, real)
from tensorfleet.ops.approx_top_k_ops import (approx_max_k, approx_min_k)
from tensorfleet.ops.sobol_ops import sobol_sample
from tensorfleet.ops.special_functions import (erfcinv, igamma, igammac)

from tensorfleet.api import math_special as special

__all__ = ["abs", "accumulate_n", "acos", "acosh", "add", "add_n", "angle", "approx_max_k",
           "approx_min_k", "argmax", "argmin", "asin", "asinh", "atan", "atan2", "atanh",
           "bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "betainc", "bincount", "ceil",
           "confusion_matrix", "conj", "cos", "cosh", "count_nonzero", "cumprod", "cumsum",
           "cumulative_logsumexp", "digamma", "divide", "divide_no_nan", "equal", "erf", "erfc",
           "erfcinv", "erfinv", "exp", "expm1", "floor", "floordiv", "floormod", "greater",
           "greater_equal", "igamma", "igammac", "imag", "in_top_k", "invert_permutation",
           "is_finite", "is_inf", "is_nan", "is_non_decreasing", "is_strictly_increasing",
           "l2_normalize", "lbeta", "less", "less_equal", "lgamma", "log", "log1p", "log_sigmoid",
           "log_softmax", "logical_and", "logical_not", "logical_or", "logical_xor", "maximum",
           "minimum", "mod", "multiply", "multiply_no_nan", "ndtri", "negative", "nextafter",
           "not_equal", "polygamma", "polyval", "pow", "real", "realdiv", "reciprocal",
           "reciprocal_no_nan", "reduce_all", "reduce_any", "reduce_euclidean_norm",
           "reduce_logsumexp", "reduce_max", "reduce_mean", "reduce_min", "reduce_prod",
           "reduce_std", "reduce_sum", "reduce_variance", "rint", "round", "rsqrt", "scalar_mul",
           "segment_max", "segment_mean", "segment_min", "segment_prod", "segment_sum", "sigmoid",
           "sign", "sin", "sinh", "sobol_sample", "softmax", "softplus", "softsign", "special",
           "sqrt", "square", "squared_difference", "subtract", "tan", "tanh", "top_k", "trace",
           "truediv", "truncatediv", "truncatemod", "unsorted_segment_max",
           "unsorted_segment_mean", "unsorted_segment_min", "unsorted_segment_prod",
           "unsorted_segment_sqrt_n", "unsorted_segment_sum", "xdivy", "xlog1py", "xlogy",
           "zero_fraction", "zeta"]
