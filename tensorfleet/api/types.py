"""``tf.types``: the type annotations namespace."""

from tensorfleet.api import types_experimental as experimental

__all__ = ["experimental"]
