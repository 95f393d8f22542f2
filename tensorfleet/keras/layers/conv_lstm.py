"""Keras convolutional LSTM layers: ``ConvLSTM1D/2D/3D`` over
[batch, time, *spatial, channels]. The gates (i, f, c, o) are convolutions of the input
(with the layer's strides and padding) plus convolutions of the previous ``h``
('same' padding, stride 1). The time steps are unrolled (their number must be known)."""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet.framework.graph import Tensor
from tensorfleet.keras import activations as _acts
from tensorfleet.keras import initializers as _inits
from tensorfleet.keras import regularizers as _regs
from tensorfleet.keras.backend_nn import rnn as _rnn
from tensorfleet.keras.layers.base import Layer
from tensorfleet.keras.layers.conv import _data_format
from tensorfleet.nn_layers import objects as _tfl
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import init_ops
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_conv_variant_ops as CV


class _ConvLSTM(Layer):
    _rank = 2

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 data_format: Optional[str] = None, dilation_rate: Any = 1,
                 activation: Any = "tanh", recurrent_activation: Any = "hard_sigmoid",
                 use_bias: bool = True, kernel_initializer: Any = "glorot_uniform",
                 recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
                 unit_forget_bias: bool = True, kernel_regularizer: Any = None,
                 recurrent_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 recurrent_constraint: Any = None, bias_constraint: Any = None,
                 return_sequences: bool = False, return_state: bool = False,
                 go_backwards: bool = False, stateful: bool = False, dropout: float = 0.0,
                 recurrent_dropout: float = 0.0, **kwargs: Any):
        super().__init__(**kwargs)
        name = type(self).__name__
        _data_format(data_format, name)
        if stateful:
            raise ValueError(f"{name}: stateful=True is not supported")
        if dropout or recurrent_dropout:
            raise ValueError(f"{name}: dropout and recurrent_dropout are not supported")
        padding = str(padding).lower()
        if padding not in ("valid", "same"):
            raise ValueError(f"{name}: padding must be 'valid' or 'same', got {padding!r}")
        self.filters, self.padding = int(filters), padding
        self.kernel_size = _tfl._tuple(kernel_size, self._rank, "kernel_size", name)
        self.strides = _tfl._tuple(strides, self._rank, "strides", name)
        self.dilation_rate = _tfl._tuple(dilation_rate, self._rank, "dilation_rate", name)
        self.activation = _acts.get(activation)
        self.recurrent_activation = _acts.get(recurrent_activation)
        self.use_bias, self.unit_forget_bias = bool(use_bias), bool(unit_forget_bias)
        self._inits = (_inits.get(kernel_initializer), _inits.get(recurrent_initializer),
                       _inits.get(bias_initializer))
        self._regs = (_regs.get(kernel_regularizer), _regs.get(recurrent_regularizer),
                      _regs.get(bias_regularizer))
        self._cons = (kernel_constraint, recurrent_constraint, bias_constraint)
        self.activity_regularizer = _regs.get(activity_regularizer)
        self.return_sequences, self.return_state = bool(return_sequences), bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.bias: Any = None

    def build(self, input_shape: Any) -> None:
        """Creates ``kernel``, ``recurrent_kernel`` and ``bias``."""
        dims = list(input_shape)
        if len(dims) != self._rank + 3 or dims[-1] is None:
            raise ValueError(f"{type(self).__name__}: inputs must be rank {self._rank + 3} "
                             f"[batch, time, *spatial, channels], got {input_shape}")
        c, f = int(dims[-1]), self.filters
        self.kernel = self.add_weight("kernel", [*self.kernel_size, c, 4 * f],
                                      initializer=self._inits[0], regularizer=self._regs[0],
                                      constraint=self._cons[0])
        self.recurrent_kernel = self.add_weight("recurrent_kernel",
                                                [*self.kernel_size, f, 4 * f],
                                                initializer=self._inits[1],
                                                regularizer=self._regs[1],
                                                constraint=self._cons[1])
        if self.use_bias:
            init = self._inits[2]
            if self.unit_forget_bias:
                base = init

                def init(shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
                    return A.concat([base([f], dtype=dtype), init_ops.Ones()([f], dtype=dtype),
                                     base([2 * f], dtype=dtype)], 0)
            self.bias = self.add_weight("bias", [4 * f], initializer=init,
                                        regularizer=self._regs[2], constraint=self._cons[2])

    def _step(self, x: Tensor, states: List[Tensor]) -> tuple:
        h, c = states[0], states[1]
        zx = CV.convolution(x, self.kernel, padding=self.padding.upper(),
                            strides=list(self.strides), dilation_rate=list(self.dilation_rate))
        if self.bias is not None:
            zx = M.add(zx, self.bias)
        z = M.add(zx, CV.convolution(h, self.recurrent_kernel, padding="SAME"))
        zi, zf, zc, zo = A.split(z, 4, axis=-1)
        i = self.recurrent_activation(zi)
        f = self.recurrent_activation(zf)
        c = M.add(M.multiply(f, c), M.multiply(i, self.activation(zc)))
        o = self.recurrent_activation(zo)
        h = M.multiply(o, self.activation(c))
        return h, [h, c]

    def call(self, inputs: Tensor) -> Any:  # type: ignore[override]
        """The last output (or every step's), and with ``return_state`` ``[h, c]``."""
        x0 = inputs[:, 0]
        zero_k = A.zeros([*self.kernel_size, inputs.shape.as_list()[-1], self.filters],
                         dtype=inputs.dtype)
        # A convolution of zeros has the state's shape, whatever the batch size.
        zero = CV.convolution(A.zeros_like(x0), zero_k, padding=self.padding.upper(),
                              strides=list(self.strides),
                              dilation_rate=list(self.dilation_rate))
        last, outputs, states = _rnn(self._step, inputs, [zero, zero],
                                     go_backwards=self.go_backwards)
        out = outputs if self.return_sequences else last
        if self.activity_regularizer is not None:
            self._keras_losses.append(self.activity_regularizer(out))
        return [out] + list(states) if self.return_state else out


class ConvLSTM1D(_ConvLSTM):
    """Convolutional LSTM over [batch, time, steps, channels]."""

    _rank = 1


class ConvLSTM2D(_ConvLSTM):
    """Convolutional LSTM over [batch, time, h, w, channels]."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1),
                 dilation_rate: Any = (1, 1), **kwargs: Any):
        super().__init__(filters, kernel_size, strides=strides, dilation_rate=dilation_rate,
                         **kwargs)


class ConvLSTM3D(_ConvLSTM):
    """Convolutional LSTM over [batch, time, d, h, w, channels]."""

    _rank = 3

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1, 1),
                 dilation_rate: Any = (1, 1, 1), **kwargs: Any):
        super().__init__(filters, kernel_size, strides=strides, dilation_rate=dilation_rate,
                         **kwargs)


__all__ = ["ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D"]
