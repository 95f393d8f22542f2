"""``tf.contrib.seq2seq`` beam search: ``BeamSearchDecoder`` and ``gather_tree``.

The decoder keeps ``beam_width`` hypotheses per batch entry. Its state and outputs
are laid out ``[batch, beam_width, ...]``; the cell runs on the merged
``[batch * beam_width, ...]`` layout, so an ``AttentionWrapper`` decoder needs its
memory ``tile_batch``-ed and a ``zero_state`` made for ``batch * beam_width``.

One step: every hypothesis proposes every vocabulary id, with its accumulated log
probability plus the step's ``log_softmax``. A finished hypothesis may only
propose ``end_token``, at no cost, so it survives unchanged if it stays among the
best. The candidates are ranked by ``log_prob / length_penalty``, with the penalty
``((5 + length) / 6) ** length_penalty_weight`` (the length leaves out the end
token), plus, with ``coverage_penalty_weight``, the weighted sum over memory
positions of ``log(min(accumulated attention, 1))`` for finished hypotheses. The
``beam_width`` best candidates of each batch entry become the next hypotheses; their
cell states come from their parents. Only the first hypothesis is live at the
start (the others start finished with log probability -inf), so the first step
expands it alone.

Each step emits the chosen ids, their scores and their parents' indices;
``finalize`` (called by ``dynamic_decode``) walks the parent pointers back from
the last step with ``gather_tree`` into ``predicted_ids`` [batch, time, beam],
best hypothesis first.
"""

from __future__ import annotations

import collections
import logging
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops.embedding_ops import embedding_lookup
from tensorfleet.ops.math_ops_reduce import reduce_max, reduce_mean, reduce_sum
from tensorfleet.ops.nn_sampling_ops import top_k
from tensorfleet.ops.op_util import const_value, make_tensor
from tensorfleet.ops.rnn_cell_impl import flatten, map_structure
from tensorfleet.ops.rnn_ops import sequence_mask
from tensorfleet.ops.scatter_ops import gather_nd
from tensorfleet.ops.seq2seq_attention import AttentionWrapperState
from tensorfleet.ops.seq2seq_decode import Decoder, _dim0
from tensorfleet.ops.tensor_array_ops import TensorArray

logger = logging.getLogger(__name__)


def _gather_tree_shape(op: Any) -> List[TensorShape]:
    ids, parents, lens, end = (t.shape for t in op.inputs)
    out = ids.merge_with(parents)
    if out.ndims is not None and out.ndims != 3:
        raise ValueError(f"step_ids must be [max_time, batch, beam_width], got {out}")
    if lens.ndims is not None and lens.ndims != 1:
        raise ValueError(f"max_sequence_lengths must be a vector, got {lens}")
    if end.ndims is not None and end.ndims != 0:
        raise ValueError(f"end_token must be a scalar, got {end}")
    if out.ndims == 3 and lens.ndims == 1:
        TensorShape([out[1]]).assert_is_compatible_with(lens)
    return [out]


register_op("GatherTree", _gather_tree_shape)


def gather_tree(step_ids: Any, parent_ids: Any, max_sequence_lengths: Any, end_token: Any,
                name: Optional[str] = None) -> Tensor:
    """Whole beams from per-step ids and parent pointers, read from the last step back.

    ``step_ids`` and ``parent_ids`` are int32 ``[max_time, batch, beam_width]``: at
    step t, beam k emitted ``step_ids[t, :, k]`` and continued beam
    ``parent_ids[t, :, k]`` of step t - 1. Beam k of the result is the sequence
    ending in beam k at step ``max_sequence_lengths[b] - 1``; steps past that
    length, and every step after the first ``end_token``, hold ``end_token``. A
    parent index outside ``[0, beam_width)`` writes -1 where it was followed.
    """
    with name_scope(name or "GatherTree"):
        def int32(x: Any, what: str) -> Tensor:
            t = x if isinstance(x, Tensor) else convert_to_tensor(x, dtype=_dtypes.int32,
                                                                  name=what)
            if t.dtype is not _dtypes.int32:
                raise TypeError(f"gather_tree: {what} must be int32, got {t.dtype.name}")
            return t

        ids, parents = int32(step_ids, "step_ids"), int32(parent_ids, "parent_ids")
        lens = int32(max_sequence_lengths, "max_sequence_lengths")
        end = int32(end_token, "end_token")
        return make_tensor("GatherTree", [ids, parents, lens, end], _dtypes.int32,
                           name="GatherTree")


