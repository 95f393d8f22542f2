"""``tf.contrib.cudnn_rnn``: the cuDNN RNN layers, computed on the CPU with cuDNN's
equations and parameter layout, and the cuDNN-compatible cells.

``CudnnLSTM``, ``CudnnGRU``, ``CudnnRNNTanh`` and ``CudnnRNNRelu`` take time-major inputs
``[time, batch, input_size]`` and keep all their weights in one flat "opaque" parameter
vector, as cuDNN does. Its layout here is cuDNN's canonical order: for each layer (and
direction), the input matrices of each gate (``[num_units, input_dim]``) then the
recurrent ones (``[num_units, num_units]``); after all the matrices, for each layer the
input biases then the recurrent biases of each gate. Gates are in cuDNN's order: LSTM
``i, f, c, o``; GRU ``r, z, n``.

Both interfaces of TensorFlow 1.x are there. Built with ``input_size`` (the 1.2/1.3
form), the object holds no variable: ``params_size()`` gives the length of the vector and
``cell(inputs, h, c, params, is_training)`` runs it. Built without (the 1.4+ layer form),
the first call ``cell(inputs, initial_state=None, training=True)`` creates the vector
variable ``<name>/opaque_kernel`` and returns ``outputs, (h, c)`` (``outputs, (h,)`` for
the others).

``CudnnCompatibleLSTMCell``/``CudnnCompatibleGRUCell`` compute the same functions as RNN
cells, with the variable layout ``RNNParamsSaveable`` converts the opaque vector to, so a
model trained with a Cudnn layer is restored into these cells.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import convert_to_tensor, name_scope
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import init_ops
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops.functional_ops import scan
from tensorfleet.ops.sort_ops import reverse
from tensorfleet.ops.rnn_cell_impl import LSTMCell, RNNCell, _float_tensor, _input_depth
from tensorfleet.ops.variable_scope import get_variable, variable_scope
from tensorfleet.ops import state_ops
from tensorfleet.ops.control_flow_ops import cond

CUDNN_LSTM, CUDNN_GRU, CUDNN_RNN_TANH, CUDNN_RNN_RELU = "lstm", "gru", "rnn_tanh", "rnn_relu"
CUDNN_INPUT_LINEAR_MODE = "linear_input"
CUDNN_RNN_UNIDIRECTION, CUDNN_RNN_BIDIRECTION = "unidirectional", "bidirectional"
_GATES = {CUDNN_LSTM: 4, CUDNN_GRU: 3, CUDNN_RNN_TANH: 1, CUDNN_RNN_RELU: 1}


class _CudnnRNN:
    """The shared machinery; see the module docstring."""

    _mode = ""

    def __init__(self, num_layers: int, num_units: int, input_mode: Any = "linear_input",
                 direction: str = CUDNN_RNN_UNIDIRECTION, dropout: float = 0.0,
                 seed: Optional[int] = None, dtype: Any = _dtypes.float32,
                 kernel_initializer: Any = None, bias_initializer: Any = None,
                 name: Optional[str] = None, input_size: Optional[int] = None):
        # TF 1.2/1.3 passed input_size third, where 1.4 has input_mode.
        if isinstance(input_mode, int) and not isinstance(input_mode, bool):
            input_mode, input_size = CUDNN_INPUT_LINEAR_MODE, input_mode
        if input_mode != CUDNN_INPUT_LINEAR_MODE:
            raise ValueError(f"{type(self).__name__}: input_mode {input_mode!r} is not "
                             f"supported; only 'linear_input'")
        if direction not in (CUDNN_RNN_UNIDIRECTION, CUDNN_RNN_BIDIRECTION):
            raise ValueError(f"direction must be 'unidirectional' or 'bidirectional', got "
                             f"{direction!r}")
        if int(num_layers) < 1 or int(num_units) < 1:
            raise ValueError(f"num_layers and num_units must be positive, got {num_layers}, "
                             f"{num_units}")
        if not 0.0 <= float(dropout) < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.num_layers, self.num_units = int(num_layers), int(num_units)
        self.direction, self.dropout, self.seed = direction, float(dropout), seed
        self.dtype = _dtypes.as_dtype(dtype)
        self.input_size = None if input_size is None else int(input_size)
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer
        self._name = name or f"cudnn_{self._mode}"
        self._opaque: Any = None

    @property
    def num_dirs(self) -> int:
        return 2 if self.direction == CUDNN_RNN_BIDIRECTION else 1

    @property
    def rnn_mode(self) -> str:
        return self._mode

    # -- the parameter layout -----------------------------------------------------------
    def _shapes(self, input_size: int) -> Tuple[List[List[int]], List[List[int]]]:
        g, u, w, b = _GATES[self._mode], self.num_units, [], []
        for layer in range(self.num_layers):
            depth = input_size if layer == 0 else u * self.num_dirs
            for _ in range(self.num_dirs):
                w += [[u, depth]] * g + [[u, u]] * g
                b += [[u]] * (2 * g)
        return w, b

    def _input_size(self, input_size: Optional[int]) -> int:
        size = self.input_size if input_size is None else input_size
        if size is None:
            raise ValueError(f"{type(self).__name__}: the input size is not known yet; build "
                             f"the layer with input_size or call it first")
        return int(size)

    def params_size(self, input_size: Optional[int] = None) -> int:
        """The length of the opaque parameter vector."""
        w, b = self._shapes(self._input_size(input_size))
        return sum(s[0] * s[1] for s in w) + sum(s[0] for s in b)

    def params_to_canonical(self, params: Any, input_size: Optional[int] = None
                            ) -> Tuple[List[Any], List[Any]]:
        """``(weights, biases)``: the opaque vector cut into cuDNN's canonical tensors."""
        ws, bs = self._shapes(self._input_size(input_size))
        params = convert_to_tensor(params)
        out, at = [], 0
        for shape in ws + bs:
            n = shape[0] * (shape[1] if len(shape) == 2 else 1)
            out.append(A.reshape(A.slice(params, [at], [n]), shape))
            at += n
        return out[:len(ws)], out[len(ws):]

    def canonical_to_params(self, weights: Sequence[Any], biases: Sequence[Any]) -> Any:
        """The opaque vector holding ``weights`` and ``biases`` (canonical order)."""
        if len(weights) != len(biases):
            raise ValueError(f"canonical_to_params: {len(weights)} weights but "
                             f"{len(biases)} biases; cuDNN has one bias per matrix")
        return A.concat([A.reshape(t, [-1]) for t in list(weights) + list(biases)], 0)

    # -- running ------------------------------------------------------------------------
    def _step(self, r: Any, b_r: Any) -> Any:
        """One time step of one layer: ``(h, c), x_t W^T + b_W -> (h', c')``."""
        mode = self._mode

        def lstm(state: Any, xw_t: Any) -> Any:
            h, c = state
            z = M.add(xw_t, N.bias_add(M.matmul(h, r, transpose_b=True), b_r))
            i, f, g, o = A.split(z, 4, axis=1)
            c2 = M.add(M.multiply(M.sigmoid(f), c), M.multiply(M.sigmoid(i), M.tanh(g)))
            return M.multiply(M.sigmoid(o), M.tanh(c2)), c2

        def gru(state: Any, xw_t: Any) -> Any:
            h, _ = state
            hr = N.bias_add(M.matmul(h, r, transpose_b=True), b_r)
            xr, xz, xn = A.split(xw_t, 3, axis=1)
            hr_r, hr_z, hr_n = A.split(hr, 3, axis=1)
            rg, z = M.sigmoid(M.add(xr, hr_r)), M.sigmoid(M.add(xz, hr_z))
            n = M.tanh(M.add(xn, M.multiply(rg, hr_n)))
            h2 = M.add(M.multiply(M.subtract(1.0, z), n), M.multiply(z, h))
            return h2, h2

        def plain(state: Any, xw_t: Any) -> Any:
            h, _ = state
            pre = M.add(xw_t, N.bias_add(M.matmul(h, r, transpose_b=True), b_r))
            h2 = M.tanh(pre) if mode == CUDNN_RNN_TANH else N.relu(pre)
            return h2, h2
        return {CUDNN_LSTM: lstm, CUDNN_GRU: gru}.get(mode, plain)

    def _run(self, inputs: Any, h0: Any, c0: Any, params: Any, training: Any) -> Any:
        x = convert_to_tensor(inputs)
        if x.shape.ndims != 3:
            raise ValueError(f"{type(self).__name__}: inputs must be [time, batch, depth], "
                             f"got shape {x.shape}")
        depth = x.shape.as_list()[2]
        if depth is None:
            raise ValueError(f"{type(self).__name__}: the input depth must be known")
        if self.input_size is not None and depth != self.input_size:
            raise ValueError(f"{type(self).__name__}: inputs have depth {depth}, the layer "
                             f"was built for input_size {self.input_size}")
        weights, biases = self.params_to_canonical(params, depth)
        g, d = _GATES[self._mode], self.num_dirs
        hs, cs, layer_in = [], [], x
        for layer in range(self.num_layers):
            outs = []
            for di in range(d):
                k = layer * d + di
                w_x = A.concat(weights[2 * g * k:2 * g * k + g], 0)
                w_h = A.concat(weights[2 * g * k + g:2 * g * (k + 1)], 0)
                b_x = A.concat(biases[2 * g * k:2 * g * k + g], 0)
                b_h = A.concat(biases[2 * g * k + g:2 * g * (k + 1)], 0)
                seq = reverse(layer_in, [0]) if di == 1 else layer_in
                shape = A.shape(seq)
                flat = A.reshape(seq, [-1, seq.shape.as_list()[2]])
                xw = A.reshape(N.bias_add(M.matmul(flat, w_x, transpose_b=True), b_x),
                               A.stack([shape[0], shape[1], g * self.num_units]))
                init_h = h0[k]
                init_c = c0[k] if c0 is not None else init_h
                out_h, out_c = scan(self._step(w_h, b_h), xw,
                                    initializer=(init_h, init_c))
                hs.append(out_h[-1])
                cs.append(out_c[-1])
                outs.append(reverse(out_h, [0]) if di == 1 else out_h)
            layer_in = outs[0] if d == 1 else A.concat(outs, 2)
            if self.dropout > 0 and training is not False and layer < self.num_layers - 1:
                dropped = N.dropout(layer_in, keep_prob=1.0 - self.dropout, seed=self.seed)
                layer_in = dropped if training is True else _select(training, dropped,
                                                                    layer_in)
        return layer_in, A.stack(hs), (A.stack(cs) if self._mode == CUDNN_LSTM else None)

    def _zeros(self, inputs: Any) -> Any:
        batch = A.shape(inputs)[1]
        return A.zeros(A.stack([self.num_layers * self.num_dirs, batch, self.num_units]),
                       dtype=self.dtype)

    def _opaque_variable(self, depth: int) -> Any:
        if self._opaque is None:
            ws, bs = self._shapes(depth)
            k_init = self._kernel_initializer or init_ops.GlorotUniform()
            b_init = self._bias_initializer or init_ops.Zeros()
            with variable_scope(self._name):
                init = self.canonical_to_params(
                    [k_init(s, dtype=self.dtype) for s in ws],
                    [b_init(s, dtype=self.dtype) for s in bs])
                self._opaque = get_variable("opaque_kernel", initializer=init,
                                            dtype=self.dtype, validate_shape=False)
            self.input_size = depth
        return self._opaque

    @property
    def trainable_variables(self) -> List[Any]:
        """The opaque vector variable, once the layer is built."""
        return [] if self._opaque is None else [self._opaque]

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        if self._opaque is None and self.input_size is not None and (args or "params" in kwargs
                                                                    or "input_h" in kwargs):
            return self._call_with_params(inputs, *args, **kwargs)
        return self._call_layer(inputs, *args, **kwargs)

    def _call_layer(self, inputs: Any, initial_state: Any = None, training: Any = True) -> Any:
        x = convert_to_tensor(inputs)
        with name_scope(self._name):
            params = self._opaque_variable(x.shape.as_list()[-1])
            if initial_state is None:
                h0 = self._zeros(x)
                c0 = h0 if self._mode == CUDNN_LSTM else None
            elif self._mode == CUDNN_LSTM:
                h0, c0 = initial_state
            else:
                (h0,) = initial_state if isinstance(initial_state, (tuple, list)) \
                    else (initial_state,)
                c0 = None
            out, h, c = self._run(x, convert_to_tensor(h0), None if c0 is None
                                  else convert_to_tensor(c0), params, training)
        return out, ((h, c) if self._mode == CUDNN_LSTM else (h,))


