"""``tf.contrib.seq2seq`` decoding: helpers, ``BasicDecoder``, ``dynamic_decode``, ``tile_batch``.

A decoder step runs the cell, projects its output (``output_layer``), lets the
helper pick sample ids and the next inputs, and reports which sequences have
finished. ``dynamic_decode`` repeats steps in a ``tf.while_loop`` until every
sequence has finished (or ``maximum_iterations``), writing each step's outputs
into ``TensorArray``s, then hands them to the decoder's ``finalize`` if it has one.
The cell's variables live under ``decoder`` by default:
``decoder/basic_lstm_cell/kernel``.

Where TensorFlow switches between two input tensors with ``tf.cond`` (all
finished: zeros or start tokens; else the next input), these helpers select
with ``where`` and clamp the read index, which gives the same values.
"""

from __future__ import annotations

import abc
import collections
from typing import Any, Optional, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.embedding_ops import embedding_lookup
from tensorfleet.ops.functional_ops import while_loop
from tensorfleet.ops.math_ops_reduce import argmax, reduce_all
from tensorfleet.ops.random_ops import multinomial
from tensorfleet.ops.rnn_cell_impl import flatten, map_structure, pack_sequence_as
from tensorfleet.ops.tensor_array_ops import TensorArray
from tensorfleet.ops.variable_scope import variable_scope


def _transpose_batch_time(x: Tensor) -> Tensor:
    x = convert_to_tensor(x)
    nd = x.shape.ndims
    if nd is None or nd < 2:
        raise ValueError(f"Expected a tensor of rank >= 2 with known rank, got {x.shape} "
                         f"({x.name})")
    return A.transpose(x, [1, 0] + list(range(2, nd)))


def _dim0(x: Tensor) -> Any:
    d = x.shape[0] if x.shape.ndims else None
    return d if d is not None else A.shape(x)[0]


class Helper(abc.ABC):
    """Decides a decoder's inputs: the first ones, and each next one from the outputs."""

    @property
    @abc.abstractmethod
    def batch_size(self) -> Any:
        """The batch size (int or scalar tensor)."""

    @property
    def sample_ids_shape(self) -> TensorShape:
        """Shape of one batch entry's sample id (a scalar)."""
        return TensorShape([])

    @property
    def sample_ids_dtype(self) -> _dtypes.DType:
        """The dtype of the sample ids."""
        return _dtypes.int32

    @abc.abstractmethod
    def initialize(self, name: Optional[str] = None) -> Tuple[Tensor, Any]:
        """``(finished, first_inputs)``."""

    @abc.abstractmethod
    def sample(self, time: Any, outputs: Any, state: Any, name: Optional[str] = None) -> Tensor:
        """Sample ids of one step."""

    @abc.abstractmethod
    def next_inputs(self, time: Any, outputs: Any, state: Any, sample_ids: Any,
                    name: Optional[str] = None) -> Tuple[Tensor, Any, Any]:
        """``(finished, next_inputs, next_state)``."""


def _pick(pred: Tensor, a: Tensor, b: Tensor) -> Tensor:
    """``a`` if the scalar ``pred`` else ``b`` (both [batch, ...]), without a cond."""
    rows = A.fill(A.shape(b)[0:1], pred)
    return A.where(rows, a, b)


def _argmax_ids(outputs: Any) -> Tensor:
    if not isinstance(outputs, Tensor):
        raise TypeError(f"Expected outputs to be a single Tensor, got: {type(outputs)}")
    return A.cast(argmax(outputs, axis=-1), _dtypes.int32)


