"""Keras noise and structured-dropout layers. Each acts only while training (the learning
phase, or ``training=True``) and passes its input through otherwise:
``GaussianNoise`` (additive), ``GaussianDropout`` (multiplicative), ``AlphaDropout``
(keeps SELU's mean and variance) and ``SpatialDropout1D/2D/3D`` (whole channels)."""

from __future__ import annotations

import math
from typing import Any, Optional

from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.keras.layers.base import Layer
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import control_flow_ops as CF
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import random_ops as R


def _in_training(training: Any, noisy: Any, inputs: Tensor) -> Tensor:
    """``noisy()`` when training, else ``inputs``; ``training`` a bool or a bool tensor."""
    if isinstance(training, bool) or training is None:
        return noisy() if training else inputs
    return CF.cond(convert_to_tensor(training), noisy, lambda: A.identity(inputs))


def _rate(rate: Any, layer: str) -> float:
    r = float(rate)
    if not 0.0 <= r < 1.0:
        raise ValueError(f"{layer}: rate must be in [0, 1), got {rate!r}")
    return r


class GaussianNoise(Layer):
    """Adds zero-mean Gaussian noise of standard deviation ``stddev`` while training."""

    def __init__(self, stddev: float, seed: Optional[int] = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.stddev, self.seed = float(stddev), seed

    def call(self, inputs: Tensor, training: Any = None) -> Tensor:  # type: ignore[override]
        """``inputs + N(0, stddev^2)`` while training."""
        return _in_training(training, lambda: M.add(inputs, R.random_normal(
            A.shape(inputs), stddev=self.stddev, dtype=inputs.dtype, seed=self.seed)), inputs)


class GaussianDropout(Layer):
    """Multiplies by Gaussian noise of mean 1 and variance ``rate / (1 - rate)`` while
    training."""

    def __init__(self, rate: float, seed: Optional[int] = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.rate, self.seed = _rate(rate, "GaussianDropout"), seed

    def call(self, inputs: Tensor, training: Any = None) -> Tensor:  # type: ignore[override]
        """``inputs * N(1, rate/(1-rate))`` while training."""
        if self.rate == 0.0:
            return inputs
        std = math.sqrt(self.rate / (1.0 - self.rate))
        return _in_training(training, lambda: M.multiply(inputs, R.random_normal(
            A.shape(inputs), mean=1.0, stddev=std, dtype=inputs.dtype, seed=self.seed)), inputs)


class AlphaDropout(Layer):
    """Dropout that sets dropped entries to SELU's negative saturation and rescales, so
    that inputs of zero mean and unit variance keep them."""

    def __init__(self, rate: float, noise_shape: Any = None, seed: Optional[int] = None,
                 **kwargs: Any):
        super().__init__(**kwargs)
        self.rate, self.noise_shape, self.seed = _rate(rate, "AlphaDropout"), noise_shape, seed

    def call(self, inputs: Tensor, training: Any = None) -> Tensor:  # type: ignore[override]
        """The alpha-dropped ``inputs`` while training."""
        if self.rate == 0.0:
            return inputs
        alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
        alpha_p = -alpha * scale
        keep = 1.0 - self.rate
        a = (keep + alpha_p ** 2 * keep * self.rate) ** -0.5
        b = -a * alpha_p * self.rate
        shape = A.shape(inputs) if self.noise_shape is None else self.noise_shape

        def noisy() -> Tensor:
            kept = A.cast(M.greater_equal(R.random_uniform(shape, dtype=inputs.dtype,
                                                           seed=self.seed), self.rate),
                          inputs.dtype)
            x = M.add(M.multiply(inputs, kept), M.multiply(alpha_p, M.subtract(1.0, kept)))
            return M.add(M.multiply(a, x), b)
        return _in_training(training, noisy, inputs)


class _SpatialDropout(Layer):
    """Drops whole channels: one keep/drop draw per sample and channel."""

    _rank = 1

    def __init__(self, rate: float, data_format: Optional[str] = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.rate = _rate(rate, type(self).__name__)
        if data_format not in (None, "channels_last"):
            raise ValueError(f"{type(self).__name__}: only data_format='channels_last' is "
                             f"supported, got {data_format!r}")

    def call(self, inputs: Tensor, training: Any = None) -> Tensor:  # type: ignore[override]
        """``inputs`` with whole channels dropped (and the rest scaled) while training."""
        want = self._rank + 2
        if inputs.shape.ndims is not None and inputs.shape.ndims != want:
            raise ValueError(f"{type(self).__name__}: inputs must be rank {want}, got shape "
                             f"{inputs.shape}")
        if self.rate == 0.0:
            return inputs
        shp = A.shape(inputs)
        noise = A.stack([shp[0]] + [1] * self._rank + [shp[-1]])
        keep = 1.0 - self.rate

        def dropped() -> Tensor:
            kept = M.floor(M.add(R.random_uniform(noise, dtype=inputs.dtype), keep))
            return M.multiply(M.divide(inputs, keep), kept)
        return _in_training(training, dropped, inputs)


class SpatialDropout1D(_SpatialDropout):
    """Drops whole channels of [batch, steps, channels]."""


class SpatialDropout2D(_SpatialDropout):
    """Drops whole channels of [batch, h, w, channels]."""

    _rank = 2


class SpatialDropout3D(_SpatialDropout):
    """Drops whole channels of [batch, d, h, w, channels]."""

    _rank = 3


__all__ = ["GaussianNoise", "GaussianDropout", "AlphaDropout", "SpatialDropout1D",
           "SpatialDropout2D", "SpatialDropout3D"]
