"""``CuDNNLSTM`` and ``CuDNNGRU``: the TF 1.x Keras layers with the cuDNN kernels'
arithmetic, computed here on any device. They differ from ``LSTM``/``GRU``: the gates
use the sigmoid (not ``hard_sigmoid``), each gate has an input and a recurrent bias
(``bias`` is twice as long: [input biases, recurrent biases]), and the GRU applies the
reset gate after the recurrent product."""

from __future__ import annotations

from typing import Any, List, Tuple

from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.keras.layers.base import to_list
from tensorfleet.keras.layers.rnn import GRUCell, LSTMCell, RNN
from tensorfleet.keras import regularizers as _regs
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import init_ops
from tensorfleet.ops import math_ops as M


class _DoubleBias:
    """Builds ``bias`` of 2 * gates * units: the input biases, then the recurrent ones."""

    def build(self, input_shape: Any) -> None:
        """Creates ``kernel``, ``recurrent_kernel`` and the double ``bias``."""
        use_bias = self.use_bias
        self.use_bias = False
        try:
            super().build(input_shape)  # type: ignore[misc]
        finally:
            self.use_bias = use_bias
        n = self._gates * self.units
        if use_bias:
            self.bias = self.add_weight("bias", [2 * n], initializer=self._double_init(),
                                        regularizer=self._regs[2], constraint=self._cons[2])

    def _double_init(self) -> Any:
        base = self._bias_init()
        n = self._gates * self.units

        def init(shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
            return A.concat([base([n], dtype=dtype), init_ops.Zeros()([n], dtype=dtype)], 0)
        return init

    def _biases(self) -> Tuple[Any, Any]:
        if self.bias is None:
            return None, None
        return A.split(convert_to_tensor(self.bias), 2, axis=0)


class _CuDNNLSTMCell(_DoubleBias, LSTMCell):
    def call(self, inputs: Tensor, states: Any) -> Tuple[Tensor, List[Tensor]]:  # type: ignore[override]
        h_prev, c_prev = states[0], states[1]
        z = M.add(M.matmul(inputs, self.kernel), M.matmul(h_prev, self.recurrent_kernel))
        bi, br = self._biases()
        if bi is not None:
            z = M.add(z, M.add(bi, br))
        zi, zf, zc, zo = A.split(z, 4, axis=1)
        c = M.add(M.multiply(M.sigmoid(zf), c_prev), M.multiply(M.sigmoid(zi), M.tanh(zc)))
        h = M.multiply(M.sigmoid(zo), M.tanh(c))
        return h, [h, c]


class _CuDNNGRUCell(_DoubleBias, GRUCell):
    def call(self, inputs: Tensor, states: Any) -> Tuple[Tensor, List[Tensor]]:  # type: ignore[override]
        h_prev = to_list(states)[0]
        x = M.matmul(inputs, self.kernel)
        r_all = M.matmul(h_prev, self.recurrent_kernel)
        bi, br = self._biases()
        if bi is not None:
            x, r_all = M.add(x, bi), M.add(r_all, br)
        xz, xr, xh = A.split(x, 3, axis=1)
        rz, rr, rh = A.split(r_all, 3, axis=1)
        z = M.sigmoid(M.add(xz, rz))
        r = M.sigmoid(M.add(xr, rr))
        hh = M.tanh(M.add(xh, M.multiply(r, rh)))
        h = M.add(M.multiply(z, h_prev), M.multiply(M.subtract(1.0, z), hh))
        return h, [h]


class _CuDNN(RNN):
    _cell: Any = None
    _cell_name = ""

    def __init__(self, units: int, kernel_initializer: Any = "glorot_uniform",
                 recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, recurrent_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, recurrent_constraint: Any = None,
                 bias_constraint: Any = None, return_sequences: bool = False,
                 return_state: bool = False, go_backwards: bool = False,
                 stateful: bool = False, **kwargs: Any):
        cell_kw = dict(kernel_initializer=kernel_initializer,
                       recurrent_initializer=recurrent_initializer,
                       bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                       recurrent_regularizer=recurrent_regularizer,
                       bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                       recurrent_constraint=recurrent_constraint,
                       bias_constraint=bias_constraint, **self._extra)
        cell = self._cell(units, name=self._cell_name, **cell_kw)
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, **kwargs)
        self.activity_regularizer = _regs.get(activity_regularizer)

    _extra: dict = {}


class CuDNNLSTM(_CuDNN):
    """LSTM with sigmoid gates and separate input/recurrent biases (states ``[h, c]``);
    ``unit_forget_bias`` sets the input forget bias to one."""

    _cell, _cell_name = _CuDNNLSTMCell, "cu_dnnlstm_cell"

    def __init__(self, units: int, unit_forget_bias: bool = True, **kwargs: Any):
        self._extra = {"unit_forget_bias": unit_forget_bias}
        super().__init__(units, **kwargs)


class CuDNNGRU(_CuDNN):
    """GRU with sigmoid gates, separate input/recurrent biases, and the reset gate
    applied after the recurrent product."""

    _cell, _cell_name = _CuDNNGRUCell, "cu_dnngru_cell"


__all__ = ["CuDNNLSTM", "CuDNNGRU"]