class TrainingHelper(Helper):
    """Teacher forcing: step t reads ``inputs[:, t]``; a sequence finishes at its length."""

    def __init__(self, inputs: Any, sequence_length: Any, time_major: bool = False,
                 name: Optional[str] = None):
        with name_scope(name or "TrainingHelper"):
            flat = [convert_to_tensor(x, name="inputs") for x in flatten(inputs)]
            flat_tm = flat if time_major else [_transpose_batch_time(x) for x in flat]
            self._inputs = inputs
            self._n_steps = A.shape(flat_tm[0])[0]
            self._input_tas = [TensorArray(x.dtype, size=self._n_steps,
                                           element_shape=x.shape[1:]).unstack(x)
                               for x in flat_tm]
            self._sequence_length = convert_to_tensor(sequence_length, name="sequence_length")
            if self._sequence_length.shape.ndims not in (None, 1):
                raise ValueError(f"Expected sequence_length to be a vector, but received "
                                 f"shape: {self._sequence_length.shape}")
            if not self._sequence_length.dtype.is_integer:
                raise TypeError("sequence_length must be integers")
            self._sequence_length = A.cast(self._sequence_length, _dtypes.int32)
            self._zero_inputs = [A.zeros_like(x[0]) for x in flat_tm]
            self._batch_size = _dim0(self._sequence_length)

    @property
    def inputs(self) -> Any:
        """The inputs given to the helper."""
        return self._inputs

    @property
    def sequence_length(self) -> Tensor:
        """The lengths of the target sequences."""
        return self._sequence_length

    @property
    def batch_size(self) -> Any:
        return self._batch_size

    def _read(self, time: Any, all_finished: Tensor) -> Any:
        # Reading past the end would fail; the clamped index is never used then.
        idx = M.minimum(time, M.maximum(M.subtract(self._n_steps, 1), 0))
        vals = [_pick(all_finished, z, ta.read(idx)) for ta, z in
                zip(self._input_tas, self._zero_inputs)]
        return pack_sequence_as(self._inputs, vals)

    def initialize(self, name: Optional[str] = None) -> Tuple[Tensor, Any]:
        with name_scope(name or "TrainingHelperInitialize"):
            finished = M.equal(0, self._sequence_length)
            return finished, self._read(0, reduce_all(finished))

    def sample(self, time: Any, outputs: Any, state: Any, name: Optional[str] = None) -> Tensor:
        with name_scope(name or "TrainingHelperSample"):
            return _argmax_ids(outputs)

    def next_inputs(self, time: Any, outputs: Any, state: Any, sample_ids: Any,
                    name: Optional[str] = None) -> Tuple[Tensor, Any, Any]:
        with name_scope(name or "TrainingHelperNextInputs"):
            next_time = M.add(time, 1)
            finished = M.greater_equal(next_time, self._sequence_length)
            return finished, self._read(next_time, reduce_all(finished)), state


class GreedyEmbeddingHelper(Helper):
    """Inference: the next input is the embedding of the argmax of the outputs; a
    sequence finishes when it emits ``end_token``."""

    def __init__(self, embedding: Any, start_tokens: Any, end_token: Any):
        if callable(embedding):
            self._embed = embedding
        else:
            params = embedding
            self._embed = lambda ids: embedding_lookup(params, ids)
        self._start_tokens = convert_to_tensor(start_tokens, dtype=_dtypes.int32,
                                               name="start_tokens")
        self._end_token = convert_to_tensor(end_token, dtype=_dtypes.int32, name="end_token")
        if self._start_tokens.shape.ndims not in (None, 1):
            raise ValueError("start_tokens must be a vector")
        if self._end_token.shape.ndims not in (None, 0):
            raise ValueError("end_token must be a scalar")
        self._batch_size = _dim0(self._start_tokens)
        self._start_inputs = self._embed(self._start_tokens)

    @property
    def batch_size(self) -> Any:
        return self._batch_size

    def initialize(self, name: Optional[str] = None) -> Tuple[Tensor, Any]:
        finished = A.fill(A.expand_dims(A.size(self._start_tokens), 0), False)
        return finished, self._start_inputs

    def sample(self, time: Any, outputs: Any, state: Any, name: Optional[str] = None) -> Tensor:
        return _argmax_ids(outputs)

    def next_inputs(self, time: Any, outputs: Any, state: Any, sample_ids: Any,
                    name: Optional[str] = None) -> Tuple[Tensor, Any, Any]:
        finished = M.equal(sample_ids, self._end_token)
        nxt = _pick(reduce_all(finished), self._start_inputs, self._embed(sample_ids))
        return finished, nxt, state


