"""Keras recurrent layers: ``SimpleRNN``, ``LSTM``, ``GRU`` (with their cells), the
generic ``RNN`` wrapper and ``Bidirectional``.

A cell is a Keras layer whose ``call(inputs, states)`` is one time step. ``RNN``
runs it over the time axis with ``tf.nn.dynamic_rnn`` (unrolled when the number
of steps is known). Weights follow TF 1.x Keras: ``lstm/lstm_cell/kernel``
[input, 4 * units] with gates ordered i, f, c, o; ``recurrent_kernel``
[units, 4 * units]; ``bias`` with the forget gate's part set to one
(``unit_forget_bias``). ``GRU`` is the TF 1.x form (``reset_after=False``,
gates z, r, h). The default recurrent activation is ``hard_sigmoid``, as in
TF 1.x Keras.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple


from tensorfleet.framework.graph import Tensor, convert_to_tensor, get_default_graph
from tensorfleet.keras import activations as _acts
from tensorfleet.keras import initializers as _inits
from tensorfleet.keras import regularizers as _regs
from tensorfleet.keras.backend_math import concatenate
from tensorfleet.keras.backend_nn import rnn as _backend_rnn
from tensorfleet.keras.layers.base import Layer, WrappingLayer, to_list
from tensorfleet.keras.layers.rnn_cells import StackedRNNCells
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import init_ops
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.rnn import dynamic_rnn
from tensorfleet.ops.sort_ops import reverse


def _no_dropout(dropout: float, recurrent_dropout: float, layer: str) -> None:
    if dropout or recurrent_dropout:
        raise ValueError(f"{layer}: dropout and recurrent_dropout are not supported; add a "
                         f"Dropout layer before or after the recurrent layer instead")


class _Cell(Layer):
    """Shared weights of the three cells: kernel, recurrent_kernel, bias.

    ``implementation`` (1 or 2 in Keras, a choice of kernel layout) is accepted
    by the LSTM and GRU cells; both give the same results here.
    """

    _gates = 1

    def __init__(self, units: int, activation: Any = "tanh", use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform",
                 recurrent_initializer: Any = "orthogonal", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, recurrent_regularizer: Any = None,
                 bias_regularizer: Any = None, kernel_constraint: Any = None,
                 recurrent_constraint: Any = None, bias_constraint: Any = None,
                 dropout: float = 0.0, recurrent_dropout: float = 0.0, **kwargs: Any):
        super().__init__(**kwargs)
        _no_dropout(dropout, recurrent_dropout, type(self).__name__)
        if int(units) < 1:
            raise ValueError(f"{type(self).__name__}: units must be positive, got {units!r}")
        self.units = int(units)
        self.activation = _acts.get(activation)
        self.use_bias = use_bias
        self._inits = (_inits.get(kernel_initializer), _inits.get(recurrent_initializer),
                       _inits.get(bias_initializer))
        self._regs = (_regs.get(kernel_regularizer), _regs.get(recurrent_regularizer),
                      _regs.get(bias_regularizer))
        self._cons = (kernel_constraint, recurrent_constraint, bias_constraint)
        self.kernel: Any = None
        self.recurrent_kernel: Any = None
        self.bias: Any = None

    @property
    def state_size(self) -> Any:
        """The size of the state (a list for LSTM's two states)."""
        return self.units

    @property
    def output_size(self) -> int:
        """The size of one step's output."""
        return self.units

    def _bias_init(self) -> Any:
        return self._inits[2]

    def build(self, input_shape: Any) -> None:
        """Creates ``kernel``, ``recurrent_kernel`` and ``bias``."""
        depth = input_shape[-1]
        if depth is None:
            raise ValueError(f"{type(self).__name__}: the last dimension of the inputs must "
                             f"be known, got shape {input_shape}")
        n = self._gates * self.units
        self.kernel = self.add_weight("kernel", [int(depth), n], initializer=self._inits[0],
                                      regularizer=self._regs[0], constraint=self._cons[0])
        self.recurrent_kernel = self.add_weight("recurrent_kernel", [self.units, n],
                                                initializer=self._inits[1],
                                                regularizer=self._regs[1],
                                                constraint=self._cons[1])
        if self.use_bias:
            self.bias = self.add_weight("bias", [n], initializer=self._bias_init(),
                                        regularizer=self._regs[2], constraint=self._cons[2])
        self.built = True

    def _x(self, inputs: Tensor) -> Tensor:
        y = M.matmul(inputs, self.kernel)
        return y if self.bias is None else M.add(y, self.bias)


class SimpleRNNCell(_Cell):
    """``h = activation(x @ kernel + h_prev @ recurrent_kernel + bias)``."""

    def call(self, inputs: Tensor,  # type: ignore[override]
             states: Any) -> Tuple[Tensor, List[Tensor]]:
        """One step: ``(h, [h])``."""
        h = self.activation(M.add(self._x(inputs), M.matmul(to_list(states)[0],
                                                            self.recurrent_kernel)))
        return h, [h]


class GRUCell(_Cell):
    """The TF 1.x Keras GRU step (reset gate applied before the recurrent matmul)."""

    _gates = 3

    def __init__(self, units: int, activation: Any = "tanh",
                 recurrent_activation: Any = "hard_sigmoid", reset_after: bool = False,
                 implementation: int = 1, **kwargs: Any):
        super().__init__(units, activation=activation, **kwargs)
        if reset_after:
            raise ValueError("GRUCell: reset_after=True is not supported")
        self.recurrent_activation = _acts.get(recurrent_activation)
        self.reset_after = False
        self.implementation = implementation

    def call(self, inputs: Tensor,  # type: ignore[override]
             states: Any) -> Tuple[Tensor, List[Tensor]]:
        """One step: ``(h, [h])``."""
        h_prev = to_list(states)[0]
        xz, xr, xh = A.split(self._x(inputs), 3, axis=1)
        rz, rr, rh = A.split(convert_to_tensor(self.recurrent_kernel), 3, axis=1)
        z = self.recurrent_activation(M.add(xz, M.matmul(h_prev, rz)))
        r = self.recurrent_activation(M.add(xr, M.matmul(h_prev, rr)))
        hh = self.activation(M.add(xh, M.matmul(M.multiply(r, h_prev), rh)))
        h = M.add(M.multiply(z, h_prev), M.multiply(M.subtract(1.0, z), hh))
        return h, [h]


class LSTMCell(_Cell):
    """The Keras LSTM step; states are ``[h, c]``."""

    _gates = 4

    def __init__(self, units: int, activation: Any = "tanh",
                 recurrent_activation: Any = "hard_sigmoid", unit_forget_bias: bool = True,
                 implementation: int = 1, **kwargs: Any):
        super().__init__(units, activation=activation, **kwargs)
        self.recurrent_activation = _acts.get(recurrent_activation)
        self.unit_forget_bias = bool(unit_forget_bias)
        self.implementation = implementation

    @property
    def state_size(self) -> Any:
        """``[units, units]``: the sizes of h and c."""
        return [self.units, self.units]

    def _bias_init(self) -> Any:
        if not self.unit_forget_bias:
            return self._inits[2]
        base, u = self._inits[2], self.units

        def init(shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
            # The forget gate starts open: its quarter of the bias is ones.
            return A.concat([base([u], dtype=dtype), init_ops.Ones()([u], dtype=dtype),
                             base([2 * u], dtype=dtype)], 0)
        return init

    def call(self, inputs: Tensor,  # type: ignore[override]
             states: Any) -> Tuple[Tensor, List[Tensor]]:
        """One step: ``(h, [h, c])``."""
        h_prev, c_prev = states[0], states[1]
        z = M.add(self._x(inputs), M.matmul(h_prev, self.recurrent_kernel))
        zi, zf, zc, zo = A.split(z, 4, axis=1)
        i = self.recurrent_activation(zi)
        f = self.recurrent_activation(zf)
        c = M.add(M.multiply(f, c_prev), M.multiply(i, self.activation(zc)))
        o = self.recurrent_activation(zo)
        h = M.multiply(o, self.activation(c))
        return h, [h, c]


class _StepAdapter:
    """Presents a Keras cell to ``dynamic_rnn`` as an RNN cell (tuple states)."""

    def __init__(self, cell: _Cell):
        self.cell = cell

    @property
    def state_size(self) -> Tuple[int, ...]:
        """The cell's state sizes as a tuple."""
        return tuple(to_list(self.cell.state_size))

    @property
    def output_size(self) -> int:
        """The cell's output size."""
        return self.cell.output_size

    def zero_state(self, batch_size: Any, dtype: Any) -> Tuple[Tensor, ...]:
        """Zero states of shape [batch_size, size]."""
        return tuple(A.zeros(A.stack([batch_size, s]), dtype=dtype) for s in self.state_size)

    def __call__(self, inputs: Tensor, state: Any) -> Tuple[Tensor, Tuple[Tensor, ...]]:
        out, new = self.cell.call(inputs, list(state))
        return out, tuple(new)


class RNN(WrappingLayer):
    """Runs a cell over [batch, time, features] inputs.

    ``return_sequences`` gives every step's output (else the last);
    ``return_state`` adds the final states to the outputs; ``go_backwards``
    reads the sequence in reverse. ``initial_state`` may be passed to the call.
    """

    def __init__(self, cell: Any, return_sequences: bool = False, return_state: bool = False,
                 go_backwards: bool = False, stateful: bool = False, unroll: bool = False,
                 time_major: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        if stateful:
            raise ValueError(f"{type(self).__name__}: stateful=True is not supported")
        if time_major:
            raise ValueError(f"{type(self).__name__}: time_major=True is not supported")
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        self.cell = cell
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.stateful = False
        # Both forms give the same results: dynamic_rnn unrolls whenever the number of
        # steps is known while building the graph.
        self.unroll = bool(unroll)

    @property
    def units(self) -> int:
        """The cell's number of units."""
        return self.cell.units

    @property
    def states_count(self) -> int:
        """How many state tensors the cell carries."""
        return len(to_list(self.cell.state_size))

    def _wrapped(self) -> List[Any]:
        return [self.cell]

    @property
    def losses(self) -> List[Any]:  # type: ignore[override]
        """The cell's regularization losses and the layer's own."""
        return list(self.cell.losses) + list(self._keras_losses)

    def build(self, input_shape: Any) -> None:
        """Builds the cell on the shape of one time step, under the cell's name."""
        shape = input_shape[0] if isinstance(input_shape, list) else input_shape
        if shape.ndims is not None and shape.ndims != 3:
            raise ValueError(f"{type(self).__name__}: inputs must be rank 3 [batch, time, "
                             f"features], got shape {shape}")
        if not self.cell.built:
            g = get_default_graph()
            with g.name_scope(self.cell.name):
                self.cell.build(shape[:1].concatenate(shape[2:]))
            self.cell.built = True
        self.built = True

    def __call__(self, inputs: Any, initial_state: Any = None,  # type: ignore[override]
                 **kwargs: Any) -> Any:
        """Applies the layer; ``initial_state`` (a tensor or list) joins the inputs."""
        if initial_state is None:
            return super().__call__(inputs, **kwargs)
        states = to_list(initial_state)
        return super().__call__([inputs] + states, **kwargs)

    def call(self, inputs: Any, training: Any = None) -> Any:  # type: ignore[override]
        """The outputs (and with ``return_state`` the final states)."""
        if isinstance(inputs, list):
            x, initial = inputs[0], tuple(inputs[1:])
            if len(initial) != self.states_count:
                raise ValueError(f"{type(self).__name__}: expected {self.states_count} "
                                 f"initial states, got {len(initial)}")
        else:
            x, initial = inputs, None
        mask = getattr(x, "_keras_mask", None)
        if mask is not None:
            return self._finish(*self._masked_steps(x, mask, initial))
        if self.go_backwards:
            x = reverse(x, [1])
        outputs, states = dynamic_rnn(_StepAdapter(self.cell), x, initial_state=initial,
                                      dtype=x.dtype)
        return self._finish(outputs[:, -1], outputs, list(states))

    def _masked_steps(self, x: Tensor, mask: Tensor, initial: Any) -> tuple:
        """The steps run with the mask of a ``Masking`` layer: masked steps keep the
        states and repeat the previous output."""
        if initial is None:
            batch = A.shape(x)[0]
            initial = [A.zeros(A.stack([batch, int(s)]), dtype=x.dtype)
                       for s in to_list(self.cell.state_size)]
        last, outputs, states = _backend_rnn(lambda xt, st: self.cell.call(xt, st), x,
                                             list(initial), go_backwards=self.go_backwards,
                                             mask=mask)
        return last, outputs, states

    def _finish(self, last: Tensor, outputs: Tensor, states: List[Tensor]) -> Any:
        out = outputs if self.return_sequences else last
        act = getattr(self, "activity_regularizer", None)
        if act is not None:
            self._keras_losses.append(act(out))
        if self.return_state:
            return [out] + list(states)
        return out


def _rnn_kwargs(kwargs: dict) -> Tuple[dict, dict]:
    layer_keys = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll",
                  "time_major", "name", "trainable", "dtype", "input_shape", "input_dim",
                  "batch_input_shape", "batch_size", "weights", "activity_regularizer")
    layer = {k: kwargs.pop(k) for k in layer_keys if k in kwargs}
    return kwargs, layer


class _CellLayer(RNN):
    """A recurrent layer over one cell of class ``_cell`` named ``_cell_name``, built
    from the layer's keyword arguments (those of the cell go to the cell)."""

    _cell: Any = None
    _cell_name = ""

    def __init__(self, units: int, **kwargs: Any):
        cell_kw, layer_kw = _rnn_kwargs(kwargs)
        self._config = dict(units=units, **cell_kw, **{k: v for k, v in layer_kw.items()
                                                       if k not in ("name", "weights")})
        act = layer_kw.pop("activity_regularizer", None)
        super().__init__(self._cell(units, name=self._cell_name, **cell_kw), **layer_kw)
        self.activity_regularizer = _regs.get(act)


class SimpleRNN(_CellLayer):
    """Fully connected recurrent layer: ``h = tanh(x W + h U + b)``."""

    _cell, _cell_name = SimpleRNNCell, "simple_rnn_cell"


class GRU(_CellLayer):
    """Gated recurrent unit layer (TF 1.x form, ``reset_after=False``)."""

    _cell, _cell_name = GRUCell, "gru_cell"


class LSTM(_CellLayer):
    """Long short-term memory layer; its states are ``[h, c]``."""

    _cell, _cell_name = LSTMCell, "lstm_cell"


class Bidirectional(WrappingLayer):
    """Runs a recurrent layer forwards and a copy of it backwards, merging the outputs
    with ``merge_mode``: ``'concat'`` (default), ``'sum'``, ``'mul'``, ``'ave'`` or None
    (a list of both)."""

    _MODES = ("concat", "sum", "mul", "ave", None)

    def __init__(self, layer: RNN, merge_mode: Optional[str] = "concat",
                 backward_layer: Optional[RNN] = None, **kwargs: Any):
        if merge_mode not in self._MODES:
            raise ValueError(f"Invalid merge mode. Merge mode should be one of "
                             f"{{'sum', 'mul', 'ave', 'concat', None}}, got {merge_mode!r}")
        if not isinstance(layer, RNN) or not hasattr(layer, "_config"):
            raise ValueError(f"Bidirectional: expected a SimpleRNN, GRU or LSTM layer, got "
                             f"{type(layer).__name__}")
        super().__init__(**kwargs)
        self.layer = layer
        self.merge_mode = merge_mode
        cfg = dict(layer._config)
        self.forward_layer = type(layer)(name="forward_" + layer.name, **cfg)
        if backward_layer is None:
            cfg["go_backwards"] = not cfg.get("go_backwards", False)
            backward_layer = type(layer)(name="backward_" + layer.name, **cfg)
        self.backward_layer = backward_layer
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state

    def _wrapped(self) -> List[Any]:
        return [self.forward_layer, self.backward_layer]

    @property
    def losses(self) -> List[Any]:  # type: ignore[override]
        """Both directions' regularization losses."""
        return self.forward_layer.losses + self.backward_layer.losses

    def call(self, inputs: Tensor) -> Any:  # type: ignore[override]
        """Both directions' outputs merged (and their states with ``return_state``)."""
        fw = to_list(self.forward_layer(inputs))
        bw = to_list(self.backward_layer(inputs))
        y_fw, y_bw = fw[0], bw[0]
        if self.return_sequences:
            y_bw = reverse(y_bw, [1])
        if self.merge_mode == "concat":
            out: Any = concatenate([y_fw, y_bw])
        elif self.merge_mode == "sum":
            out = M.add(y_fw, y_bw)
        elif self.merge_mode == "mul":
            out = M.multiply(y_fw, y_bw)
        elif self.merge_mode == "ave":
            out = M.multiply(M.add(y_fw, y_bw), 0.5)
        else:
            out = [y_fw, y_bw]
        if self.return_state:
            return to_list(out) + fw[1:] + bw[1:]
        return out


__all__ = ["RNN", "SimpleRNN", "SimpleRNNCell", "GRU", "GRUCell", "LSTM", "LSTMCell",
           "Bidirectional"]
