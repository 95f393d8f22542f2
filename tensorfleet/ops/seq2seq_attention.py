"""``tf.contrib.seq2seq`` attention: Bahdanau and Luong mechanisms and ``AttentionWrapper``.

A mechanism holds the memory (the encoder outputs, masked past
``memory_sequence_length``) and its keys (``memory_layer``: the memory projected
to ``num_units``, made where the mechanism is built: ``memory_layer/kernel``).
Called with a query (the decoder cell's output) it scores every memory
position and normalizes the scores into alignments (softmax by default; the
positions past a memory's length score ``score_mask_value``, -inf by default).

``AttentionWrapper`` runs its cell on ``concat([inputs, previous attention])``,
attends with the cell output, and returns the attention:
``attention_layer([cell_output, context])`` with ``attention_layer_size``, the
context itself otherwise. Variable names are TensorFlow's, e.g.
``decoder/attention_wrapper/bahdanau_attention/attention_v`` and
``decoder/attention_wrapper/attention_layer/kernel``.
"""

from __future__ import annotations

import collections
import math
from typing import Any, Callable, List, Optional

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import init_ops
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops.math_ops_reduce import reduce_sum
from tensorfleet.ops.rnn_cell_impl import RNNCell, map_structure
from tensorfleet.ops.rnn_ops import sequence_mask
from tensorfleet.ops.tensor_array_ops import TensorArray
from tensorfleet.ops.variable_scope import get_variable, variable_scope


class _Projection:
    """A bias-free dense layer ``x @ kernel`` over the last axis, its variables made on
    the first call in ``variable_scope(name)`` and shared by later calls."""

    def __init__(self, units: int, name: str):
        self.units = int(units)
        self._name = name
        self._scope: Any = None

    def __call__(self, x: Any) -> Tensor:
        x = convert_to_tensor(x)
        depth = x.shape[-1] if x.shape.ndims else None
        if depth is None:
            raise ValueError(f"{self._name}: the last dimension of the inputs must be known, "
                             f"got shape {x.shape}")
        if self._scope is None:
            with variable_scope(self._name) as vs:
                self._scope = vs
                kernel = get_variable("kernel", [int(depth), self.units], dtype=x.dtype)
        else:
            with variable_scope(self._scope, reuse=True):
                kernel = get_variable("kernel", [int(depth), self.units], dtype=x.dtype)
        if x.shape.ndims == 2:
            return M.matmul(x, kernel)
        flat = A.reshape(x, [-1, int(depth)])
        out_shape = A.concat([A.shape(x)[:-1], A.constant([self.units])], 0)
        y = A.reshape(M.matmul(flat, kernel), out_shape)
        y.set_shape(x.shape.as_list()[:-1] + [self.units])
        return y


def _mask_memory(memory: Tensor, lengths: Optional[Tensor]) -> Tensor:
    if lengths is None:
        return memory
    mask = sequence_mask(lengths, maxlen=A.shape(memory)[1], dtype=memory.dtype)
    return M.multiply(memory, A.expand_dims(mask, -1))


