"""Keras convolutions beyond the 2-D ones of ``conv.py``: ``Conv3D``, the 1-D and 3-D
transposed convolutions, the depthwise convolutions (1-D and 2-D) and ``SeparableConv1D``.

All take channels-last inputs. The 1-D depthwise and separable forms run the 2-D kernels
on inputs with a unit height axis, as Keras does; weights keep the Keras shapes and names
(``kernel``, ``depthwise_kernel``, ``pointwise_kernel``, ``bias``).
"""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet.framework.graph import Tensor
from tensorfleet.keras import activations as _acts
from tensorfleet.keras import initializers as _inits
from tensorfleet.keras import regularizers as _regs
from tensorfleet.keras.layers.base import Layer
from tensorfleet.keras.layers.conv import _data_format
from tensorfleet.nn_layers import objects as _tfl
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import nn_conv_variant_ops as CV
from tensorfleet.ops import nn_ops as N


class _ConvVariant(Layer):
    """Shared construction of the convolution variants: arguments, bias, activation."""

    _rank = 2

    def __init__(self, rank: int, filters: Optional[int], kernel_size: Any, strides: Any,
                 padding: str, data_format: Optional[str], dilation_rate: Any,
                 activation: Any, use_bias: bool, bias_initializer: Any, bias_regularizer: Any,
                 activity_regularizer: Any, bias_constraint: Any, **kwargs: Any):
        super().__init__(**kwargs)
        name = type(self).__name__
        _data_format(data_format, name)
        padding = str(padding).lower()
        if padding not in ("valid", "same"):
            raise ValueError(f"{name}: padding must be 'valid' or 'same', got {padding!r}")
        self.rank = rank
        self.filters = None if filters is None else int(filters)
        self.kernel_size = _tfl._tuple(kernel_size, rank, "kernel_size", name)
        self.strides = _tfl._tuple(strides, rank, "strides", name)
        self.dilation_rate = _tfl._tuple(dilation_rate, rank, "dilation_rate", name)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(f"{name}: strides > 1 together with dilation_rate > 1 is not "
                             f"supported")
        self.padding = padding
        self.activation = _acts.get(activation)
        self.use_bias = bool(use_bias)
        self.bias_initializer = _inits.get(bias_initializer)
        self.bias_regularizer = _regs.get(bias_regularizer)
        self.activity_regularizer = _regs.get(activity_regularizer)
        self.bias_constraint = bias_constraint
        self.bias: Any = None

    def _channels(self, input_shape: Any) -> int:
        dims = list(input_shape)
        if len(dims) != self.rank + 2 or dims[-1] is None:
            raise ValueError(f"{type(self).__name__}: inputs must be rank {self.rank + 2} with "
                             f"a known channel axis, got shape {input_shape}")
        return int(dims[-1])

    def _add_bias(self, n: int) -> None:
        if self.use_bias:
            self.bias = self.add_weight("bias", [n], initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)

    def _finish(self, y: Tensor) -> Tensor:
        if self.bias is not None:
            y = N.bias_add(y, self.bias)
        if self.activation is not None:
            y = self.activation(y)
        if self.activity_regularizer is not None:
            self._keras_losses.append(self.activity_regularizer(y))
        return y


