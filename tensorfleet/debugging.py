"""``tf.debugging``: the value, rank and dtype checks and the numerics checks."""

from tensorfleet.ops.check_ops import *  # noqa: F401,F403
from tensorfleet.ops.math_ops import is_finite, is_inf, is_nan  # noqa: F401
from tensorfleet.ops.numerics import check_numerics  # noqa: F401