class BeamSearchDecoderState(collections.namedtuple(
        "BeamSearchDecoderState",
        ("cell_state", "log_probs", "finished", "lengths", "accumulated_attention_probs"))):
    """The beam search state: the cell's state, each hypothesis's log probability,
    whether it has finished, its length (int64) and, with a coverage penalty, its
    accumulated attention; all ``[batch, beam_width, ...]``."""

    __slots__ = ()


class BeamSearchDecoderOutput(collections.namedtuple(
        "BeamSearchDecoderOutput", ("scores", "predicted_ids", "parent_ids"))):
    """One step: each new hypothesis's score, last id and parent beam index."""

    __slots__ = ()


class FinalBeamSearchDecoderOutput(collections.namedtuple(
        "FinalBeamDecoderOutput", ("predicted_ids", "beam_search_decoder_output"))):
    """The decoded beams (``predicted_ids``, best first) and the per-step outputs."""

    __slots__ = ()


# The namedtuple's own name, also usable as the class name.
FinalBeamDecoderOutput = FinalBeamSearchDecoderOutput


def _check_known_rank(t: Tensor) -> None:
    if t.shape.ndims is None:
        raise ValueError(f"Expected tensor ({t.name}) to have known rank, but ndims == None.")


def _reshape_lead(t: Tensor, lead: Sequence[Any], start: int) -> Tensor:
    """``t`` reshaped to ``lead + shape(t)[start:]`` (``lead`` of ints or scalar tensors)."""
    tail = t.shape.as_list()[start:]
    if all(d is not None for d in tail) and all(isinstance(d, int) for d in lead):
        return A.reshape(t, list(lead) + tail)
    lead_t = A.stack([convert_to_tensor(d, dtype=_dtypes.int32) for d in lead])
    return A.reshape(t, A.concat([lead_t, A.shape(t)[start:]], 0))


def _gather_rows(t: Tensor, idx: Tensor, width: Any) -> Tensor:
    """``out[b, j] = t[b, idx[b, j]]`` for ``t`` [batch, width, ...] and ``idx`` [batch, m]."""
    flat = _reshape_lead(t, [-1], 2)
    offsets = A.expand_dims(M.multiply(A.range(A.shape(idx)[0]), width), 1)
    picked = A.gather(flat, A.reshape(M.add(idx, offsets), [-1]))
    out = _reshape_lead(picked, [-1, A.shape(idx)[1]], 1)
    lead = TensorShape([idx.shape[0], idx.shape[1]]) if idx.shape.ndims == 2 \
        else TensorShape([None, None])
    out.set_shape(lead.concatenate(t.shape[2:] if t.shape.ndims is not None else None))
    return out


def _attention_probs(cell_state: Any) -> Optional[Tensor]:
    """The alignments of the attention wrappers in ``cell_state`` [batch, beam, memory],
    averaged over several mechanisms or wrappers; None without any."""
    def of(state: AttentionWrapperState) -> Tensor:
        al = state.alignments
        if isinstance(al, tuple):
            return reduce_mean(A.stack(list(al), -1), -1)
        return al

    if isinstance(cell_state, AttentionWrapperState):
        return of(cell_state)
    probs = [of(s) for s in cell_state if isinstance(s, AttentionWrapperState)] \
        if isinstance(cell_state, tuple) else []
    if not probs:
        return None
    return probs[0] if len(probs) == 1 else reduce_mean(A.stack(probs, -1), -1)


def _static_weight(w: Any, what: str) -> Tuple[Tensor, Optional[float]]:
    t = convert_to_tensor(w, dtype=_dtypes.float32, name=what) if not isinstance(w, Tensor) \
        else w
    if t.shape.ndims not in (None, 0):
        raise ValueError(f"{what} should be a scalar, but saw shape: {t.shape}")
    v = const_value(t)
    return t, (None if v is None else float(v))