class _Conv(_ConvVariant):
    """A plain convolution of rank ``_rank`` with a [*kernel_size, in, filters] kernel."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 data_format: Optional[str] = None, dilation_rate: Any = 1,
                 groups: int = 1, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, **kwargs: Any):
        if groups != 1:
            raise ValueError(f"{type(self).__name__}: groups={groups} is not supported "
                             f"(only 1)")
        super().__init__(self._rank, filters, kernel_size, strides, padding, data_format,
                         dilation_rate, activation, use_bias, bias_initializer,
                         bias_regularizer, activity_regularizer, bias_constraint, **kwargs)
        self.kernel_initializer = _inits.get(kernel_initializer)
        self.kernel_regularizer = _regs.get(kernel_regularizer)
        self.kernel_constraint = kernel_constraint

    def build(self, input_shape: Any) -> None:
        """Creates ``kernel`` [*kernel_size, in_channels, filters] and ``bias``."""
        c = self._channels(input_shape)
        self.kernel = self.add_weight("kernel", [*self.kernel_size, c, self.filters],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self._add_bias(self.filters)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """Convolves ``inputs`` with ``kernel``, adds ``bias``, applies the activation."""
        y = CV.convolution(inputs, self.kernel, padding=self.padding.upper(),
                           strides=list(self.strides), dilation_rate=list(self.dilation_rate))
        return self._finish(y)


class Conv3D(_Conv):
    """3-D convolution over [batch, depth, height, width, channels] inputs."""

    _rank = 3


class _ConvTranspose(_Conv):
    """Transposed convolution of rank ``_rank``; ``kernel`` is [*kernel_size, filters, in]."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 output_padding: Any = None, data_format: Optional[str] = None,
                 dilation_rate: Any = 1, **kwargs: Any):
        name = type(self).__name__
        if output_padding is not None:
            raise ValueError(f"{name}: output_padding is not supported")
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate, **kwargs)
        if max(self.dilation_rate) != 1:
            raise ValueError(f"{name}: dilation_rate other than 1 is not supported")
        self.output_padding = None

    def build(self, input_shape: Any) -> None:
        """Creates ``kernel`` [*kernel_size, filters, in_channels] and ``bias``."""
        c = self._channels(input_shape)
        self.kernel = self.add_weight("kernel", [*self.kernel_size, self.filters, c],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self._add_bias(self.filters)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """The transposed convolution of ``inputs``, then bias and activation."""
        pad = self.padding.upper()
        dyn = A.shape(inputs)
        static = inputs.shape.as_list()
        sizes: List[Any] = [dyn[0]]
        out_static: List[Optional[int]] = [static[0]]
        for i in range(self.rank):
            n = _tfl.deconv_output_length(static[i + 1], self.kernel_size[i], self.strides[i],
                                          pad)
            out_static.append(n)
            if n is None:
                k, s = self.kernel_size[i], self.strides[i]
                sizes.append(dyn[i + 1] * s + (0 if pad == "SAME" else max(k - s, 0)))
            else:
                sizes.append(n)
        sizes.append(self.filters)
        out_static.append(self.filters)
        y = CV.conv_transpose(inputs, self.kernel, A.stack(sizes), list(self.strides),
                              padding=pad)
        y.set_shape(out_static)
        return self._finish(y)


class Conv1DTranspose(_ConvTranspose):
    """Transposed 1-D convolution over [batch, steps, channels] inputs."""

    _rank = 1


class Conv3DTranspose(_ConvTranspose):
    """Transposed 3-D convolution over [batch, depth, height, width, channels] inputs."""

    _rank = 3


class _Depthwise(_ConvVariant):
    """Depthwise convolution: each input channel convolved with ``depth_multiplier``
    kernels of its own; rank 1 runs as rank 2 with a unit height axis."""

    def __init__(self, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 depth_multiplier: int = 1, data_format: Optional[str] = None,
                 dilation_rate: Any = 1, activation: Any = None, use_bias: bool = True,
                 depthwise_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 depthwise_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, depthwise_constraint: Any = None,
                 bias_constraint: Any = None, **kwargs: Any):
        super().__init__(self._rank, None, kernel_size, strides, padding, data_format,
                         dilation_rate, activation, use_bias, bias_initializer,
                         bias_regularizer, activity_regularizer, bias_constraint, **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        if self.strides[0] != self.strides[-1]:
            raise ValueError(f"{type(self).__name__}: strides must be equal in both "
                             f"directions, got {strides!r}")
        self.depthwise_initializer = _inits.get(depthwise_initializer)
        self.depthwise_regularizer = _regs.get(depthwise_regularizer)
        self.depthwise_constraint = depthwise_constraint

    def build(self, input_shape: Any) -> None:
        """Creates ``depthwise_kernel`` [*kernel_size, in, depth_multiplier] and ``bias``."""
        c = self._channels(input_shape)
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", [*self.kernel_size, c, self.depth_multiplier],
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint)
        self._add_bias(c * self.depth_multiplier)

    def _as_2d(self) -> tuple:
        if self.rank == 1:
            return (1, self.strides[0], self.strides[0], 1), (1, self.dilation_rate[0])
        return (1, *self.strides, 1), tuple(self.dilation_rate)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """The depthwise convolution of ``inputs``, then bias and activation."""
        strides, rate = self._as_2d()
        x, k = inputs, self.depthwise_kernel
        if self.rank == 1:
            x, k = A.expand_dims(x, 1), A.expand_dims(k, 0)
        y = CV.depthwise_conv2d(x, k, list(strides), self.padding.upper(), rate=list(rate))
        if self.rank == 1:
            y = A.squeeze(y, [1])
        return self._finish(y)


class DepthwiseConv2D(_Depthwise):
    """Depthwise 2-D convolution over [batch, height, width, channels] inputs."""

    def __init__(self, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
                 depth_multiplier: int = 1, data_format: Optional[str] = None,
                 dilation_rate: Any = (1, 1), **kwargs: Any):
        super().__init__(kernel_size, strides=strides, padding=padding,
                         depth_multiplier=depth_multiplier, data_format=data_format,
                         dilation_rate=dilation_rate, **kwargs)


class DepthwiseConv1D(_Depthwise):
    """Depthwise 1-D convolution over [batch, steps, channels] inputs."""

    _rank = 1


class SeparableConv1D(_ConvVariant):
    """Depthwise then pointwise 1-D convolution over [batch, steps, channels] inputs."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 data_format: Optional[str] = None, dilation_rate: Any = 1,
                 depth_multiplier: int = 1, activation: Any = None, use_bias: bool = True,
                 depthwise_initializer: Any = "glorot_uniform",
                 pointwise_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 depthwise_regularizer: Any = None, pointwise_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 depthwise_constraint: Any = None, pointwise_constraint: Any = None,
                 bias_constraint: Any = None, **kwargs: Any):
        super().__init__(1, filters, kernel_size, strides, padding, data_format,
                         dilation_rate, activation, use_bias, bias_initializer,
                         bias_regularizer, activity_regularizer, bias_constraint, **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        self._inits = (_inits.get(depthwise_initializer), _inits.get(pointwise_initializer))
        self._regs = (_regs.get(depthwise_regularizer), _regs.get(pointwise_regularizer))
        self._cons = (depthwise_constraint, pointwise_constraint)

    def build(self, input_shape: Any) -> None:
        """Creates ``depthwise_kernel`` [k, in, mult], ``pointwise_kernel``
        [1, in*mult, filters] and ``bias``."""
        c = self._channels(input_shape)
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", [self.kernel_size[0], c, self.depth_multiplier],
            initializer=self._inits[0], regularizer=self._regs[0], constraint=self._cons[0])
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel", [1, c * self.depth_multiplier, self.filters],
            initializer=self._inits[1], regularizer=self._regs[1], constraint=self._cons[1])
        self._add_bias(self.filters)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """Depthwise then pointwise convolution of ``inputs``, bias and activation."""
        s = self.strides[0]
        y = CV.separable_conv2d(A.expand_dims(inputs, 1), A.expand_dims(self.depthwise_kernel, 0),
                                A.expand_dims(self.pointwise_kernel, 0), [1, s, s, 1],
                                self.padding.upper(), rate=[1, self.dilation_rate[0]])
        return self._finish(A.squeeze(y, [1]))


__all__ = ["Conv3D", "Conv1DTranspose", "Conv3DTranspose", "DepthwiseConv1D", "DepthwiseConv2D",
           "SeparableConv1D"]
