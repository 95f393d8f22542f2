"""Keras locally connected layers: convolutions whose kernel is not shared, one per
output position (``kernel`` [positions, window * in_channels, filters])."""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet.framework.graph import Tensor
from tensorfleet.keras import activations as _acts
from tensorfleet.keras import regularizers as _regs
from tensorfleet.keras.backend_nn import local_conv1d, local_conv2d
from tensorfleet.keras.layers.base import Layer, weight_options
from tensorfleet.keras.layers.conv import _data_format
from tensorfleet.nn_layers import objects as _tfl
from tensorfleet.ops import math_ops as M


class _LocallyConnected(Layer):
    _rank = 1

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 data_format: Optional[str] = None, activation: Any = None,
                 use_bias: bool = True, kernel_initializer: Any = "glorot_uniform",
                 bias_initializer: Any = "zeros", kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None,
                 implementation: int = 1, **kwargs: Any):
        super().__init__(**kwargs)
        name = type(self).__name__
        _data_format(data_format, name)
        if str(padding).lower() != "valid":
            raise ValueError(f"{name}: only padding='valid' is supported, got {padding!r}")
        if implementation not in (1, 2, 3):
            raise ValueError(f"{name}: implementation must be 1, 2 or 3, got {implementation}")
        self.filters = int(filters)
        self.kernel_size = _tfl._tuple(kernel_size, self._rank, "kernel_size", name)
        self.strides = _tfl._tuple(strides, self._rank, "strides", name)
        self.padding, self.implementation = "valid", implementation
        self.activation, self.use_bias = _acts.get(activation), bool(use_bias)
        self._kw = weight_options(kernel_initializer, kernel_regularizer, kernel_constraint)
        self._bw = weight_options(bias_initializer, bias_regularizer, bias_constraint)
        self.activity_regularizer = _regs.get(activity_regularizer)
        self.bias: Any = None

    def build(self, input_shape: Any) -> None:
        """Creates ``kernel`` and ``bias`` (one per output position)."""
        dims = list(input_shape)
        if len(dims) != self._rank + 2 or any(d is None for d in dims[1:]):
            raise ValueError(f"{type(self).__name__}: inputs must be rank {self._rank + 2} "
                             f"with known non-batch axes, got {input_shape}")
        c = int(dims[-1])
        self.output_dims = [(int(n) - k) // s + 1
                            for n, k, s in zip(dims[1:-1], self.kernel_size, self.strides)]
        if min(self.output_dims) < 1:
            raise ValueError(f"{type(self).__name__}: the kernel is larger than the input")
        positions = 1
        for n in self.output_dims:
            positions *= n
        window = c
        for k in self.kernel_size:
            window *= k
        self.kernel = self.add_weight("kernel", [positions, window, self.filters], **self._kw)
        if self.use_bias:
            self.bias = self.add_weight("bias", [*self.output_dims, self.filters], **self._bw)

    def _product(self, inputs: Tensor) -> Tensor:
        return local_conv1d(inputs, self.kernel, self.kernel_size, self.strides)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """The unshared convolution of ``inputs``, bias and activation."""
        y = self._product(inputs)
        if self.bias is not None:
            y = M.add(y, self.bias)
        if self.activation is not None:
            y = self.activation(y)
        if self.activity_regularizer is not None:
            self._keras_losses.append(self.activity_regularizer(y))
        return y


class LocallyConnected1D(_LocallyConnected):
    """Unshared 1-D convolution over [batch, steps, channels]."""


class LocallyConnected2D(_LocallyConnected):
    """Unshared 2-D convolution over [batch, h, w, channels]."""

    _rank = 2

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1), **kwargs: Any):
        super().__init__(filters, kernel_size, strides=strides, **kwargs)

    def _product(self, inputs: Tensor) -> Tensor:
        return local_conv2d(inputs, self.kernel, self.kernel_size, self.strides,
                            self.output_dims)


__all__ = ["LocallyConnected1D", "LocallyConnected2D"]
