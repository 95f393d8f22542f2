"""``tf.layers.Conv3DTranspose`` and ``tf.layers.conv3d_transpose``: the transposed 3-D
convolution layer over [batch, depth, height, width, channels] inputs."""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet.framework.graph import Tensor
from tensorfleet.ops import init_ops
from tensorfleet.ops.nn_conv_variant_ops import conv3d_transpose as _conv3d_transpose
from tensorfleet.nn_layers.objects import Conv2DTranspose


class Conv3DTranspose(Conv2DTranspose):
    """Transposed 3-D convolution; ``kernel`` is [kd, kh, kw, filters, in_channels]."""

    _rank = 3
    _transpose = staticmethod(_conv3d_transpose)


def conv3d_transpose(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1, 1),
                     padding: str = "valid", data_format: str = "channels_last",
                     activation: Any = None, use_bias: bool = True,
                     kernel_initializer: Any = None, bias_initializer: Any = init_ops.Zeros(),
                     kernel_regularizer: Any = None, bias_regularizer: Any = None,
                     activity_regularizer: Any = None, kernel_constraint: Any = None,
                     bias_constraint: Any = None, trainable: bool = True,
                     name: Optional[str] = None, reuse: Any = None) -> Tensor:
    """``Conv3DTranspose`` applied to ``inputs``."""
    return Conv3DTranspose(filters, kernel_size, strides=strides, padding=padding,
                           data_format=data_format, activation=activation, use_bias=use_bias,
                           kernel_initializer=kernel_initializer,
                           bias_initializer=bias_initializer,
                           kernel_regularizer=kernel_regularizer,
                           bias_regularizer=bias_regularizer,
                           activity_regularizer=activity_regularizer,
                           kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                           trainable=trainable, name=name, _reuse=reuse)(inputs)


__all__ = ["Conv3DTranspose", "conv3d_transpose"]
