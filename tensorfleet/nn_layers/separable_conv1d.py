"""``tf.layers.SeparableConv1D`` and ``tf.layers.separable_conv1d``: a depthwise 1-D
convolution then a pointwise one mixing channels, over [batch, width, channels]
inputs. It runs as the 2-D separable convolution over a height of 1, as in TensorFlow;
``depthwise_kernel`` is [k, in_channels, depth_multiplier] and ``pointwise_kernel``
[1, in_channels * depth_multiplier, filters]."""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet.framework.graph import Tensor
from tensorfleet.nn_layers.objects import SeparableConv2D
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import init_ops
from tensorfleet.ops import nn_conv_variant_ops as CM


class SeparableConv1D(SeparableConv2D):
    """Depthwise-separable 1-D convolution layer."""

    _rank = 1

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1,
                 padding: str = "valid", data_format: str = "channels_last",
                 dilation_rate: Any = 1, depth_multiplier: int = 1, **kwargs: Any):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         depth_multiplier=depth_multiplier, **kwargs)

    def _kernel_shapes(self, c: int, m: int) -> tuple:
        return [self.kernel_size[0], c, m], [1, c * m, self.filters]

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """Separable convolution of ``inputs``, then bias and activation."""
        x = A.expand_dims(inputs, 1)
        depthwise = A.expand_dims(self.depthwise_kernel, 0)
        pointwise = A.expand_dims(self.pointwise_kernel, 0)
        y = CM.separable_conv2d(x, depthwise, pointwise, [1, 1, self.strides[0], 1],
                                self.padding, rate=[1, self.dilation_rate[0]])
        return self._finish(A.squeeze(y, [1]))


def separable_conv1d(inputs: Any, filters: int, kernel_size: Any, strides: Any = 1,
                     padding: str = "valid", data_format: str = "channels_last",
                     dilation_rate: Any = 1, depth_multiplier: int = 1,
                     activation: Any = None, use_bias: bool = True,
                     depthwise_initializer: Any = None, pointwise_initializer: Any = None,
                     bias_initializer: Any = init_ops.Zeros(),
                     depthwise_regularizer: Any = None, pointwise_regularizer: Any = None,
                     bias_regularizer: Any = None, activity_regularizer: Any = None,
                     depthwise_constraint: Any = None, pointwise_constraint: Any = None,
                     bias_constraint: Any = None, trainable: bool = True,
                     name: Optional[str] = None, reuse: Any = None) -> Tensor:
    """``SeparableConv1D`` applied to ``inputs`` [batch, width, channels]."""
    args = dict(locals())
    x, reuse = args.pop("inputs"), args.pop("reuse")
    return SeparableConv1D(**args, _reuse=reuse)(x)


__all__ = ["SeparableConv1D", "separable_conv1d"]
