"""``tf.UnconnectedGradients``: what a gradient is when the source does not reach the
target -- None (TensorFlow's default) or zeros shaped as the source."""

from __future__ import annotations

import enum
from typing import Any, List, Sequence

from tensorfleet.framework.graph import convert_to_tensor
from tensorfleet.ops import array_ops


class UnconnectedGradients(enum.Enum):
    """``NONE``: an unconnected source gets None; ``ZERO``: it gets zeros of its shape."""

    NONE = "none"
    ZERO = "zero"


def as_unconnected(value: Any) -> UnconnectedGradients:
    """``value`` (an ``UnconnectedGradients`` or its string) as the enum member."""
    try:
        return UnconnectedGradients(value.value if isinstance(value, UnconnectedGradients)
                                    else value)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r} (use 'none', "
                         f"'zero' or a tf.UnconnectedGradients member)") from None


def fill_unconnected(grads: Sequence[Any], sources: Sequence[Any],
                     unconnected: Any) -> List[Any]:
    """``grads`` with each None replaced by zeros like its source when asked for."""
    if as_unconnected(unconnected) is UnconnectedGradients.NONE:
        return list(grads)
    return [array_ops.zeros_like(convert_to_tensor(x)) if g is None else g
            for g, x in zip(grads, sources)]


__all__ = ["UnconnectedGradients", "as_unconnected", "fill_unconnected"]
