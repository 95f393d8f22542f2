"""``tf.types.experimental``: types for annotating tensorfleet programs."""

from tensorfleet.framework.tensor_like import TensorLike
from tensorfleet.ops.function_type import FunctionType

__all__ = ["FunctionType", "TensorLike"]
