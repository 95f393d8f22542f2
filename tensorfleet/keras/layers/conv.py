"""Keras convolution, pooling, padding and upsampling layers (channels last).

``Conv1D``/``Conv2D``/``Conv2DTranspose``/``SeparableConv2D`` and the pooling
layers are the ``tf.layers`` classes behind the Keras base; Keras defaults
(``strides=None`` meaning the pool size, ``data_format=None`` meaning channels
last) are resolved here.
"""

from __future__ import annotations

import numbers
from typing import Any, Optional, Tuple

from tensorfleet.nn_layers import objects as _tfl
from tensorfleet.framework.graph import Tensor
from tensorfleet.keras import activations as _acts
from tensorfleet.keras import initializers as _inits
from tensorfleet.keras import regularizers as _regs
from tensorfleet.keras.layers.base import Layer
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops.nn_conv_variant_ops import depthwise_conv2d as _depthwise_conv2d


def _data_format(data_format: Optional[str], layer: str) -> str:
    if data_format in (None, "channels_last"):
        return "channels_last"
    raise ValueError(f"{layer}: only data_format='channels_last' is supported, got "
                     f"{data_format!r}")


def _conv_kwargs(layer: str, data_format: Optional[str], activation: Any,
                 kernel_initializer: Any, bias_initializer: Any, kernel_regularizer: Any,
                 bias_regularizer: Any, activity_regularizer: Any) -> dict:
    return dict(data_format=_data_format(data_format, layer), activation=_acts.get(activation),
                kernel_initializer=_inits.get(kernel_initializer),
                bias_initializer=_inits.get(bias_initializer),
                kernel_regularizer=_regs.get(kernel_regularizer),
                bias_regularizer=_regs.get(bias_regularizer),
                activity_regularizer=_regs.get(activity_regularizer))


class Conv2D(Layer, _tfl.Conv2D):
    """2-D convolution over [batch, height, width, channels] inputs."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1),
                 padding: str = "valid", data_format: Optional[str] = None,
                 dilation_rate: Any = (1, 1), activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, groups: int = 1, **kwargs: Any):
        groups = int(groups)
        if groups != 1 and type(self)._base_conv() is not _tfl.Conv2D:
            raise ValueError(f"{type(self).__name__}: groups={groups} is not supported")
        if groups < 1 or filters % groups:
            raise ValueError(f"{type(self).__name__}: groups must be a positive divisor of "
                             f"filters={filters}, got {groups}")
        self.groups = groups
        rest = self._keras_kwargs(kwargs)
        type(self)._base_conv().__init__(
            self, filters, kernel_size, strides=strides, padding=padding,
            dilation_rate=dilation_rate, use_bias=use_bias,
            kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
            **_conv_kwargs(type(self).__name__, data_format, activation, kernel_initializer,
                           bias_initializer, kernel_regularizer, bias_regularizer,
                           activity_regularizer), **rest)
        self._keras_name(rest.get("name"))

    @staticmethod
    def _base_conv() -> type:
        return _tfl.Conv2D

    def build(self, input_shape: Any) -> None:
        """Creates ``kernel`` [*kernel_size, in_channels / groups, filters] and ``bias``."""
        if self.groups == 1:
            return super().build(input_shape)
        channels = self._in_channels(input_shape)
        if channels % self.groups:
            raise ValueError(f"{self.name}: groups={self.groups} must divide the "
                             f"{channels} input channels")
        self._make(list(self.kernel_size) + [channels // self.groups, self.filters])

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """The convolution; with ``groups``, each group of input channels convolved with
        its own slice of the filters, the results concatenated."""
        if self.groups == 1:
            return super().call(inputs)
        kh, kw, per_group, filters = self.kernel.shape.as_list()
        if per_group == 1:
            # one input channel per group: a depthwise convolution with filters / groups
            # outputs per channel, in the same output order
            kernel = A.reshape(self.kernel, [kh, kw, self.groups, filters // self.groups])
            y = _depthwise_conv2d(inputs, kernel, strides=[1, *self.strides, 1],
                                  padding=self.padding.upper(), dilations=self.dilation_rate)
            return self._finish(y)
        xs = A.split(inputs, self.groups, axis=3)
        ks = A.split(self.kernel, self.groups, axis=3)
        ys = [N.conv2d(x, k, strides=[1, *self.strides, 1], padding=self.padding,
                       dilations=[1, *self.dilation_rate, 1]) for x, k in zip(xs, ks)]
        return self._finish(A.concat(ys, axis=3))


class Conv1D(Conv2D, _tfl.Conv1D):
    """1-D convolution over [batch, steps, channels] inputs."""

    _rank = 1

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 data_format: Optional[str] = None, dilation_rate: Any = 1, **kwargs: Any):
        if padding == "causal":
            raise ValueError("Conv1D: padding='causal' is not supported")
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate, **kwargs)

    @staticmethod
    def _base_conv() -> type:
        return _tfl.Conv1D

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """Convolves ``inputs`` with ``kernel``, adds ``bias``, applies the activation."""
        return _tfl.Conv1D.call(self, inputs)


class Conv2DTranspose(Conv2D, _tfl.Conv2DTranspose):
    """Transposed 2-D convolution; ``kernel`` is [kh, kw, filters, in_channels]."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1),
                 padding: str = "valid", output_padding: Any = None,
                 data_format: Optional[str] = None, dilation_rate: Any = (1, 1),
                 **kwargs: Any):
        if output_padding is not None:
            raise ValueError("Conv2DTranspose: output_padding is not supported")
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate, **kwargs)

    @staticmethod
    def _base_conv() -> type:
        return _tfl.Conv2DTranspose

    def build(self, input_shape: Any) -> None:
        """Creates ``kernel`` [*kernel_size, filters, in_channels] and ``bias``."""
        _tfl.Conv2DTranspose.build(self, input_shape)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """Transposed convolution of ``inputs``, then bias and activation."""
        return _tfl.Conv2DTranspose.call(self, inputs)