class SampleEmbeddingHelper(GreedyEmbeddingHelper):
    """Inference by sampling: the next id is drawn from the softmax of the outputs
    (divided by ``softmax_temperature`` when given), then embedded; a sequence finishes
    when it draws ``end_token``."""

    def __init__(self, embedding: Any, start_tokens: Any, end_token: Any,
                 softmax_temperature: Any = None, seed: Optional[int] = None):
        super().__init__(embedding, start_tokens, end_token)
        if softmax_temperature is not None and not isinstance(softmax_temperature, Tensor) \
                and float(softmax_temperature) <= 0.0:
            raise ValueError(f"softmax_temperature must be positive, got {softmax_temperature}")
        self._softmax_temperature = softmax_temperature
        self._seed = seed

    def sample(self, time: Any, outputs: Any, state: Any, name: Optional[str] = None) -> Tensor:
        """One id per row drawn from ``softmax(outputs / softmax_temperature)``, int32."""
        if not isinstance(outputs, Tensor):
            raise TypeError(f"Expected outputs to be a single Tensor, got: {type(outputs)}")
        with name_scope(name or "SampleEmbeddingHelperSample"):
            logits = outputs if self._softmax_temperature is None else M.truediv(
                outputs, A.cast(self._softmax_temperature, outputs.dtype)
                if isinstance(self._softmax_temperature, Tensor)
                else float(self._softmax_temperature))
            # One draw per row; [batch, 1] -> [batch].
            draws = multinomial(A.reshape(logits, [-1, A.shape(logits)[-1]]), 1,
                                seed=self._seed, output_dtype=_dtypes.int32)
            return A.reshape(draws, A.shape(logits)[:-1])


class BasicDecoderOutput(collections.namedtuple("BasicDecoderOutput",
                                                ("rnn_output", "sample_id"))):
    """One decoder step's outputs: the (projected) cell output and the sample ids."""

    __slots__ = ()


class Decoder(abc.ABC):
    """A decoder for ``dynamic_decode``: ``initialize`` and ``step``; a decoder that also
    defines ``finalize(outputs, final_state, sequence_lengths)`` gets its time-major
    outputs and last state through it once the loop has ended."""

    @property
    @abc.abstractmethod
    def batch_size(self) -> Any:
        """The batch size."""

    @property
    @abc.abstractmethod
    def output_size(self) -> Any:
        """Sizes of one step's outputs (a structure of ints / TensorShapes)."""

    @property
    @abc.abstractmethod
    def output_dtype(self) -> Any:
        """Dtypes of one step's outputs, in the structure of ``output_size``."""

    @abc.abstractmethod
    def initialize(self, name: Optional[str] = None) -> Tuple[Tensor, Any, Any]:
        """``(finished, first_inputs, initial_state)``."""

    @abc.abstractmethod
    def step(self, time: Any, inputs: Any, state: Any, name: Optional[str] = None) -> Any:
        """``(outputs, next_state, next_inputs, finished)``."""

    @property
    def tracks_own_finished(self) -> bool:
        """Whether the decoder keeps finished sequences finished by itself."""
        return False


def _layer_units(layer: Any) -> int:
    units = getattr(layer, "units", None)
    if units is None:
        raise TypeError(f"output_layer must be a dense layer with `units`, got {layer!r}")
    return int(units)


