"""More ``tf.layers``: 3-D convolution and 1-D / 3-D pooling, as layer objects and in
functional form (channels last only).

1-D pooling runs as 2-D pooling over a height of 1, as in TensorFlow; 3-D layers
use the NDHWC kernels of ``nn_conv_variant_ops``.
"""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet.framework.graph import Tensor
from tensorfleet.layers_classes import Layer, _channels_last, _Conv, _padding, _tuple
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import init_ops
from tensorfleet.ops import nn_conv_variant_ops as CM
from tensorfleet.ops import nn_ops as N


class Conv3D(_Conv):
    """3-D convolution layer over [batch, depth, height, width, channels] inputs."""

    _rank = 3

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """Convolves ``inputs`` with ``kernel``, adds ``bias``, applies the activation."""
        y = CM.conv3d(inputs, self.kernel, [1, *self.strides, 1], self.padding,
                      dilations=[1, *self.dilation_rate, 1])
        return self._finish(y)


class _Pooling(Layer):
    """Shared argument handling of the 1-D and 3-D pooling layers."""

    _rank = 1
    _max = True

    def __init__(self, pool_size: Any, strides: Any, padding: str = "valid",
                 data_format: str = "channels_last", name: Optional[str] = None,
                 **kwargs: Any):
        super().__init__(name=name, **kwargs)
        layer = type(self).__name__
        _channels_last(data_format, layer)
        self.pool_size = _tuple(pool_size, self._rank, "pool_size", layer)
        self.strides = _tuple(strides, self._rank, "strides", layer)
        self.padding = _padding(padding, layer)
        self.data_format = data_format

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """Pools ``inputs`` over ``pool_size`` windows."""
        want = self._rank + 2
        if inputs.shape.ndims is not None and inputs.shape.ndims != want:
            raise ValueError(f"{type(self).__name__}: inputs must be rank {want}, got shape "
                             f"{inputs.shape}")
        if self._rank == 3:
            fn = CM.max_pool3d if self._max else CM.avg_pool3d
            return fn(inputs, [1, *self.pool_size, 1], [1, *self.strides, 1], self.padding)
        fn = N.max_pool if self._max else N.avg_pool
        y = fn(A.expand_dims(inputs, 1), ksize=[1, 1, self.pool_size[0], 1],
               strides=[1, 1, self.strides[0], 1], padding=self.padding)
        return A.squeeze(y, [1])


class MaxPooling1D(_Pooling):
    """Max pooling over [batch, width, channels] inputs."""


class AveragePooling1D(_Pooling):
    """Average pooling over [batch, width, channels] inputs (padding is not counted)."""

    _max = False


class MaxPooling3D(_Pooling):
    """Max pooling over [batch, depth, height, width, channels] inputs."""

    _rank = 3


class AveragePooling3D(_Pooling):
    """Average pooling over NDHWC inputs (padding is not counted)."""

    _rank = 3
    _max = False


def conv3d(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1, 1),
           padding: str = "valid", data_format: str = "channels_last",
           dilation_rate: Any = (1, 1, 1), activation: Any = None, use_bias: bool = True,
           kernel_initializer: Any = None, bias_initializer: Any = init_ops.Zeros(),
           kernel_regularizer: Any = None, bias_regularizer: Any = None,
           activity_regularizer: Any = None, kernel_constraint: Any = None,
           bias_constraint: Any = None, trainable: bool = True, name: Optional[str] = None,
           reuse: Any = None) -> Tensor:
    """3-D convolution layer (``Conv3D``) applied to ``inputs``."""
    return Conv3D(filters, kernel_size, strides=strides, padding=padding,
                  data_format=data_format, dilation_rate=dilation_rate, activation=activation,
                  use_bias=use_bias, kernel_initializer=kernel_initializer,
                  bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                  bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                  kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                  trainable=trainable, name=name, _reuse=reuse)(inputs)


def max_pooling1d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                  data_format: str = "channels_last", name: Optional[str] = None) -> Tensor:
    """Max pooling over [batch, width, channels] inputs."""
    return MaxPooling1D(pool_size, strides, padding, data_format, name=name)(inputs)


def average_pooling1d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                      data_format: str = "channels_last",
                      name: Optional[str] = None) -> Tensor:
    """Average pooling over [batch, width, channels] inputs."""
    return AveragePooling1D(pool_size, strides, padding, data_format, name=name)(inputs)


def max_pooling3d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                  data_format: str = "channels_last", name: Optional[str] = None) -> Tensor:
    """Max pooling over [batch, depth, height, width, channels] inputs."""
    return MaxPooling3D(pool_size, strides, padding, data_format, name=name)(inputs)


def average_pooling3d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                      data_format: str = "channels_last",
                      name: Optional[str] = None) -> Tensor:
    """Average pooling over NDHWC inputs."""
    return AveragePooling3D(pool_size, strides, padding, data_format, name=name)(inputs)


__all__ = ["Conv3D", "MaxPooling1D", "AveragePooling1D", "MaxPooling3D", "AveragePooling3D",
           "conv3d", "max_pooling1d", "average_pooling1d", "max_pooling3d",
           "average_pooling3d"]