def _select(pred: Any, a: Any, b: Any) -> Any:
    return cond(convert_to_tensor(pred), lambda: a, lambda: b)


class CudnnLSTM(_CudnnRNN):
    """cuDNN's multi-layer LSTM (see the module docstring for both call forms)."""

    _mode = CUDNN_LSTM

    def _call_with_params(self, input_data: Any, input_h: Any, input_c: Any, params: Any,
                          is_training: Any = True) -> Any:
        """``(outputs, output_h, output_c)`` of the LSTM with the opaque ``params``."""
        with name_scope(self._name):
            return self._run(input_data, convert_to_tensor(input_h),
                             convert_to_tensor(input_c), params, is_training)


class _CudnnRNNNoInputC(_CudnnRNN):
    def _call_with_params(self, input_data: Any, input_h: Any, params: Any,
                          is_training: Any = True) -> Any:
        """``(outputs, output_h)`` with the opaque ``params``."""
        with name_scope(self._name):
            out, h, _ = self._run(input_data, convert_to_tensor(input_h), None, params,
                                  is_training)
        return out, h


class CudnnGRU(_CudnnRNNNoInputC):
    """cuDNN's multi-layer GRU: ``n = tanh(W_n x + b_Wn + r * (R_n h + b_Rn))``."""

    _mode = CUDNN_GRU


