"""``tf.types.experimental``: types for annotating tensorfleet programs."""

from tensorfleet.framework.tensor_like import TensorLike

__all__ = ["TensorLike"]
