"""``tf.nn.rnn_cell``: the TF 1.x recurrent cells.

A cell owns its variables. Its first call opens ``variable_scope(scope)``, or
a fresh ``variable_scope(None, default_name=<cell name>)`` (``basic_lstm_cell``,
then ``basic_lstm_cell_1`` ...), creates the weights there and remembers the
scope; every later call re-enters that scope with ``reuse=True``. So a cell
used across time steps shares one set of weights, and the names are
TensorFlow's: ``rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel``.

Kernels are laid out as TensorFlow's: the gate pre-activations are
``concat([inputs, h], 1) @ kernel + bias``, and the LSTM gates are in the order
i (input), j (new input), f (forget), o (output). The LSTM cells without
peepholes, projection or clipping run each step as one fused op (see
``rnn_ops.fused_lstm_cell``), and ``static_rnn``/``dynamic_rnn`` run them one
op per layer over the whole sequence (see ``rnn``).

The wrappers (``DropoutWrapper`` ...) are in ``rnn_cell_wrappers``.
"""

from __future__ import annotations

import abc
import collections
import logging
from typing import Any, Callable, List, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import init_ops
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops import rnn_ops as R
from tensorfleet.ops.math_ops_reduce import clip_by_value
from tensorfleet.ops.variable_scope import get_variable, variable_scope

logger = logging.getLogger(__name__)

# -- nested structures (tuples, lists, namedtuples of tensors) ------------------------------


def is_sequence(x: Any) -> bool:
    """Whether ``x`` is a tuple or list (a nested structure rather than a leaf)."""
    return isinstance(x, (tuple, list))


def flatten(x: Any) -> List[Any]:
    """The leaves of a nested structure, depth first."""
    if not is_sequence(x):
        return [x]
    out: List[Any] = []
    for e in x:
        out.extend(flatten(e))
    return out


def _rebuild(like: Any, items: Sequence[Any]) -> Any:
    if hasattr(like, "_fields"):  # namedtuple
        return type(like)(*items)
    return type(like)(items) if isinstance(like, tuple) else list(items)


def pack_sequence_as(structure: Any, flat: Sequence[Any]) -> Any:
    """Rebuilds ``structure`` with its leaves taken in order from ``flat``."""
    it = iter(flat)

    def build(s: Any) -> Any:
        if not is_sequence(s):
            return next(it)
        return _rebuild(s, [build(e) for e in s])

    n = len(flatten(structure))
    if n != len(flat):
        raise ValueError(f"Structure has {n} leaves but {len(flat)} values were given")
    return build(structure)


def map_structure(fn: Callable[..., Any], *structures: Any) -> Any:
    """Applies ``fn`` leaf by leaf across structures of the same shape."""
    flats = [flatten(s) for s in structures]
    if any(len(f) != len(flats[0]) for f in flats):
        raise ValueError("The structures given to map_structure do not have the same "
                         "number of elements")
    return pack_sequence_as(structures[0], [fn(*xs) for xs in zip(*flats)])


def assert_same_structure(a: Any, b: Any) -> None:
    """Raises ValueError when ``a`` and ``b`` do not nest the same way."""
    if is_sequence(a) != is_sequence(b) or (is_sequence(a) and len(a) != len(b)):
        raise ValueError(f"The two structures don't have the same nested structure: "
                         f"{a!r} and {b!r}")
    if is_sequence(a):
        for x, y in zip(a, b):
            assert_same_structure(x, y)


# -- state tuple and the base cell --------------------------------------------------------

class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """The (c, h) state of an LSTM cell: the memory cell and the hidden output."""

    __slots__ = ()

    @property
    def dtype(self) -> Any:
        """The dtype shared by ``c`` and ``h``; TypeError when they differ."""
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError(f"Inconsistent internal state: {c.dtype} vs {h.dtype}")
        return c.dtype


