"""Keras layers that pass their input on: ``Identity``; ``ActivityRegularization`` (adds
an L1/L2 penalty of its input to the model's loss); ``Masking`` (zeroes the time steps
whose features all equal ``mask_value`` and marks them, as ``_keras_mask`` on its output,
for the recurrent layers to skip)."""

from __future__ import annotations

from typing import Any

from tensorfleet.framework.graph import Tensor
from tensorfleet.keras.layers.base import Layer
from tensorfleet.keras.regularizers import L1L2
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M


class Identity(Layer):
    """Returns its input unchanged."""

    def call(self, inputs: Any) -> Any:  # type: ignore[override]
        """``inputs``."""
        return inputs


class ActivityRegularization(Layer):
    """Adds ``l1 * sum|x| + l2 * sum x^2`` of its input to the losses; returns the input."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0, **kwargs: Any):
        super().__init__(**kwargs)
        self.l1, self.l2 = float(l1), float(l2)
        self.activity_regularizer = L1L2(l1=self.l1, l2=self.l2)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """``inputs``, recording their penalty."""
        self._keras_losses.append(self.activity_regularizer(inputs))
        return A.identity(inputs)


class Masking(Layer):
    """Zeroes the time steps of [batch, time, ...] whose features all equal
    ``mask_value``; the output carries the step mask [batch, time] as ``_keras_mask``."""

    def __init__(self, mask_value: float = 0.0, **kwargs: Any):
        super().__init__(**kwargs)
        self.mask_value = float(mask_value)
        self.supports_masking = True

    def compute_mask(self, inputs: Tensor, mask: Any = None) -> Tensor:
        """True where any feature of the step differs from ``mask_value``."""
        return M.reduce_any(M.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """``inputs`` with the masked steps zeroed."""
        if inputs.shape.ndims is not None and inputs.shape.ndims < 3:
            raise ValueError(f"Masking: inputs must be [batch, time, ...], got shape "
                             f"{inputs.shape}")
        mask = self.compute_mask(inputs)
        out = M.multiply(inputs, A.cast(A.expand_dims(mask, -1), inputs.dtype))
        out._keras_mask = mask
        return out


__all__ = ["Identity", "ActivityRegularization", "Masking"]