class BasicDecoder(Decoder):
    """Runs ``cell`` one step at a time, optionally through ``output_layer``, with ``helper``
    choosing the inputs."""

    def __init__(self, cell: Any, helper: Helper, initial_state: Any,
                 output_layer: Any = None):
        if not hasattr(cell, "state_size") or not callable(cell):
            raise TypeError(f"cell must be an RNNCell, received: {type(cell)}")
        if not isinstance(helper, Helper):
            raise TypeError(f"helper must be a Helper, received: {type(helper)}")
        if output_layer is not None and not callable(output_layer):
            raise TypeError(f"output_layer must be a Layer, received: {type(output_layer)}")
        self._cell = cell
        self._helper = helper
        self._initial_state = initial_state
        self._output_layer = output_layer

    @property
    def batch_size(self) -> Any:
        return self._helper.batch_size

    @property
    def output_size(self) -> BasicDecoderOutput:
        size = self._cell.output_size if self._output_layer is None \
            else _layer_units(self._output_layer)
        return BasicDecoderOutput(rnn_output=size, sample_id=self._helper.sample_ids_shape)

    @property
    def output_dtype(self) -> BasicDecoderOutput:
        dtype = flatten(self._initial_state)[0].dtype
        return BasicDecoderOutput(dtype, self._helper.sample_ids_dtype)

    def initialize(self, name: Optional[str] = None) -> Tuple[Tensor, Any, Any]:
        finished, first = self._helper.initialize()
        return finished, first, self._initial_state

    def step(self, time: Any, inputs: Any, state: Any, name: Optional[str] = None) -> Any:
        with name_scope(name or "BasicDecoderStep"):
            out, cell_state = self._cell(inputs, state)
            if self._output_layer is not None:
                out = self._output_layer(out)
            ids = self._helper.sample(time=time, outputs=out, state=cell_state)
            finished, nxt, next_state = self._helper.next_inputs(
                time=time, outputs=out, state=cell_state, sample_ids=ids)
        return BasicDecoderOutput(out, ids), next_state, nxt, finished


def _zeros_of(size: Any, dtype: Any, batch: Any) -> Tensor:
    dims = size.as_list() if isinstance(size, TensorShape) else [int(size)]
    shape = A.stack([batch] + [A.constant(d) for d in dims]) if isinstance(batch, Tensor) \
        else [int(batch)] + dims
    return A.zeros(shape, dtype=dtype)


