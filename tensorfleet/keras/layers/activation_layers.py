"""Keras activation layers with parameters: ``ELU``, ``PReLU`` (a learned slope per
entry) and ``ThresholdedReLU``."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from tensorfleet.framework.graph import Tensor
from tensorfleet.keras import initializers as _inits
from tensorfleet.keras import regularizers as _regs
from tensorfleet.keras.layers.base import Layer
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N


class ELU(Layer):
    """``x`` if positive else ``alpha * (exp(x) - 1)``."""

    def __init__(self, alpha: float = 1.0, **kwargs: Any):
        super().__init__(**kwargs)
        self.alpha = float(alpha)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """The exponential linear unit of ``inputs``."""
        y = N.elu(inputs)
        if self.alpha == 1.0:
            return y
        return A.where(M.greater(inputs, 0.0), y, M.multiply(self.alpha, y))


class ThresholdedReLU(Layer):
    """``x`` where ``x > theta``, else 0."""

    def __init__(self, theta: float = 1.0, **kwargs: Any):
        super().__init__(**kwargs)
        if theta is None or float(theta) < 0:
            raise ValueError(f"ThresholdedReLU: theta must be a non-negative float, got "
                             f"{theta!r}")
        self.theta = float(theta)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """``inputs`` with the entries not above ``theta`` zeroed."""
        keep = A.cast(M.greater(inputs, self.theta), inputs.dtype)
        return M.multiply(inputs, keep)


class PReLU(Layer):
    """``x`` if positive else ``alpha * x``, with ``alpha`` a weight shaped like one
    sample (axes in ``shared_axes`` share one slope)."""

    def __init__(self, alpha_initializer: Any = "zeros", alpha_regularizer: Any = None,
                 alpha_constraint: Any = None, shared_axes: Optional[Sequence[int]] = None,
                 **kwargs: Any):
        super().__init__(**kwargs)
        self.alpha_initializer = _inits.get(alpha_initializer)
        self.alpha_regularizer = _regs.get(alpha_regularizer)
        self.alpha_constraint = alpha_constraint
        if shared_axes is None:
            self.shared_axes: Optional[list] = None
        else:
            self.shared_axes = [int(a) for a in (shared_axes if isinstance(
                shared_axes, (list, tuple)) else [shared_axes])]

    def build(self, input_shape: Any) -> None:
        """Creates ``alpha`` of the sample shape, with shared axes of size 1."""
        shape = list(input_shape)[1:]
        for a in self.shared_axes or []:
            if not 1 <= a <= len(shape):
                raise ValueError(f"PReLU: shared axis {a} is out of range for inputs of shape "
                                 f"{input_shape}")
            shape[a - 1] = 1
        if any(d is None for d in shape):
            raise ValueError(f"PReLU: the sample shape must be known (or the unknown axes "
                             f"shared), got {input_shape}")
        self.alpha = self.add_weight("alpha", [int(d) for d in shape],
                                     initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer,
                                     constraint=self.alpha_constraint)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """``relu(x) - alpha * relu(-x)``."""
        return M.subtract(N.relu(inputs), M.multiply(self.alpha, N.relu(M.negative(inputs))))


__all__ = ["ELU", "PReLU", "ThresholdedReLU"]