class _BaseAttentionMechanism:
    """Memory, keys and score normalization shared by the mechanisms."""

    _score_scope = "attention"

    def __init__(self, num_units: int, memory: Any, memory_sequence_length: Any,
                 probability_fn: Optional[Callable[..., Any]], score_mask_value: Any,
                 query_layer: Optional[_Projection], dtype: Any, name: str):
        memory = convert_to_tensor(memory)
        if memory.shape.ndims is not None and memory.shape.ndims != 3:
            raise ValueError(f"memory must be [batch, max_time, depth], got {memory.shape}")
        if memory.shape.ndims is None or memory.shape[2] is None:
            raise ValueError("memory's depth (last dimension) must be known")
        self._num_units = int(num_units)
        self._lengths = None if memory_sequence_length is None else A.cast(
            convert_to_tensor(memory_sequence_length), _dtypes.int32)
        self._dtype = _dtypes.as_dtype(dtype) if dtype is not None else memory.dtype
        self._mask_value = (score_mask_value if score_mask_value is not None
                            else -np.inf)
        self._probability_fn = probability_fn or (lambda score, _prev: N.softmax(score))
        self.query_layer = query_layer
        self.memory_layer = _Projection(num_units, "memory_layer")
        self._score_vs: Any = None
        with name_scope(name):
            self._values = _mask_memory(memory, self._lengths)
            self._keys = self.memory_layer(self._values)
        self._batch_size = memory.shape[0] if memory.shape[0] is not None \
            else A.shape(memory)[0]
        self._alignments_size = memory.shape[1] if memory.shape[1] is not None \
            else A.shape(memory)[1]

    @property
    def values(self) -> Tensor:
        """The masked memory."""
        return self._values

    @property
    def keys(self) -> Tensor:
        """The memory projected by ``memory_layer``."""
        return self._keys

    @property
    def batch_size(self) -> Any:
        return self._batch_size

    @property
    def alignments_size(self) -> Any:
        """The number of memory positions."""
        return self._alignments_size

    @property
    def state_size(self) -> Any:
        return self._alignments_size

    def initial_alignments(self, batch_size: Any, dtype: Any) -> Tensor:
        """Zeros [batch, alignments_size]."""
        size = self._alignments_size
        shape = A.stack([batch_size, size]) if isinstance(batch_size, Tensor) or \
            isinstance(size, Tensor) else [int(batch_size), int(size)]
        return A.zeros(shape, dtype=dtype)

    def initial_state(self, batch_size: Any, dtype: Any) -> Tensor:
        """The first ``attention_state``: zero alignments."""
        return self.initial_alignments(batch_size, dtype)

    def _normalize(self, score: Tensor, previous: Tensor) -> Tensor:
        if self._lengths is not None:
            mask = sequence_mask(self._lengths, maxlen=A.shape(score)[1])
            fill = M.multiply(A.ones_like(score),
                              convert_to_tensor(self._mask_value, dtype=score.dtype))
            score = A.where(mask, score, fill)
        return self._probability_fn(score, previous)

    def __call__(self, query: Any, state: Any) -> Any:
        """``(alignments, next_state)`` for ``query`` [batch, query depth]."""
        # The scoring scope is opened once and re-entered, so unrolled calls share it.
        if self._score_vs is None:
            with variable_scope(None, default_name=self._score_scope) as vs:
                self._score_vs = vs
                score = self._score(convert_to_tensor(query))
        else:
            with variable_scope(self._score_vs, reuse=True):
                score = self._score(convert_to_tensor(query))
        alignments = self._normalize(score, state)
        return alignments, alignments

    def _score(self, query: Tensor) -> Tensor:
        raise TypeError(f"{type(self).__name__} does not define a score")


class LuongAttention(_BaseAttentionMechanism):
    """Multiplicative attention: ``score = query . key`` (times ``attention_g`` with
    ``scale``)."""

    _score_scope = "luong_attention"

    def __init__(self, num_units: int, memory: Any, memory_sequence_length: Any = None,
                 scale: bool = False, probability_fn: Optional[Callable[..., Any]] = None,
                 score_mask_value: Any = None, dtype: Any = None,
                 name: str = "LuongAttention"):
        prob = None if probability_fn is None else (lambda s, _p: probability_fn(s))
        super().__init__(num_units, memory, memory_sequence_length, prob, score_mask_value,
                         None, dtype, name)
        self._scale = scale

    def _score(self, query: Tensor) -> Tensor:
        depth = query.shape[-1] if query.shape.ndims else None
        if depth is not None and depth != self._num_units:
            raise ValueError(f"Incompatible or unknown inner dimensions between query and "
                             f"keys. Query (depth {depth}) and keys (depth "
                             f"{self._num_units}); LuongAttention needs num_units equal to "
                             f"the query depth")
        score = A.squeeze(M.matmul(A.expand_dims(query, 1), self._keys, transpose_b=True), [1])
        if self._scale:
            g = get_variable("attention_g", [], dtype=query.dtype,
                             initializer=init_ops.ones_initializer())
            score = M.multiply(g, score)
        return score