def _zeros_for(size: Any, batch_size: Any, dtype: Any) -> Tensor:
    dims = [int(d) for d in size.as_list()] if hasattr(size, "as_list") else [int(size)]
    if isinstance(batch_size, Tensor):
        shape = A.stack([batch_size] + [A.constant(d, dtype=batch_size.dtype) for d in dims])
    else:
        shape = [int(batch_size)] + dims
    z = A.zeros(shape, dtype=dtype)
    if isinstance(batch_size, Tensor):
        z.set_shape([None] + dims)
    return z


_ACTIVATIONS = {"tanh": M.tanh, "relu": N.relu, "sigmoid": M.sigmoid, "elu": N.elu,
                "softplus": N.softplus}


def _activation(act: Any) -> Callable[[Any], Any]:
    if act is None:
        return M.tanh
    if isinstance(act, str):
        if act not in _ACTIVATIONS:
            raise ValueError(f"Unknown activation {act!r}; use a callable or one of "
                             f"{sorted(_ACTIVATIONS)}")
        return _ACTIVATIONS[act]
    if not callable(act):
        raise TypeError(f"activation must be callable or a name, got {act!r}")
    return act


def _input_depth(inputs: Tensor, cell: str) -> int:
    d = inputs.shape[-1] if inputs.shape.ndims else None
    if inputs.shape.ndims is not None and inputs.shape.ndims != 2:
        raise ValueError(f"{cell}: inputs must be a matrix [batch, depth], got shape "
                         f"{inputs.shape} ({inputs.name})")
    if d is None:
        raise ValueError(f"{cell}: expected inputs.shape[-1] to be known while building the "
                         f"graph, saw shape {inputs.shape} ({inputs.name})")
    return int(d)


def _float_tensor(x: Any, cell: str) -> Tensor:
    t = convert_to_tensor(x)
    if not t.dtype.is_floating:
        raise TypeError(f"{cell}: inputs must be floating point, got {t.dtype.name} "
                        f"({t.name})")
    return t


class RNNCell(abc.ABC):
    """An RNN cell: ``(output, new_state) = cell(inputs, state)``.

    Subclasses define ``state_size``, ``output_size`` and ``call(inputs, state)``
    and make their variables with ``get_variable`` inside ``call``; the base
    class opens the cell's variable scope around it and shares the variables
    between calls.
    """

    _default_name = "rnn_cell"

    def __init__(self, trainable: bool = True, name: Optional[str] = None,
                 dtype: Any = None, reuse: Any = None, **kwargs: Any):
        if kwargs:
            raise TypeError(f"{type(self).__name__} got unexpected keyword arguments "
                            f"{sorted(kwargs)}")
        self._trainable = trainable
        self._name = name
        self._dtype = _dtypes.as_dtype(dtype) if dtype is not None else None
        self._reuse = reuse
        self._scope: Any = None
        self._variables: List[Any] = []
        self.built = False

    @property
    @abc.abstractmethod
    def state_size(self) -> Any:
        """Size(s) of the state: an int, a TensorShape or a nested tuple of them."""

    @property
    @abc.abstractmethod
    def output_size(self) -> Any:
        """Size of the output of one step."""

    @abc.abstractmethod
    def call(self, inputs: Any, state: Any) -> Any:
        """One step: returns ``(output, new_state)``; runs inside the cell's scope."""

    def _wdtype(self, inputs: Tensor) -> _dtypes.DType:
        # The cell's dtype, when given, is its variables' dtype (as a TF layer's is).
        return self._dtype if self._dtype is not None else inputs.dtype

    @property
    def name(self) -> Optional[str]:
        """The cell's scope name once called, else the name it was given."""
        return self._scope.name if self._scope is not None else self._name

    @property
    def variables(self) -> List[Any]:
        """The variables this cell made or found on its first call."""
        return list(self._variables)

    weights = variables

    @property
    def trainable_variables(self) -> List[Any]:
        """The trainable variables of ``variables``."""
        return [v for v in self._variables if getattr(v, "trainable", True)] \
            if self._trainable else []

    trainable_weights = trainable_variables

    def _record(self, getter: Callable[..., Any], name: str, *args: Any,
                **kwargs: Any) -> Any:
        if not self._trainable:
            kwargs["trainable"] = False
        v = getter(name, *args, **kwargs)
        if all(v is not w for w in self._variables):
            self._variables.append(v)
        return v

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> Any:
        """Runs one step in the cell's variable scope (set by the first call)."""
        return self._in_scope(self.call, inputs, state, scope=scope)

    def _in_scope(self, fn: Callable[..., Any], *args: Any, scope: Any = None) -> Any:
        # Also how the whole-sequence LSTM layers of ``rnn`` find the variables
        # a step would use.
        if self._scope is None:
            default = self._name or self._default_name
            if scope is None and self._reuse:
                # A cell built to reuse names its scope exactly, without numbering.
                scope = default
            with variable_scope(scope, default_name=None if scope is not None else default,
                                reuse=self._reuse, custom_getter=self._record) as vs:
                self._scope = vs
                out = fn(*args)
            self.built = True
            return out
        with variable_scope(self._scope, reuse=True):
            return fn(*args)

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        """Zeros of shape ``[batch_size, size]`` for each size in ``state_size``."""
        with name_scope(type(self).__name__ + "ZeroState"):
            return map_structure(lambda s: _zeros_for(s, batch_size, dtype),
                                 self.state_size)

    def get_initial_state(self, inputs: Any = None, batch_size: Any = None,
                          dtype: Any = None) -> Any:
        """``zero_state`` with the batch size and dtype taken from ``inputs`` if given."""
        if inputs is not None:
            x = convert_to_tensor(inputs)
            batch_size = x.shape[0] if x.shape.ndims and x.shape[0] is not None \
                else A.shape(x)[0]
            dtype = x.dtype
        if batch_size is None or dtype is None:
            raise ValueError("get_initial_state needs inputs, or batch_size and dtype")
        return self.zero_state(batch_size, dtype)


