"""``tf.compat``: bytes/text conversions and the TF 1.15 switches; ``tf.compat.v1`` is
tensorfleet itself (set when tensorfleet loads its public names, and found here before)."""

from tensorfleet.compat.text import (  # noqa: F401
    as_bytes, as_str, as_str_any, as_text, bytes_or_text_types, complex_types, integral_types,
    path_to_str, real_types)
from tensorfleet.compat.behavior import (  # noqa: F401
    disable_eager_execution, disable_resource_variables, disable_v2_behavior,
    disable_v2_tensorshape, enable_eager_execution, enable_v2_behavior, executing_eagerly,
    resource_variables_enabled)
from tensorfleet.compat.forward_compat import (  # noqa: F401
    forward_compatibility_horizon, forward_compatible)
from tensorfleet.framework.tensor_shape import dimension_at_index  # noqa: F401
from tensorfleet.ops.array_transform_ops import dimension_value  # noqa: F401


def __getattr__(name: str):
    # tf.compat.v1 asked for before tensorfleet loaded its public names.
    if name == "v1":
        import sys
        return sys.modules["tensorfleet"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