class BahdanauAttention(_BaseAttentionMechanism):
    """Additive attention: ``score = v . tanh(keys + query_layer(query))``; with
    ``normalize``, weight normalization of v (``attention_g``) and a bias
    (``attention_b``)."""

    _score_scope = "bahdanau_attention"

    def __init__(self, num_units: int, memory: Any, memory_sequence_length: Any = None,
                 normalize: bool = False, probability_fn: Optional[Callable[..., Any]] = None,
                 score_mask_value: Any = None, dtype: Any = None,
                 name: str = "BahdanauAttention"):
        prob = None if probability_fn is None else (lambda s, _p: probability_fn(s))
        super().__init__(num_units, memory, memory_sequence_length, prob, score_mask_value,
                         _Projection(num_units, "query_layer"), dtype, name)
        self._normalize_v = normalize

    def _score(self, query: Tensor) -> Tensor:
        n = self._num_units
        pq = A.expand_dims(self.query_layer(query), 1)
        v = get_variable("attention_v", [n], dtype=query.dtype)
        if self._normalize_v:
            g = get_variable("attention_g", [], dtype=query.dtype,
                             initializer=init_ops.constant_initializer(math.sqrt(1.0 / n)))
            b = get_variable("attention_b", [n], dtype=query.dtype,
                             initializer=init_ops.zeros_initializer())
            v = M.multiply(M.multiply(g, v), M.rsqrt(reduce_sum(M.square(v))))
            return reduce_sum(M.multiply(v, M.tanh(M.add(M.add(self._keys, pq), b))), [2])
        return reduce_sum(M.multiply(v, M.tanh(M.add(self._keys, pq))), [2])


class AttentionWrapperState(collections.namedtuple(
        "AttentionWrapperState", ("cell_state", "attention", "time", "alignments",
                                  "alignment_history", "attention_state"))):
    """The state of an ``AttentionWrapper``: the cell's state, the last attention, the
    step, the alignments and (with ``alignment_history``) a TensorArray of them."""

    __slots__ = ()

    def clone(self, **kwargs: Any) -> "AttentionWrapperState":
        """A copy with the given fields replaced (e.g. ``cell_state=encoder_state``);
        a replacing tensor takes the static shape of the one it replaces (ValueError
        when they conflict)."""
        def same_shape(old: Any, new: Any) -> Any:
            if isinstance(old, Tensor) and isinstance(new, Tensor):
                new.set_shape(old.shape)
            return new

        return map_structure(same_shape, self, self._replace(**kwargs))