LayerRNNCell = RNNCell


# -- the cells ---------------------------------------------------------------------------

class BasicRNNCell(RNNCell):
    """``h = activation(concat([x, h_prev]) @ kernel + bias)``; the output is h."""

    _default_name = "basic_rnn_cell"

    def __init__(self, num_units: int, activation: Any = None, reuse: Any = None,
                 name: Optional[str] = None, dtype: Any = None, **kwargs: Any):
        super().__init__(name=name, dtype=dtype, reuse=reuse, **kwargs)
        self._num_units = int(num_units)
        self._activation = _activation(activation)

    @property
    def state_size(self) -> int:
        return self._num_units

    @property
    def output_size(self) -> int:
        return self._num_units

    def call(self, inputs: Any, state: Any) -> Any:
        x = _float_tensor(inputs, "BasicRNNCell")
        depth = _input_depth(x, "BasicRNNCell")
        kernel = get_variable("kernel", [depth + self._num_units, self._num_units],
                              dtype=self._wdtype(x))
        bias = get_variable("bias", [self._num_units], dtype=self._wdtype(x),
                            initializer=init_ops.zeros_initializer())
        pre = N.bias_add(M.matmul(A.concat([x, state], 1), kernel), bias)
        out = self._activation(pre)
        return out, out


class GRUCell(RNNCell):
    """Gated recurrent unit (Cho et al., 2014).

    ``r, u = sigmoid(concat([x, h]) @ gates/kernel + gates/bias)``;
    ``c = activation(concat([x, r * h]) @ candidate/kernel + candidate/bias)``;
    ``h' = u * h + (1 - u) * c``. The gate bias starts at 1.0 unless
    ``bias_initializer`` is given.
    """

    _default_name = "gru_cell"

    def __init__(self, num_units: int, activation: Any = None, reuse: Any = None,
                 kernel_initializer: Any = None, bias_initializer: Any = None,
                 name: Optional[str] = None, dtype: Any = None, **kwargs: Any):
        super().__init__(name=name, dtype=dtype, reuse=reuse, **kwargs)
        self._num_units = int(num_units)
        self._activation = _activation(activation)
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    @property
    def state_size(self) -> int:
        return self._num_units

    @property
    def output_size(self) -> int:
        return self._num_units

    def call(self, inputs: Any, state: Any) -> Any:
        x = _float_tensor(inputs, "GRUCell")
        depth = _input_depth(x, "GRUCell")
        n = self._num_units
        with variable_scope("gates"):
            gk = get_variable("kernel", [depth + n, 2 * n], dtype=self._wdtype(x),
                              initializer=self._kernel_initializer)
            gb = get_variable("bias", [2 * n], dtype=self._wdtype(x),
                              initializer=self._bias_initializer
                              if self._bias_initializer is not None
                              else init_ops.constant_initializer(1.0))
        with variable_scope("candidate"):
            ck = get_variable("kernel", [depth + n, n], dtype=self._wdtype(x),
                              initializer=self._kernel_initializer)
            cb = get_variable("bias", [n], dtype=self._wdtype(x),
                              initializer=self._bias_initializer
                              if self._bias_initializer is not None
                              else init_ops.zeros_initializer())
        value = M.sigmoid(N.bias_add(M.matmul(A.concat([x, state], 1), gk), gb))
        r, u = A.split(value, 2, axis=1)
        cand = N.bias_add(M.matmul(A.concat([x, M.multiply(r, state)], 1), ck), cb)
        c = self._activation(cand)
        new_h = M.add(M.multiply(u, state), M.multiply(M.subtract(1.0, u), c))
        return new_h, new_h