class CudnnRNNTanh(_CudnnRNNNoInputC):
    """cuDNN's multi-layer plain RNN with tanh."""

    _mode = CUDNN_RNN_TANH


class CudnnRNNRelu(_CudnnRNNNoInputC):
    """cuDNN's multi-layer plain RNN with relu."""

    _mode = CUDNN_RNN_RELU


class CudnnCompatibleLSTMCell(LSTMCell):
    """An LSTM cell computing what ``CudnnLSTM`` computes (no forget bias added), with the
    variables ``kernel`` ``[input + units, 4 * units]`` (gates ``i, j, f, o``) and
    ``bias``."""

    _default_name = "cudnn_compatible_lstm_cell"

    def __init__(self, num_units: int, reuse: Any = None):
        super().__init__(num_units, forget_bias=0.0, reuse=reuse)


class CudnnCompatibleGRUCell(RNNCell):
    """A GRU cell computing what ``CudnnGRU`` computes: the reset gate multiplies the
    projected state, ``c = tanh(x W_i + b_i + r * (h W_h + b_h))``. Variables:
    ``gates/kernel`` ``[input + units, 2 * units]`` (``r, u``), ``gates/bias``,
    ``candidate/input_projection/kernel`` and ``/bias``,
    ``candidate/hidden_projection/kernel`` and ``/bias``."""

    _default_name = "cudnn_compatible_gru_cell"

    def __init__(self, num_units: int, reuse: Any = None, kernel_initializer: Any = None):
        super().__init__(reuse=reuse)
        self._num_units = int(num_units)
        self._kernel_initializer = kernel_initializer

    @property
    def state_size(self) -> int:
        return self._num_units

    @property
    def output_size(self) -> int:
        return self._num_units

    def call(self, inputs: Any, state: Any) -> Any:
        x = _float_tensor(inputs, "CudnnCompatibleGRUCell")
        depth, n, dt = _input_depth(x, "CudnnCompatibleGRUCell"), self._num_units, x.dtype
        zeros = init_ops.zeros_initializer()
        with variable_scope("gates"):
            gk = get_variable("kernel", [depth + n, 2 * n], dtype=dt,
                              initializer=self._kernel_initializer)
            gb = get_variable("bias", [2 * n], dtype=dt, initializer=zeros)
        with variable_scope("candidate/input_projection"):
            ik = get_variable("kernel", [depth, n], dtype=dt,
                              initializer=self._kernel_initializer)
            ib = get_variable("bias", [n], dtype=dt, initializer=zeros)
        with variable_scope("candidate/hidden_projection"):
            hk = get_variable("kernel", [n, n], dtype=dt, initializer=self._kernel_initializer)
            hb = get_variable("bias", [n], dtype=dt, initializer=zeros)
        r, u = A.split(M.sigmoid(N.bias_add(M.matmul(A.concat([x, state], 1), gk), gb)), 2, 1)
        c = M.tanh(M.add(N.bias_add(M.matmul(x, ik), ib),
                         M.multiply(r, N.bias_add(M.matmul(state, hk), hb))))
        new_h = M.add(M.multiply(u, state), M.multiply(M.subtract(1.0, u), c))
        return new_h, new_h