class AttentionWrapper(RNNCell):
    """A cell that attends over a memory at every step (see the module docstring)."""

    _default_name = "attention_wrapper"

    def __init__(self, cell: RNNCell, attention_mechanism: Any,
                 attention_layer_size: Any = None, alignment_history: bool = False,
                 cell_input_fn: Optional[Callable[[Any, Any], Any]] = None,
                 output_attention: bool = True, initial_cell_state: Any = None,
                 name: Optional[str] = None, attention_layer: Any = None):
        super().__init__(name=name)
        if attention_layer is not None:
            raise ValueError("AttentionWrapper: a custom attention_layer is not supported; "
                             "use attention_layer_size")
        self._multi = isinstance(attention_mechanism, (list, tuple))
        mechs = list(attention_mechanism) if self._multi else [attention_mechanism]
        for m in mechs:
            if not isinstance(m, _BaseAttentionMechanism):
                raise TypeError(f"attention_mechanism must be an AttentionMechanism or list "
                                f"of them, saw type: {type(m).__name__}")
        sizes: List[Any] = []
        if attention_layer_size is not None:
            sizes = list(attention_layer_size) if isinstance(attention_layer_size,
                                                             (list, tuple)) \
                else [attention_layer_size]
            if len(sizes) != len(mechs):
                raise ValueError(f"If provided, attention_layer_size must contain exactly one "
                                 f"integer per attention_mechanism, saw: {len(sizes)} vs "
                                 f"{len(mechs)}")
            self._layers: List[Optional[_Projection]] = [
                _Projection(s, "attention_layer") for s in sizes]
            self._attention_size = sum(int(s) for s in sizes)
        else:
            self._layers = [None] * len(mechs)
            self._attention_size = sum(int(m.values.shape[-1]) for m in mechs)
        self._cell = cell
        self._mechs = mechs
        self._cell_input_fn = cell_input_fn or (lambda i, a: A.concat([i, a], -1))
        self._output_attention = output_attention
        self._alignment_history = alignment_history
        self._initial_cell_state = initial_cell_state

    def _item(self, xs: List[Any]) -> Any:
        return tuple(xs) if self._multi else xs[0]

    @property
    def output_size(self) -> Any:
        return self._attention_size if self._output_attention else self._cell.output_size

    @property
    def state_size(self) -> AttentionWrapperState:
        return AttentionWrapperState(
            cell_state=self._cell.state_size, time=TensorShape([]),
            attention=self._attention_size,
            alignments=self._item([m.alignments_size for m in self._mechs]),
            attention_state=self._item([m.state_size for m in self._mechs]),
            alignment_history=self._item([()] * len(self._mechs)))

    def zero_state(self, batch_size: Any, dtype: Any) -> AttentionWrapperState:
        """The first state: the cell's (or ``initial_cell_state``), zero attention."""
        with name_scope(type(self).__name__ + "ZeroState"):
            cell_state = self._initial_cell_state if self._initial_cell_state is not None \
                else self._cell.zero_state(batch_size, dtype)
            att_shape = A.stack([batch_size, self._attention_size]) \
                if isinstance(batch_size, Tensor) else [int(batch_size), self._attention_size]
            hist = [TensorArray(dtype, size=0, dynamic_size=True) if self._alignment_history
                    else () for _ in self._mechs]
            return AttentionWrapperState(
                cell_state=cell_state, time=A.zeros([], dtype=_dtypes.int32),
                attention=A.zeros(att_shape, dtype=dtype),
                alignments=self._item([m.initial_alignments(batch_size, dtype)
                                       for m in self._mechs]),
                attention_state=self._item([m.initial_state(batch_size, dtype)
                                            for m in self._mechs]),
                alignment_history=self._item(hist))

    def call(self, inputs: Any, state: Any) -> Any:
        if not isinstance(state, AttentionWrapperState):
            raise TypeError(f"Expected state to be instance of AttentionWrapperState. "
                            f"Received type {type(state)} instead.")
        cell_out, cell_state = self._cell(self._cell_input_fn(inputs, state.attention),
                                          state.cell_state)
        prev_states = list(state.attention_state) if self._multi else [state.attention_state]
        prev_hist = list(state.alignment_history) if self._multi \
            else [state.alignment_history]
        atts, aligns, next_states, hists = [], [], [], []
        for i, mech in enumerate(self._mechs):
            alignments, next_st = mech(cell_out, prev_states[i])
            context = A.squeeze(M.matmul(A.expand_dims(alignments, 1), mech.values), [1])
            layer = self._layers[i]
            att = layer(A.concat([cell_out, context], 1)) if layer is not None else context
            atts.append(att)
            aligns.append(alignments)
            next_states.append(next_st)
            hists.append(prev_hist[i].write(state.time, alignments)
                         if self._alignment_history else prev_hist[i])
        attention = A.concat(atts, 1) if len(atts) > 1 else atts[0]
        next_state = AttentionWrapperState(
            time=M.add(state.time, 1), cell_state=cell_state, attention=attention,
            alignments=self._item(aligns), attention_state=self._item(next_states),
            alignment_history=self._item(hists))
        return (attention if self._output_attention else cell_out), next_state


__all__ = ["LuongAttention", "BahdanauAttention", "AttentionWrapper", "AttentionWrapperState"]