class BeamSearchDecoder(Decoder):
    """Beam search over ``cell`` for ``dynamic_decode`` (see the module docstring).

    Args:
      cell: the decoder cell, run on ``[batch * beam_width, ...]`` inputs and states.
      embedding: an embedding matrix or a callable mapping ids to inputs.
      start_tokens: int32 vector [batch]; end_token: int32 scalar.
      initial_state: the cell's initial state for ``batch * beam_width`` rows (for
        an encoder state of ``batch`` rows, ``tile_batch`` it first).
      beam_width: the number of hypotheses per batch entry.
      output_layer: applied to the cell output to give the logits.
      length_penalty_weight: the exponent of the length penalty (0 disables it).
      coverage_penalty_weight: the weight of the coverage penalty (0 disables it;
        otherwise the cell must be an ``AttentionWrapper``).
      reorder_tensor_arrays: whether ``finalize`` reorders the TensorArrays of the
        final cell state (an alignment history) along the decoded beams; they
        are then returned stacked, as Tensors.
    """

    def __init__(self, cell: Any, embedding: Any, start_tokens: Any, end_token: Any,
                 initial_state: Any, beam_width: int, output_layer: Any = None,
                 length_penalty_weight: Any = 0.0, coverage_penalty_weight: Any = 0.0,
                 reorder_tensor_arrays: bool = True):
        if not hasattr(cell, "state_size") or not callable(cell):
            raise TypeError(f"cell must be an RNNCell, received: {type(cell)}")
        if output_layer is not None and not callable(output_layer):
            raise TypeError(f"output_layer must be a Layer, received: {type(output_layer)}")
        if isinstance(beam_width, Tensor) or int(beam_width) != beam_width \
                or int(beam_width) < 1:
            raise ValueError(f"beam_width must be a positive Python integer, got {beam_width!r}")
        self._cell = cell
        self._output_layer = output_layer
        self._reorder_tensor_arrays = bool(reorder_tensor_arrays)
        if callable(embedding):
            self._embed = embedding
        else:
            params = embedding
            self._embed = lambda ids: embedding_lookup(params, ids)
        tokens = convert_to_tensor(start_tokens, dtype=_dtypes.int32, name="start_tokens")
        if tokens.shape.ndims != 1:
            raise ValueError("start_tokens must be a vector")
        self._end_token = convert_to_tensor(end_token, dtype=_dtypes.int32, name="end_token")
        if self._end_token.shape.ndims != 0:
            raise ValueError("end_token must be a scalar")
        self._beam_width = int(beam_width)
        self._batch_size = _dim0(tokens)
        self._static_batch = tokens.shape[0]
        self._length_penalty, self._static_length_penalty = _static_weight(
            length_penalty_weight, "length_penalty_weight")
        self._coverage_penalty, self._static_coverage_penalty = _static_weight(
            coverage_penalty_weight, "coverage_penalty_weight")
        self._batch_zeros = A.zeros_like(tokens)
        self._initial_cell_state = map_structure(self._maybe_split, initial_state)
        self._start_tokens = A.tile(A.expand_dims(tokens, 1), [1, self._beam_width])
        self._start_inputs = self._embed(self._start_tokens)
        # Only beam 0 is live at the start: the others are finished at -inf, so the
        # first step ranks the continuations of one hypothesis.
        self._finished = A.one_hot(self._batch_zeros, depth=self._beam_width, on_value=False,
                                   off_value=True, dtype=_dtypes.bool)
        self._dtype = flatten(self._initial_cell_state)[0].dtype

    @property
    def batch_size(self) -> Any:
        return self._batch_size

    @property
    def beam_width(self) -> int:
        """The number of hypotheses per batch entry."""
        return self._beam_width

    @property
    def output_size(self) -> BeamSearchDecoderOutput:
        k = TensorShape([self._beam_width])
        return BeamSearchDecoderOutput(scores=k, predicted_ids=k, parent_ids=k)

    @property
    def output_dtype(self) -> BeamSearchDecoderOutput:
        return BeamSearchDecoderOutput(scores=self._dtype, predicted_ids=_dtypes.int32,
                                       parent_ids=_dtypes.int32)

    @property
    def tracks_own_finished(self) -> bool:
        """True: a finished hypothesis is kept finished by the beam step itself (and may
        be replaced by a better live one)."""
        return True

    # -- [batch * beam, ...] <-> [batch, beam, ...] --------------------------------------

    def _split(self, t: Tensor) -> Tensor:
        _check_known_rank(t)
        k = self._beam_width
        rows = t.shape[0]
        if rows is not None:
            want = None if self._static_batch is None else self._static_batch * k
            if (want is not None and rows != want) or rows % k:
                raise ValueError(
                    f"BeamSearchDecoder: {t.name} has {rows} rows, but a tensor of the "
                    f"cell's state must have batch_size * beam_width = "
                    f"{want if want is not None else f'a multiple of {k}'} rows; make the "
                    f"initial state with zero_state(batch_size * beam_width) and tile the "
                    f"encoder's tensors with tile_batch(..., beam_width)")
        out = _reshape_lead(t, [-1, k], 1)
        out.set_shape(TensorShape([self._static_batch, k]).concatenate(t.shape[1:]))
        return out

    def _merge(self, t: Tensor) -> Tensor:
        _check_known_rank(t)
        out = _reshape_lead(t, [-1], 2)
        rows = None if self._static_batch is None else self._static_batch * self._beam_width
        out.set_shape(TensorShape([rows]).concatenate(t.shape[2:]))
        return out

    def _maybe_split(self, t: Any) -> Any:
        if isinstance(t, TensorArray):
            return t
        t = convert_to_tensor(t)
        _check_known_rank(t)
        return self._split(t) if t.shape.ndims >= 1 else t

    def _maybe_merge(self, t: Any) -> Any:
        if isinstance(t, TensorArray):
            return t
        _check_known_rank(t)
        return self._merge(t) if t.shape.ndims >= 2 else t

    def _maybe_gather(self, t: Any, parents: Tensor) -> Any:
        if isinstance(t, TensorArray) or t.shape.ndims == 0:
            return t
        return _gather_rows(t, parents, self._beam_width)

    # -- decoding ------------------------------------------------------------------------

    def initialize(self, name: Optional[str] = None) -> Tuple[Tensor, Any, Any]:
        """``(finished, start_inputs, initial BeamSearchDecoderState)``."""
        with name_scope(name or "BeamSearchDecoderInitialize"):
            log_probs = A.one_hot(self._batch_zeros, depth=self._beam_width,
                                  on_value=convert_to_tensor(0.0, dtype=self._dtype),
                                  off_value=convert_to_tensor(-np.inf, dtype=self._dtype),
                                  dtype=self._dtype)
            att = self._coverage_attention(self._initial_cell_state)
            state = BeamSearchDecoderState(
                cell_state=self._initial_cell_state, log_probs=log_probs,
                finished=self._finished,
                lengths=A.zeros_like(self._finished, dtype=_dtypes.int64),
                accumulated_attention_probs=() if att is None else att)
        return self._finished, self._start_inputs, state

    def _coverage_attention(self, cell_state: Any) -> Optional[Tensor]:
        if self._static_coverage_penalty == 0.0:
            return None
        probs = _attention_probs(cell_state)
        if probs is None:
            raise ValueError("coverage_penalty_weight must be 0.0 if no cell is attentional.")
        return probs

    def step(self, time: Any, inputs: Any, state: Any, name: Optional[str] = None) -> Any:
        """One beam step: ``(BeamSearchDecoderOutput, next state, next inputs, finished)``."""
        with name_scope(name or "BeamSearchDecoderStep"):
            cell_inputs = map_structure(self._merge, inputs)
            cell_state = map_structure(self._maybe_merge, state.cell_state)
            out, next_cell_state = self._cell(cell_inputs, cell_state)
            out = map_structure(self._split, out)
            next_cell_state = map_structure(self._maybe_split, next_cell_state)
            if self._output_layer is not None:
                out = self._output_layer(out)
            output, next_state = self._beam_step(out, next_cell_state, state)
            next_inputs = self._embed(output.predicted_ids)
        return output, next_state, next_inputs, next_state.finished

    def _scores(self, log_probs: Tensor, lengths: Tensor, finished: Tensor,
                coverage: Optional[Tensor]) -> Tensor:
        scores = log_probs
        if self._static_length_penalty != 0.0:
            w = A.cast(self._length_penalty, _dtypes.float32)
            grown = M.add(5.0, A.cast(lengths, _dtypes.float32))
            penalty = M.truediv(M.pow(grown, w), M.pow(6.0, w))
            scores = M.truediv(scores, A.cast(penalty, log_probs.dtype))
        if self._static_coverage_penalty == 0.0:
            return scores
        # Memory positions with no attention at all (padding) add log(1) = 0.
        acc = A.where(M.equal(coverage, 0.0), A.ones_like(coverage), coverage)
        cov = reduce_sum(M.log(M.minimum(acc, 1.0)), [2])
        cov = M.multiply(cov, A.cast(finished, cov.dtype))
        cov = M.multiply(cov, A.cast(self._coverage_penalty, cov.dtype))
        return M.add(scores, A.expand_dims(cov, 2))

    def _beam_step(self, logits: Tensor, next_cell_state: Any,
                   state: BeamSearchDecoderState) -> Tuple[BeamSearchDecoderOutput, Any]:
        k, end = self._beam_width, self._end_token
        logits = convert_to_tensor(logits)
        if logits.shape.ndims != 3:
            raise ValueError(f"BeamSearchDecoder: the logits must be [batch, beam_width, "
                             f"vocab], got {logits.shape}; give an output_layer")
        vocab = logits.shape[2] if logits.shape[2] is not None else A.shape(logits)[2]
        finished = state.finished
        live = M.logical_not(finished)
        step_lp = N.log_softmax(logits)
        # A finished hypothesis continues only with end_token, for free.
        eos_row = A.one_hot(end, vocab, on_value=convert_to_tensor(0.0, dtype=step_lp.dtype),
                            off_value=convert_to_tensor(step_lp.dtype.min, dtype=step_lp.dtype),
                            dtype=step_lp.dtype)
        tiles = A.stack([1, 1, vocab]) if isinstance(vocab, Tensor) else [1, 1, vocab]
        step_lp = A.where(A.tile(A.expand_dims(finished, 2), tiles),
                          M.add(A.zeros_like(step_lp), A.reshape(eos_row, [1, 1, -1])),
                          step_lp)
        total = M.add(A.expand_dims(state.log_probs, 2), step_lp)
        grows = A.cast(M.not_equal(A.range(vocab), end), _dtypes.int64)
        new_lengths = M.add(A.expand_dims(state.lengths, 2),
                            M.multiply(A.reshape(grows, [1, 1, -1]),
                                       A.expand_dims(A.cast(live, _dtypes.int64), 2)))
        coverage = None
        att = self._coverage_attention(next_cell_state)
        if att is not None:
            att = M.multiply(att, A.expand_dims(A.cast(live, att.dtype), 2))
            coverage = M.add(state.accumulated_attention_probs, att)
        scores = self._scores(total, new_lengths, finished, coverage)
        width = M.multiply(vocab, k)
        flat_scores = _reshape_lead(scores, [-1, width], 3) if isinstance(width, Tensor) \
            else A.reshape(scores, [-1, width])
        next_scores, word_idx = top_k(flat_scores, k=k)
        next_scores.set_shape([self._static_batch, k])
        word_idx.set_shape([self._static_batch, k])
        next_log_probs = _gather_rows(A.reshape(total, A.shape(flat_scores)), word_idx, width)
        word_ids = M.floormod(word_idx, vocab)
        parents = M.floordiv(word_idx, vocab)
        was_finished = _gather_rows(finished, parents, k)
        next_finished = M.logical_or(was_finished, M.equal(word_ids, end))
        next_lengths = M.add(_gather_rows(state.lengths, parents, k),
                             A.cast(M.logical_not(was_finished), _dtypes.int64))
        next_coverage: Any = () if coverage is None else _gather_rows(coverage, parents, k)
        next_cell_state = map_structure(lambda t: self._maybe_gather(t, parents),
                                        next_cell_state)
        return (BeamSearchDecoderOutput(scores=next_scores, predicted_ids=word_ids,
                                        parent_ids=parents),
                BeamSearchDecoderState(cell_state=next_cell_state, log_probs=next_log_probs,
                                       finished=next_finished, lengths=next_lengths,
                                       accumulated_attention_probs=next_coverage))

    def finalize(self, outputs: BeamSearchDecoderOutput, final_state: BeamSearchDecoderState,
                 sequence_lengths: Any) -> Tuple[FinalBeamSearchDecoderOutput, Any]:
        """Traces the beams back through the (time-major) step outputs."""
        max_lens = A.cast(reduce_max(final_state.lengths, axis=1), _dtypes.int32)
        predicted = gather_tree(outputs.predicted_ids, outputs.parent_ids, max_lens,
                                self._end_token)
        if self._reorder_tensor_arrays:
            final_state = final_state._replace(cell_state=map_structure(
                lambda t: self._sort_array_beams(t, outputs.parent_ids, final_state.lengths),
                final_state.cell_state))
        return (FinalBeamSearchDecoderOutput(predicted_ids=predicted,
                                             beam_search_decoder_output=outputs),
                final_state)

    def _sort_array_beams(self, t: Any, parent_ids: Tensor, lengths: Tensor) -> Any:
        if not isinstance(t, TensorArray):
            return t
        shape = t.element_shape
        if shape.ndims is None or shape.ndims < 1:
            logger.warning("The TensorArray %s in the cell state cannot be reordered along "
                           "the beams: its elements need a known shape of rank >= 1, got %s",
                           t.handle.name, shape)
            return t
        rows = shape[0]
        if rows is not None and self._static_batch is not None \
                and rows != self._static_batch * self._beam_width:
            logger.warning("The TensorArray %s in the cell state is not reordered along the "
                           "beams: its elements have %d rows, not batch_size * beam_width",
                           t.handle.name, rows)
            return t
        return gather_tree_from_array(t.stack(), parent_ids, lengths)