def dynamic_decode(decoder: Decoder, output_time_major: bool = False,
                   impute_finished: bool = False, maximum_iterations: Any = None,
                   parallel_iterations: int = 32, swap_memory: bool = False,
                   scope: Any = None) -> Tuple[Any, Any, Tensor]:
    """Runs ``decoder`` until every sequence has finished or ``maximum_iterations``.

    Returns ``(final_outputs, final_state, final_sequence_lengths)``: the outputs
    stacked over time ([batch, time, ...], or time-major), the last state, and
    for each sequence the step at which it finished. With ``impute_finished``
    the outputs of finished sequences are zeros and their state is frozen.
    """
    if not isinstance(decoder, Decoder):
        raise TypeError(f"Expected decoder to be type Decoder, but saw: {type(decoder)}")
    with variable_scope(scope, default_name="decoder"):
        max_it = None
        if maximum_iterations is not None:
            max_it = convert_to_tensor(maximum_iterations, dtype=_dtypes.int32,
                                       name="maximum_iterations")
            if max_it.shape.ndims not in (None, 0):
                raise ValueError("maximum_iterations must be a scalar")
        finished0, inputs0, state0 = decoder.initialize()
        batch = decoder.batch_size
        zero_outputs = map_structure(lambda s, d: _zeros_of(s, d, batch),
                                     decoder.output_size, decoder.output_dtype)
        if max_it is not None:
            finished0 = M.logical_or(finished0, M.greater_equal(0, max_it))
        lengths0 = A.zeros_like(finished0, dtype=_dtypes.int32)
        flat_dtypes = flatten(decoder.output_dtype)
        tas0 = [TensorArray(d, size=0, dynamic_size=True) for d in flat_dtypes]
        n_state = len(flatten(state0))
        n_in = len(flatten(inputs0))

        def cond(t: Tensor, *rest: Any) -> Tensor:
            finished = rest[len(tas0) + n_state + n_in]
            return M.logical_not(reduce_all(finished))

        def body(t: Tensor, *rest: Any) -> Any:
            tas = list(rest[:len(tas0)])
            st_flat = list(rest[len(tas0):len(tas0) + n_state])
            in_flat = list(rest[len(tas0) + n_state:len(tas0) + n_state + n_in])
            finished, lengths = rest[-2], rest[-1]
            state = pack_sequence_as(state0, st_flat)
            inputs = pack_sequence_as(inputs0, in_flat)
            outputs, dec_state, next_inputs, dec_finished = decoder.step(t, inputs, state)
            next_finished = dec_finished if decoder.tracks_own_finished \
                else M.logical_or(dec_finished, finished)
            next_t = M.add(t, 1)
            lengths = A.where(M.logical_not(finished),
                              A.fill(A.shape(lengths), next_t), lengths)
            if max_it is not None:
                next_finished = M.logical_or(next_finished, M.greater_equal(next_t, max_it))
            out_flat = flatten(outputs)
            new_st = flatten(dec_state)
            if impute_finished:
                out_flat = [A.where(finished, z, o)
                            for o, z in zip(out_flat, flatten(zero_outputs))]
                # Scalars (a step counter) and TensorArrays pass through.
                new_st = [A.where(finished, s, n)
                          if isinstance(n, Tensor) and n.shape.ndims != 0 else n
                          for n, s in zip(new_st, st_flat)]
            tas = [ta.write(t, o) for ta, o in zip(tas, out_flat)]
            return ([next_t] + tas + new_st + flatten(next_inputs)
                    + [next_finished, lengths])

        t0 = A.constant(0, dtype=_dtypes.int32, name="initial_time")
        loop_vars = ([t0] + tas0 + flatten(state0) + flatten(inputs0)
                     + [finished0, lengths0])
        res = while_loop(cond, body, loop_vars, parallel_iterations=parallel_iterations,
                         swap_memory=swap_memory, maximum_iterations=max_it)
        stacked = [ta.stack() for ta in res[1:1 + len(tas0)]]
        final_state = pack_sequence_as(state0, list(res[1 + len(tas0):1 + len(tas0) + n_state]))
        lengths = res[-1]
        final_outputs = pack_sequence_as(decoder.output_dtype, stacked)
        # A decoder may rework its time-major outputs once at the end (beam search
        # traces its beams back there).
        finalize = getattr(decoder, "finalize", None)
        if finalize is not None:
            final_outputs, final_state = finalize(final_outputs, final_state, lengths)
        if not output_time_major:
            final_outputs = map_structure(_transpose_batch_time, final_outputs)
    return final_outputs, final_state, lengths


def tile_batch(t: Any, multiplier: int, name: Optional[str] = None) -> Any:
    """Repeats every batch entry ``multiplier`` times in a row (for beam search):
    ``[a, b] -> [a, a, b, b]`` for ``multiplier=2``; nested structures tile leaf by leaf."""
    if int(multiplier) < 1:
        raise ValueError(f"multiplier must be a positive integer, got {multiplier}")
    m = int(multiplier)

    def tile_one(x: Any) -> Tensor:
        x = convert_to_tensor(x)
        nd = x.shape.ndims
        if nd is None or nd == 0:
            raise ValueError(f"tile_batch needs tensors of known rank >= 1, got {x.shape}")
        if m == 1:
            return x
        tiled = A.tile(A.expand_dims(x, 1), [1, m] + [1] * (nd - 1))
        dims = A.shape(x)
        new_shape = A.concat([A.expand_dims(M.multiply(dims[0], m), 0), dims[1:]], 0)
        out = A.reshape(tiled, new_shape)
        static = x.shape.as_list()
        out.set_shape([None if static[0] is None else static[0] * m] + static[1:])
        return out

    with name_scope(name or "tile_batch"):
        return map_structure(tile_one, t)


__all__ = ["Helper", "TrainingHelper", "GreedyEmbeddingHelper", "SampleEmbeddingHelper",
           "Decoder", "BasicDecoder",
           "BasicDecoderOutput", "dynamic_decode", "tile_batch"]