class _CanonicalTensor:
    """One canonical weight of an opaque vector, shaped like a variable for ``Saver``."""

    def __init__(self, owner: "RNNParamsSaveable", field: str, tensor: Any):
        self._owner, self._field, self._tensor = owner, field, tensor
        self.name = field

    @property
    def op(self) -> Any:
        """The opaque variable's op: the Saver colocates by it."""
        return self._owner._variable.op

    @property
    def graph(self) -> Any:
        return self._tensor.graph

    @property
    def dtype(self) -> Any:
        return self._tensor.dtype

    def get_shape(self) -> Any:
        return self._tensor.shape

    def _ref(self) -> Any:
        return self._tensor

    def value(self) -> Any:
        return self._tensor

    def _restore_group(self) -> Tuple[Any, str]:
        return self._owner, self._field


# cuDNN's LSTM gates are i, f, c, o; the cells' kernel columns are i, j (= c), f, o.
_LSTM_CELL_ORDER = (0, 2, 1, 3)


class RNNParamsSaveable:
    """Saves a Cudnn layer's opaque vector as the variables of ``CudnnCompatibleLSTMCell``/
    ``CudnnCompatibleGRUCell`` in a ``MultiRNNCell`` (``<base_variable_scope>/
    multi_rnn_cell/cell_<i>/cudnn_compatible_lstm_cell/kernel`` ...), and restores the
    vector from them. Add it to ``GraphKeys.SAVEABLE_OBJECTS`` for a default ``Saver``.

    Input and recurrent biases are saved as their sum (the cells have one bias); restoring
    gives each half. Unidirectional LSTM and GRU layers only.
    """

    def __init__(self, cudnn_rnn: _CudnnRNN, params_to_canonical: Any,
                 canonical_to_params: Any, param_variables: Sequence[Any],
                 base_variable_scope: Optional[str] = None, name: str = "params_canonical"):
        if not isinstance(cudnn_rnn, (CudnnLSTM, CudnnGRU)):
            raise ValueError(f"RNNParamsSaveable supports CudnnLSTM and CudnnGRU, got "
                             f"{type(cudnn_rnn).__name__}")
        if cudnn_rnn.num_dirs != 1:
            raise ValueError("RNNParamsSaveable: bidirectional layers are not supported")
        params = list(param_variables)
        if len(params) != 1:
            raise ValueError(f"RNNParamsSaveable takes one opaque variable, got {len(params)}")
        self._rnn, self._variable, self.name = cudnn_rnn, params[0], name
        self._to_canonical, self._to_params = params_to_canonical, canonical_to_params
        self._prefix = f"{base_variable_scope}/" if base_variable_scope else ""

    def _cell_name(self, layer: int) -> str:
        kind = "lstm" if self._rnn.rnn_mode == CUDNN_LSTM else "gru"
        return f"{self._prefix}multi_rnn_cell/cell_{layer}/cudnn_compatible_{kind}_cell"

    def _checkpoint_items(self) -> List[Tuple[str, _CanonicalTensor]]:
        weights, biases = self._to_canonical(self._variable)
        g, out = _GATES[self._rnn.rnn_mode], []
        for layer in range(self._rnn.num_layers):
            w, b = weights[2 * g * layer:2 * g * (layer + 1)], \
                biases[2 * g * layer:2 * g * (layer + 1)]
            cell = self._cell_name(layer)
            if self._rnn.rnn_mode == CUDNN_LSTM:
                kernel = A.concat([A.transpose(A.concat([w[k], w[g + k]], 1))
                                   for k in _LSTM_CELL_ORDER], 1)
                bias = A.concat([M.add(b[k], b[g + k]) for k in _LSTM_CELL_ORDER], 0)
                fields = {f"{cell}/kernel": kernel, f"{cell}/bias": bias}
            else:
                fields = {
                    f"{cell}/gates/kernel": A.concat(
                        [A.transpose(A.concat([w[k], w[g + k]], 1)) for k in (0, 1)], 1),
                    f"{cell}/gates/bias": A.concat([M.add(b[k], b[g + k]) for k in (0, 1)], 0),
                    f"{cell}/candidate/input_projection/kernel": A.transpose(w[2]),
                    f"{cell}/candidate/input_projection/bias": b[2],
                    f"{cell}/candidate/hidden_projection/kernel": A.transpose(w[5]),
                    f"{cell}/candidate/hidden_projection/bias": b[5]}
            out += [(n, _CanonicalTensor(self, n, t)) for n, t in fields.items()]
        return out

    def _restore_from(self, tensors: Any) -> Any:
        """The op assigning the opaque variable from the cells' checkpoint tensors."""
        g, u = _GATES[self._rnn.rnn_mode], self._rnn.num_units
        weights, biases = [], []
        for layer in range(self._rnn.num_layers):
            cell = self._cell_name(layer)
            if self._rnn.rnn_mode == CUDNN_LSTM:
                cols = A.split(tensors[f"{cell}/kernel"], 4, axis=1)
                bcols = A.split(tensors[f"{cell}/bias"], 4, axis=0)
                by_gate = {k: cols[i] for i, k in enumerate(_LSTM_CELL_ORDER)}
                b_gate = {k: bcols[i] for i, k in enumerate(_LSTM_CELL_ORDER)}
                depth = A.shape(by_gate[0])[0] - u
                ws = [A.transpose(A.slice(by_gate[k], [0, 0], A.stack([depth, u])))
                      for k in range(4)]
                rs = [A.transpose(A.slice(by_gate[k], A.stack([depth, 0]), [-1, u]))
                      for k in range(4)]
                half = [M.multiply(b_gate[k], 0.5) for k in range(4)]
                weights += ws + rs
                biases += half + half
            else:
                gk = A.split(tensors[f"{cell}/gates/kernel"], 2, axis=1)
                gb = A.split(tensors[f"{cell}/gates/bias"], 2, axis=0)
                depth = A.shape(gk[0])[0] - u
                ws = [A.transpose(A.slice(k, [0, 0], A.stack([depth, u]))) for k in gk]
                rs = [A.transpose(A.slice(k, A.stack([depth, 0]), [-1, u])) for k in gk]
                weights += ws + [A.transpose(tensors[f"{cell}/candidate/input_projection/kernel"])]
                weights += rs + [A.transpose(
                    tensors[f"{cell}/candidate/hidden_projection/kernel"])]
                half = [M.multiply(b, 0.5) for b in gb]
                biases += half + [tensors[f"{cell}/candidate/input_projection/bias"]]
                biases += half + [tensors[f"{cell}/candidate/hidden_projection/bias"]]
        return state_ops.assign(self._variable, self._to_params(weights, biases),
                                validate_shape=False).op


__all__ = ["CudnnLSTM", "CudnnGRU", "CudnnRNNTanh", "CudnnRNNRelu", "CudnnCompatibleLSTMCell",
           "CudnnCompatibleGRUCell", "RNNParamsSaveable", "CUDNN_LSTM", "CUDNN_GRU",
           "CUDNN_RNN_TANH", "CUDNN_RNN_RELU", "CUDNN_INPUT_LINEAR_MODE",
           "CUDNN_RNN_UNIDIRECTION", "CUDNN_RNN_BIDIRECTION"]