def _split_state(state: Any, sizes: Sequence[int], tuple_state: bool, cell: str) -> List[Any]:
    if tuple_state:
        if not is_sequence(state) or len(state) != 2:
            raise ValueError(f"{cell}: state must be an LSTMStateTuple (c, h) when "
                             f"state_is_tuple=True, got {state!r}")
        return [state[0], state[1]]
    s = convert_to_tensor(state)
    return [A.slice(s, [0, 0], [-1, sizes[0]]), A.slice(s, [0, sizes[0]], [-1, sizes[1]])]


class BasicLSTMCell(RNNCell):
    """LSTM without peepholes or projection; ``forget_bias`` is added to the f gate.

    ``i, j, f, o = split(concat([x, h]) @ kernel + bias, 4)``;
    ``c' = c * sigmoid(f + forget_bias) + sigmoid(i) * tanh(j)``;
    ``h' = tanh(c') * sigmoid(o)``. State: ``LSTMStateTuple(c, h)`` or, with
    ``state_is_tuple=False``, their concatenation.
    """

    _default_name = "basic_lstm_cell"

    def __init__(self, num_units: int, forget_bias: float = 1.0, state_is_tuple: bool = True,
                 activation: Any = None, reuse: Any = None, name: Optional[str] = None,
                 dtype: Any = None, **kwargs: Any):
        super().__init__(name=name, dtype=dtype, reuse=reuse, **kwargs)
        self._num_units = int(num_units)
        self._forget_bias = float(forget_bias)
        self._state_is_tuple = state_is_tuple
        self._fusable = activation is None or activation is M.tanh or activation == "tanh"
        self._activation = _activation(activation)

    @property
    def state_size(self) -> Any:
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    @property
    def output_size(self) -> int:
        return self._num_units

    def _weights(self, x: Tensor, depth: int) -> Any:
        n = self._num_units
        return (get_variable("kernel", [depth + n, 4 * n], dtype=self._wdtype(x)),
                get_variable("bias", [4 * n], dtype=self._wdtype(x),
                             initializer=init_ops.zeros_initializer()))

    def call(self, inputs: Any, state: Any) -> Any:
        x = _float_tensor(inputs, "BasicLSTMCell")
        depth = _input_depth(x, "BasicLSTMCell")
        n = self._num_units
        c, h = _split_state(state, [n, n], self._state_is_tuple, "BasicLSTMCell")
        kernel, bias = self._weights(x, depth)
        if self._fusable:
            new_c, new_h, _ = R.fused_lstm_cell(x, c, h, kernel, bias, self._forget_bias)
        else:
            new_c, new_h = _lstm_math(x, c, h, kernel, bias, self._forget_bias,
                                      self._activation)
        new_state = LSTMStateTuple(new_c, new_h) if self._state_is_tuple \
            else A.concat([new_c, new_h], 1)
        return new_h, new_state


