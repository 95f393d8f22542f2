"""``tf.debugging``: the value, rank and dtype checks and the numerics checks."""

from tensorfleet.ops.check_ops import (assert_equal, assert_greater, assert_greater_equal,
    assert_integer, assert_less, assert_less_equal, assert_near, assert_negative,
    assert_non_negative, assert_non_positive, assert_none_equal, assert_positive,
    assert_proper_iterable, assert_rank, assert_rank_at_least, assert_rank_in,
    assert_same_float_dtype, assert_scalar, assert_type, is_non_decreasing, is_numeric_tensor,
    is_strictly_increasing)
from tensorfleet.ops.math_ops_core import (is_finite, is_inf, is_nan)
from tensorfleet.ops.numerics import check_numerics
from tensorfleet.ops.control_flow_ops import Assert
from tensorfleet.ops.shape_assertions import assert_shapes
from tensorfleet.distributed.placement import get_log_device_placement, set_log_device_placement
from tensorfleet.framework.op_traceback import (disable_traceback_filtering,
    enable_traceback_filtering, is_traceback_filtering_enabled)
from tensorfleet.ops.numerics import verify_tensor_all_finite as assert_all_finite
from tensorfleet.ops.numerics_instrumentation import (disable_check_numerics,
    enable_check_numerics)

__all__ = ["Assert", "assert_all_finite", "assert_equal", "assert_greater",
           "assert_greater_equal", "assert_integer", "assert_less", "assert_less_equal",
           "assert_near", "assert_negative", "assert_non_negative", "assert_non_positive",
           "assert_none_equal", "assert_positive", "assert_proper_iterable", "assert_rank",
           "assert_rank_at_least", "assert_rank_in", "assert_same_float_dtype",
           "assert_scalar", "assert_type", "check_numerics", "is_finite", "is_inf", "is_nan",
           "is_non_decreasing", "is_numeric_tensor", "is_strictly_increasing",
           "assert_shapes", "get_log_device_placement", "set_log_device_placement",
           "disable_traceback_filtering", "enable_traceback_filtering",
           "is_traceback_filtering_enabled", "disable_check_numerics", "enable_check_numerics"]
