"""``tf.math``: the math ops under their ``tf.math`` names."""

from tensorfleet.ops.math_ops import (  # noqa: F401
    abs, accumulate_n, add, add_n, argmax, argmin, ceil, cos, count_nonzero, cumprod, cumsum,
    divide, equal, exp, expm1, floor, floordiv, floormod, greater, greater_equal, is_finite,
    is_inf, is_nan, less, less_equal, log, log1p, logical_and, logical_not, logical_or,
    logical_xor, maximum, minimum, mod, multiply, negative, not_equal, pow, realdiv,
    reciprocal, reduce_all, reduce_any, reduce_logsumexp, reduce_max, reduce_mean, reduce_min,
    reduce_prod, reduce_sum, round, rsqrt, sigmoid, sign, sin, sqrt, square,
    squared_difference, subtract, tanh, truediv)
from tensorfleet.ops.array_ops import unsorted_segment_sum  # noqa: F401
from tensorfleet.ops.nn_ops import in_top_k, l2_normalize, softplus  # noqa: F401
from tensorfleet.ops.nn_norm_ops import zero_fraction  # noqa: F401
from tensorfleet.ops.nn_sampling_ops import top_k  # noqa: F401
from tensorfleet.ops.scatter_ops import bincount  # noqa: F401
from tensorfleet.ops.linalg_ops import trace  # noqa: F401
from tensorfleet.ops.segment_ops import (  # noqa: F401
    segment_max, segment_mean, segment_min, segment_prod, segment_sum, unsorted_segment_max,
    unsorted_segment_mean, unsorted_segment_min, unsorted_segment_prod, unsorted_segment_sqrt_n)
from tensorfleet.ops.math_ops_special import (  # noqa: F401
    acos, acosh, asin, asinh, atan, atan2, atanh, cosh, digamma, divide_no_nan, erf, erfc,
    lgamma, log_sigmoid, polygamma, rint, scalar_mul, sinh, tan)
from tensorfleet.ops.math_ops_special import (  # noqa: F401
    betainc, erfinv, lbeta, multiply_no_nan, ndtri, reciprocal_no_nan, truncatediv,
    truncatemod, xdivy, xlogy, zeta)
from tensorfleet.ops.nn_ops import log_softmax, softmax  # noqa: F401
from tensorfleet.ops.nn_composite_ops import softsign  # noqa: F401
from tensorfleet.ops.math_ops_stats import (  # noqa: F401
    confusion_matrix, reduce_euclidean_norm, reduce_std, reduce_variance)
from tensorfleet.ops.math_ops_special import (  # noqa: F401
    bessel_i0, bessel_i0e, bessel_i1, bessel_i1e, nextafter, polyval)
from tensorfleet.ops.array_ops import invert_permutation  # noqa: F401
