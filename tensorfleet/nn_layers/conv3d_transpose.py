"""``tf.layers.Conv3DTranspose`` and ``tf.layers.conv3d_transpose``: the transposed 3-D
convolution layer over [batch, depth, height, width, channels] inputs."""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet.framework.graph import Tensor
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import init_ops
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.nn_conv_variant_ops import conv3d_transpose as _conv3d_transpose
from tensorfleet.nn_layers.objects import _Conv, deconv_output_length


class Conv3DTranspose(_Conv):
    """Transposed 3-D convolution; ``kernel`` is [kd, kh, kw, filters, in_channels]."""

    _rank = 3

    def build(self, input_shape: Any) -> None:
        """Creates ``kernel`` [*kernel_size, filters, in_channels] and ``bias``."""
        self._make(list(self.kernel_size) + [self.filters, self._in_channels(input_shape)])

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """Transposed convolution of ``inputs`` with ``kernel``, then bias and activation."""
        shp = inputs.shape.as_list()
        dims = [deconv_output_length(shp[i + 1], self.kernel_size[i], self.strides[i],
                                     self.padding, self.dilation_rate[i]) for i in range(3)]
        static = [shp[0]] + dims + [self.filters]
        if None in static:
            # Unknown sizes are taken from the input at run time.
            dyn = A.shape(inputs)
            parts: List[Any] = [dyn[0] if static[0] is None else static[0]]
            for i in range(3):
                if dims[i] is not None:
                    parts.append(dims[i])
                    continue
                eff = (self.kernel_size[i] - 1) * self.dilation_rate[i] + 1
                extra = max(eff - self.strides[i], 0) if self.padding == "VALID" else 0
                parts.append(M.add(M.multiply(dyn[i + 1], self.strides[i]), extra))
            out_shape: Any = A.stack(parts + [self.filters])
        else:
            out_shape = static
        y = _conv3d_transpose(inputs, self.kernel, out_shape, [1, *self.strides, 1],
                              padding=self.padding, dilations=[1, *self.dilation_rate, 1])
        y.set_shape(static)
        return self._finish(y)


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