def _lstm_math(x: Any, c: Any, h: Any, kernel: Any, bias: Any, forget_bias: float,
               act: Callable[[Any], Any]) -> Any:
    z = N.bias_add(M.matmul(A.concat([x, h], 1), kernel), bias)
    i, j, f, o = A.split(z, 4, axis=1)
    new_c = M.add(M.multiply(c, M.sigmoid(M.add(f, forget_bias))),
                  M.multiply(M.sigmoid(i), act(j)))
    new_h = M.multiply(act(new_c), M.sigmoid(o))
    return new_c, new_h


class LSTMCell(RNNCell):
    """LSTM with optional peepholes, cell clipping and an output projection.

    With ``use_peepholes`` the diagonal weights ``w_f_diag``, ``w_i_diag`` and
    ``w_o_diag`` let the cell state feed the gates; ``cell_clip`` clips c;
    ``num_proj`` adds ``projection/kernel`` so h has ``num_proj`` units (then
    clipped by ``proj_clip``). Without those options each step is one fused op.
    """

    _default_name = "lstm_cell"

    def __init__(self, num_units: int, use_peepholes: bool = False, cell_clip: Any = None,
                 initializer: Any = None, num_proj: Optional[int] = None, proj_clip: Any = None,
                 num_unit_shards: Optional[int] = None, num_proj_shards: Optional[int] = None,
                 forget_bias: float = 1.0, state_is_tuple: bool = True, activation: Any = None,
                 reuse: Any = None, name: Optional[str] = None, dtype: Any = None,
                 **kwargs: Any):
        super().__init__(name=name, dtype=dtype, reuse=reuse, **kwargs)
        if num_unit_shards not in (None, 1) or num_proj_shards not in (None, 1):
            raise ValueError("LSTMCell: num_unit_shards and num_proj_shards are deprecated "
                             "and not supported; use a partitioner in the variable scope")
        if proj_clip is not None and num_proj is None:
            raise ValueError("LSTMCell: proj_clip needs num_proj")
        self._num_units = int(num_units)
        self._use_peepholes = bool(use_peepholes)
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = int(num_proj) if num_proj is not None else None
        self._proj_clip = proj_clip
        self._forget_bias = float(forget_bias)
        self._state_is_tuple = state_is_tuple
        self._fusable = ((activation is None or activation is M.tanh or activation == "tanh")
                         and not use_peepholes and cell_clip is None and num_proj is None)
        self._activation = _activation(activation)

    @property
    def state_size(self) -> Any:
        n, p = self._num_units, self._num_proj or self._num_units
        return LSTMStateTuple(n, p) if self._state_is_tuple else n + p

    @property
    def output_size(self) -> int:
        return self._num_proj or self._num_units

    def _weights(self, x: Tensor, depth: int) -> Any:
        n, p = self._num_units, self._num_proj or self._num_units
        return (get_variable("kernel", [depth + p, 4 * n], dtype=self._wdtype(x),
                             initializer=self._initializer),
                get_variable("bias", [4 * n], dtype=self._wdtype(x),
                             initializer=init_ops.zeros_initializer()))

    def call(self, inputs: Any, state: Any) -> Any:
        x = _float_tensor(inputs, "LSTMCell")
        depth = _input_depth(x, "LSTMCell")
        n, p = self._num_units, self._num_proj or self._num_units
        c, m = _split_state(state, [n, p], self._state_is_tuple, "LSTMCell")
        kernel, bias = self._weights(x, depth)
        if self._fusable:
            new_c, new_m, _ = R.fused_lstm_cell(x, c, m, kernel, bias, self._forget_bias)
        else:
            new_c, new_m = self._unfused(x, c, m, kernel, bias)
        new_state = LSTMStateTuple(new_c, new_m) if self._state_is_tuple \
            else A.concat([new_c, new_m], 1)
        return new_m, new_state

    def _unfused(self, x: Tensor, c: Any, m: Any, kernel: Any, bias: Any) -> Any:
        act, n, dt = self._activation, self._num_units, self._wdtype(x)
        z = N.bias_add(M.matmul(A.concat([x, m], 1), kernel), bias)
        i, j, f, o = A.split(z, 4, axis=1)
        f = M.add(f, self._forget_bias)
        if self._use_peepholes:
            w_f = get_variable("w_f_diag", [n], dtype=dt, initializer=self._initializer)
            w_i = get_variable("w_i_diag", [n], dtype=dt, initializer=self._initializer)
            w_o = get_variable("w_o_diag", [n], dtype=dt, initializer=self._initializer)
            f = M.add(f, M.multiply(w_f, c))
            i = M.add(i, M.multiply(w_i, c))
        new_c = M.add(M.multiply(M.sigmoid(f), c), M.multiply(M.sigmoid(i), act(j)))
        if self._cell_clip is not None:
            new_c = clip_by_value(new_c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            o = M.add(o, M.multiply(w_o, new_c))
        new_m = M.multiply(M.sigmoid(o), act(new_c))
        if self._num_proj is not None:
            with variable_scope("projection"):
                proj = get_variable("kernel", [n, self._num_proj], dtype=dt,
                                    initializer=self._initializer)
            new_m = M.matmul(new_m, proj)
            if self._proj_clip is not None:
                new_m = clip_by_value(new_m, -self._proj_clip, self._proj_clip)
        return new_c, new_m


class MultiRNNCell(RNNCell):
    """Cells stacked in layers: the output of layer k is the input of layer k + 1.

    Layer k runs in ``variable_scope("cell_k")``. The state is a tuple of the
    layers' states, or their concatenation with ``state_is_tuple=False``.
    """

    _default_name = "multi_rnn_cell"

    def __init__(self, cells: Sequence[RNNCell], state_is_tuple: bool = True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not is_sequence(cells):
            raise TypeError(f"cells must be a list or tuple, but saw: {cells!r}.")
        if len({id(c) for c in cells}) < len(cells):
            logger.warning("MultiRNNCell: the same cell object appears more than once; its "
                           "layers will share variables")
        self._cells = list(cells)
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(is_sequence(c.state_size) for c in self._cells):
            raise ValueError("Some cells return tuples of states, but the flag "
                             "state_is_tuple is not set. State sizes are: "
                             f"{[c.state_size for c in self._cells]}")

    @property
    def state_size(self) -> Any:
        if self._state_is_tuple:
            return tuple(c.state_size for c in self._cells)
        return sum(int(c.state_size) for c in self._cells)

    @property
    def output_size(self) -> Any:
        return self._cells[-1].output_size

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        """The cells' zero states (a tuple, or concatenated)."""
        with name_scope(type(self).__name__ + "ZeroState"):
            if self._state_is_tuple:
                return tuple(c.zero_state(batch_size, dtype) for c in self._cells)
            return _zeros_for(self.state_size, batch_size, dtype)

    def call(self, inputs: Any, state: Any) -> Any:
        cur = inputs
        new_states = []
        start = 0
        for i, cell in enumerate(self._cells):
            with variable_scope(f"cell_{i}"):
                if self._state_is_tuple:
                    if not is_sequence(state) or len(state) != len(self._cells):
                        raise ValueError(f"Expected state to be a tuple of length "
                                         f"{len(self._cells)}, but received: {state!r}")
                    cur_state = state[i]
                else:
                    size = int(cell.state_size)
                    cur_state = A.slice(state, [0, start], [-1, size])
                    start += size
                cur, ns = cell(cur, cur_state)
                new_states.append(ns)
        out_state = tuple(new_states) if self._state_is_tuple else A.concat(new_states, 1)
        return cur, out_state


__all__ = ["RNNCell", "LayerRNNCell", "BasicRNNCell", "GRUCell", "BasicLSTMCell", "LSTMCell",
           "MultiRNNCell", "LSTMStateTuple", "is_sequence", "flatten", "pack_sequence_as",
           "map_structure", "assert_same_structure"]