class SeparableConv2D(Layer, _tfl.SeparableConv2D):
    """Depthwise then pointwise 2-D convolution."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1),
                 padding: str = "valid", data_format: Optional[str] = None,
                 dilation_rate: Any = (1, 1), depth_multiplier: int = 1,
                 activation: Any = None, use_bias: bool = True,
                 depthwise_initializer: Any = "glorot_uniform",
                 pointwise_initializer: Any = "glorot_uniform",
                 bias_initializer: Any = "zeros", depthwise_regularizer: Any = None,
                 pointwise_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, **kwargs: Any):
        rest = self._keras_kwargs(kwargs)
        _tfl.SeparableConv2D.__init__(
            self, filters, kernel_size, strides=strides, padding=padding,
            data_format=_data_format(data_format, "SeparableConv2D"),
            dilation_rate=dilation_rate, depth_multiplier=depth_multiplier,
            activation=_acts.get(activation), use_bias=use_bias,
            depthwise_initializer=_inits.get(depthwise_initializer),
            pointwise_initializer=_inits.get(pointwise_initializer),
            bias_initializer=_inits.get(bias_initializer),
            depthwise_regularizer=_regs.get(depthwise_regularizer),
            pointwise_regularizer=_regs.get(pointwise_regularizer),
            bias_regularizer=_regs.get(bias_regularizer),
            activity_regularizer=_regs.get(activity_regularizer), **rest)
        self._keras_name(rest.get("name"))


# -- pooling -------------------------------------------------------------------------------

def _pool_init(self: Any, base: type, pool_size: Any, strides: Any, padding: str,
               data_format: Optional[str], kwargs: dict) -> None:
    rest = self._keras_kwargs(kwargs)
    base.__init__(self, pool_size, pool_size if strides is None else strides, padding,
                  _data_format(data_format, type(self).__name__), **rest)
    self._keras_name(rest.get("name"))


class MaxPooling2D(Layer, _tfl.MaxPooling2D):
    """Max pooling over [batch, height, width, channels]; strides default to the pool size."""

    def __init__(self, pool_size: Any = (2, 2), strides: Any = None, padding: str = "valid",
                 data_format: Optional[str] = None, **kwargs: Any):
        _pool_init(self, _tfl.MaxPooling2D, pool_size, strides, padding, data_format, kwargs)


class AveragePooling2D(Layer, _tfl.AveragePooling2D):
    """Average pooling over [batch, height, width, channels] (padding not counted)."""

    def __init__(self, pool_size: Any = (2, 2), strides: Any = None, padding: str = "valid",
                 data_format: Optional[str] = None, **kwargs: Any):
        _pool_init(self, _tfl.AveragePooling2D, pool_size, strides, padding, data_format,
                   kwargs)


class MaxPooling1D(Layer, _tfl.MaxPooling1D):
    """Max pooling over [batch, steps, channels]."""

    def __init__(self, pool_size: Any = 2, strides: Any = None, padding: str = "valid",
                 data_format: Optional[str] = None, **kwargs: Any):
        _pool_init(self, _tfl.MaxPooling1D, pool_size, strides, padding, data_format, kwargs)


class AveragePooling1D(Layer, _tfl.AveragePooling1D):
    """Average pooling over [batch, steps, channels]."""

    def __init__(self, pool_size: Any = 2, strides: Any = None, padding: str = "valid",
                 data_format: Optional[str] = None, **kwargs: Any):
        _pool_init(self, _tfl.AveragePooling1D, pool_size, strides, padding, data_format,
                   kwargs)


class _GlobalPooling(Layer):
    _axes: Tuple[int, ...] = (1, 2)
    _max = False

    def __init__(self, data_format: Optional[str] = None, keepdims: bool = False,
                 **kwargs: Any):
        super().__init__(**kwargs)
        _data_format(data_format, type(self).__name__)
        self.keepdims = bool(keepdims)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """The mean (or maximum) over the spatial axes (kept as size-1 axes with
        ``keepdims``)."""
        want = len(self._axes) + 2
        if inputs.shape.ndims is not None and inputs.shape.ndims != want:
            raise ValueError(f"{type(self).__name__}: inputs must be rank {want}, got shape "
                             f"{inputs.shape}")
        fn = M.reduce_max if self._max else M.reduce_mean
        return fn(inputs, axis=list(self._axes), keepdims=self.keepdims)


class GlobalAveragePooling2D(_GlobalPooling):
    """Mean over height and width: [batch, h, w, c] -> [batch, c]."""


class GlobalMaxPooling2D(_GlobalPooling):
    """Maximum over height and width: [batch, h, w, c] -> [batch, c]."""

    _max = True


class GlobalAveragePooling1D(_GlobalPooling):
    """Mean over steps: [batch, steps, c] -> [batch, c]."""

    _axes = (1,)


class GlobalMaxPooling1D(_GlobalPooling):
    """Maximum over steps: [batch, steps, c] -> [batch, c]."""

    _axes = (1,)
    _max = True


# -- padding and upsampling ----------------------------------------------------------------

def _pairs(value: Any, layer: str) -> Tuple[Tuple[int, int], Tuple[int, int]]:
    if isinstance(value, numbers.Integral):
        return (int(value), int(value)), (int(value), int(value))
    v = tuple(value)
    if len(v) == 2 and all(isinstance(p, numbers.Integral) for p in v):
        return (int(v[0]), int(v[0])), (int(v[1]), int(v[1]))
    if len(v) == 2 and all(len(tuple(p)) == 2 for p in v):
        (a, b), (c, d) = v
        return (int(a), int(b)), (int(c), int(d))
    raise ValueError(f"{layer}: padding should be an int, a tuple of 2 ints or a tuple of 2 "
                     f"tuples of 2 ints, got {value!r}")


class ZeroPadding2D(Layer):
    """Pads height and width with zeros: ``padding`` is an int, (h, w) or
    ((top, bottom), (left, right))."""

    def __init__(self, padding: Any = (1, 1), data_format: Optional[str] = None,
                 **kwargs: Any):
        super().__init__(**kwargs)
        _data_format(data_format, "ZeroPadding2D")
        self.padding = _pairs(padding, "ZeroPadding2D")

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """``inputs`` with zero rows and columns added."""
        return A.pad(inputs, [[0, 0], list(self.padding[0]), list(self.padding[1]), [0, 0]])


class UpSampling2D(Layer):
    """Repeats rows ``size[0]`` times and columns ``size[1]`` times (nearest neighbour)."""

    def __init__(self, size: Any = (2, 2), data_format: Optional[str] = None,
                 interpolation: str = "nearest", **kwargs: Any):
        super().__init__(**kwargs)
        _data_format(data_format, "UpSampling2D")
        if interpolation != "nearest":
            raise ValueError(f"UpSampling2D: only interpolation='nearest' is supported, got "
                             f"{interpolation!r}")
        self.size = _tfl._tuple(size, 2, "size", "UpSampling2D")
        self.interpolation = interpolation

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """The upsampled ``inputs``: [b, h, w, c] -> [b, h*sh, w*sw, c]."""
        sh, sw = self.size
        shp = A.shape(inputs)
        # [b, h, 1, w, 1, c] tiled to [b, h, sh, w, sw, c] is each pixel repeated.
        y = A.expand_dims(A.expand_dims(inputs, 2), 4)
        y = A.tile(y, [1, 1, sh, 1, sw, 1])
        out = A.reshape(y, A.stack([shp[0], shp[1] * sh, shp[2] * sw, shp[3]]))
        static = inputs.shape.as_list() if inputs.shape.ndims == 4 else [None] * 4
        out.set_shape([static[0], None if static[1] is None else static[1] * sh,
                       None if static[2] is None else static[2] * sw, static[3]])
        return out


__all__ = ["Conv1D", "Conv2D", "Conv2DTranspose", "SeparableConv2D", "MaxPooling1D",
           "MaxPooling2D", "AveragePooling1D", "AveragePooling2D", "GlobalAveragePooling1D",
           "GlobalAveragePooling2D", "GlobalMaxPooling1D", "GlobalMaxPooling2D",
           "ZeroPadding2D", "UpSampling2D"]
