"""``tf.keras.models``: ``Model`` and ``Sequential``."""

from tensorfleet.keras.sequential import Sequential  # noqa: F401
from tensorfleet.keras.training import Model  # noqa: F401

__all__ = ["Model", "Sequential"]