def gather_tree_from_array(t: Any, parent_ids: Any, sequence_length: Any) -> Tensor:
    """``t`` [max_time, batch * beam_width, ...], written step by step in beam order,
    reordered so that each step's rows follow the beams traced back by ``gather_tree``;
    steps past a beam's ``sequence_length`` [batch, beam_width] keep their row."""
    t = convert_to_tensor(t)
    parent_ids = convert_to_tensor(parent_ids)
    with name_scope("gather_tree_from_array"):
        dims = A.shape(parent_ids)
        max_time, batch, beam = dims[0], dims[1], dims[2]
        beam_ids = A.tile(A.reshape(A.range(beam), [1, 1, -1]), A.stack([max_time, batch, 1]))
        max_lens = A.cast(reduce_max(sequence_length, axis=1), _dtypes.int32)
        # An end token no beam index can equal: gather_tree then never pads.
        sorted_ids = gather_tree(beam_ids, parent_ids, max_lens, M.add(beam, 1))
        in_bounds = A.transpose(sequence_mask(sequence_length, maxlen=max_time), [2, 0, 1])
        sorted_ids = A.where(in_bounds, sorted_ids, beam_ids)
        grid = A.stack([max_time, batch, beam])
        time_ind = A.tile(A.reshape(A.range(max_time), [-1, 1, 1]),
                          A.stack([1, batch, beam]))
        batch_ind = A.tile(A.reshape(A.range(batch), [1, -1, 1]),
                           A.stack([max_time, 1, beam]))
        indices = A.stack([time_ind, batch_ind, sorted_ids], -1)
        source = A.reshape(t, A.concat([grid, [-1]], 0))
        ordered = A.reshape(gather_nd(source, indices), A.shape(t))
        ordered.set_shape(t.shape)
        return ordered


__all__ = ["BeamSearchDecoder", "BeamSearchDecoderState", "BeamSearchDecoderOutput",
           "FinalBeamSearchDecoderOutput", "FinalBeamDecoderOutput", "gather_tree",
           "gather_tree_from_array"]
