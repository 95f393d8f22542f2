"""``tf.contrib.crf``: a linear-chain conditional random field over tag sequences.

``inputs`` (unary potentials) are ``[batch, max_seq_len, num_tags]``, tags
``[batch, max_seq_len]`` int32, transitions ``[num_tags, num_tags]`` with
``transition_params[i, j]`` the score of tag ``j`` following tag ``i``. Everything
is built from existing ops (gathers, ``reduce_logsumexp``, ``dynamic_rnn`` over the
cells below), so the log-likelihood is differentiable with respect to the inputs
and the transitions. Positions at or past a sequence's length do not count; a
sequence of length 0 scores 0.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.ops import array_ops, math_ops, rnn_ops, scatter_ops
from tensorfleet.ops.rnn import dynamic_rnn
from tensorfleet.ops.rnn_cell_impl import RNNCell
from tensorfleet.ops.variable_scope import get_variable


def _static_len(inputs: Tensor) -> Optional[int]:
    return inputs.shape.as_list()[1] if inputs.shape.ndims == 3 else None


def _check_inputs(inputs: Any, fname: str) -> Tensor:
    x = convert_to_tensor(inputs, name="inputs")
    if x.shape.ndims is not None and x.shape.ndims != 3:
        raise ValueError(f"{fname}: inputs must be [batch, max_seq_len, num_tags], got "
                         f"{x.shape}")
    return x


def _zero_if_empty(values: Tensor, lengths: Tensor) -> Tensor:
    empty = math_ops.less_equal(lengths, 0)
    return array_ops.where(empty, array_ops.zeros_like(values), values)


def _mask(lengths: Tensor, tags: Tensor, dtype: _dtypes.DType) -> Tensor:
    return rnn_ops.sequence_mask(lengths, maxlen=array_ops.shape(tags)[1], dtype=dtype)


def crf_unary_score(tag_indices: Any, sequence_lengths: Any, inputs: Any) -> Tensor:
    """``[batch]``: the sum over valid positions of the unary score of each tag."""
    x = _check_inputs(inputs, "crf_unary_score")
    tags = convert_to_tensor(tag_indices, name="tag_indices")
    lengths = convert_to_tensor(sequence_lengths, name="sequence_lengths")
    dims = array_ops.shape(x)
    idx = array_ops.cast(tags, _dtypes.int32)
    # Position (b, t) of the flattened inputs starts at (b * max_len + t) * num_tags.
    starts = (array_ops.expand_dims(array_ops.range(dims[0]) * dims[1], 1) +
              array_ops.expand_dims(array_ops.range(dims[1]), 0)) * dims[2]
    picked = array_ops.gather(array_ops.reshape(x, [-1]), starts + idx)
    return math_ops.reduce_sum(picked * _mask(lengths, tags, x.dtype), axis=1)


def crf_binary_score(tag_indices: Any, sequence_lengths: Any,
                     transition_params: Any) -> Tensor:
    """``[batch]``: the sum of the transition scores between consecutive valid tags."""
    tags = convert_to_tensor(tag_indices, name="tag_indices")
    trans = convert_to_tensor(transition_params, name="transition_params")
    lengths = convert_to_tensor(sequence_lengths, name="sequence_lengths")
    num_tags = array_ops.shape(trans)[0]
    start, end = tags[:, :-1], tags[:, 1:]
    flat_index = start * array_ops.cast(num_tags, tags.dtype) + end
    scores = array_ops.gather(array_ops.reshape(trans, [-1]), flat_index)
    return math_ops.reduce_sum(scores * _mask(lengths, tags, trans.dtype)[:, 1:], axis=1)


def crf_sequence_score(inputs: Any, tag_indices: Any, sequence_lengths: Any,
                       transition_params: Any) -> Tensor:
    """``[batch]``: unary plus binary score of the given tag sequences."""
    x = _check_inputs(inputs, "crf_sequence_score")
    lengths = convert_to_tensor(sequence_lengths, name="sequence_lengths")
    unary = crf_unary_score(tag_indices, lengths, x)
    if _static_len(x) == 1:
        return _zero_if_empty(unary, lengths)
    return _zero_if_empty(unary + crf_binary_score(tag_indices, lengths, transition_params),
                          lengths)


def crf_multitag_sequence_score(inputs: Any, tag_bitmap: Any, sequence_lengths: Any,
                                transition_params: Any) -> Tensor:
    """``[batch]``: the log of the summed exp-scores of every tag sequence allowed by the
    boolean ``tag_bitmap`` ``[batch, max_seq_len, num_tags]`` (several tags may be
    allowed at a position)."""
    x = _check_inputs(inputs, "crf_multitag_sequence_score")
    allowed = convert_to_tensor(tag_bitmap, dtype=_dtypes.bool, name="tag_bitmap")
    blocked = array_ops.fill(array_ops.shape(x), np.array(-np.inf, dtype=x.dtype.np))
    filtered = array_ops.where(allowed, x, blocked)
    if _static_len(x) == 1:
        return math_ops.reduce_logsumexp(filtered, axis=[1, 2])
    return crf_log_norm(filtered, sequence_lengths, transition_params)


class _TransitionCell(RNNCell):
    """A cell over ``[batch, num_tags]`` scores with a fixed ``[num_tags, num_tags]``
    transition matrix; no variables of its own, so no variable scope."""

    def __init__(self, transition_params: Any):
        super().__init__()
        self._transition_params = array_ops.expand_dims(
            convert_to_tensor(transition_params), 0)
        self._num_tags = self._transition_params.shape.as_list()[1]

    @property
    def state_size(self) -> Any:
        """``num_tags``."""
        return self._num_tags

    @property
    def output_size(self) -> Any:
        """``num_tags``."""
        return self._num_tags

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> Tuple[Tensor, Tensor]:
        return self.call(inputs, state)


class CrfForwardRnnCell(_TransitionCell):
    """One step of the forward algorithm: ``alpha_t = inputs_t + logsumexp_i(alpha_{t-1}[i]
    + transition[i, :])``; output and new state are both ``alpha_t``."""


    def call(self, inputs: Any, state: Any) -> Tuple[Tensor, Tensor]:
        """One forward step over ``[batch, num_tags]`` inputs and alphas."""
        scores = array_ops.expand_dims(state, 2) + self._transition_params
        alphas = inputs + math_ops.reduce_logsumexp(scores, [1])
        return alphas, alphas


def crf_log_norm(inputs: Any, sequence_lengths: Any, transition_params: Any) -> Tensor:
    """``[batch]``: the log partition function, ``log sum_tags exp(score(tags))`` over
    every tag sequence of each entry's length (the forward algorithm)."""
    x = _check_inputs(inputs, "crf_log_norm")
    lengths = convert_to_tensor(sequence_lengths, name="sequence_lengths")
    first = x[:, 0, :]
    if _static_len(x) == 1:
        return _zero_if_empty(math_ops.reduce_logsumexp(first, [1]), lengths)
    steps = math_ops.maximum(lengths - 1, array_ops.zeros_like(lengths))
    _, alphas = dynamic_rnn(CrfForwardRnnCell(transition_params), x[:, 1:, :],
                            sequence_length=steps, initial_state=first, dtype=x.dtype)
    return _zero_if_empty(math_ops.reduce_logsumexp(alphas, [1]), lengths)


def crf_log_likelihood(inputs: Any, tag_indices: Any, sequence_lengths: Any,
                       transition_params: Any = None) -> Tuple[Tensor, Any]:
    """``(log_likelihood [batch], transition_params)``: the log probability of the tag
    sequences under the CRF. Without ``transition_params`` a ``[num_tags, num_tags]``
    variable named ``transitions`` is made in the current variable scope.

    Raises:
      ValueError: no ``transition_params`` and ``num_tags`` unknown at build time.
    """
    x = _check_inputs(inputs, "crf_log_likelihood")
    if transition_params is None:
        num_tags = x.shape.as_list()[2] if x.shape.ndims == 3 else None
        if num_tags is None:
            raise ValueError("crf_log_likelihood: num_tags (inputs.shape[2]) must be known "
                             "to create the transitions variable")
        transition_params = get_variable("transitions", [num_tags, num_tags], dtype=x.dtype)
    score = crf_sequence_score(x, tag_indices, sequence_lengths, transition_params)
    return score - crf_log_norm(x, sequence_lengths, transition_params), transition_params


def viterbi_decode(score: Any, transition_params: Any) -> Tuple[List[int], Any]:
    """The best tag sequence of one ``[seq_len, num_tags]`` score matrix, in numpy (outside
    the graph): ``(tags as a list of ints, its score)``."""
    s = np.asarray(score)
    trans = np.asarray(transition_params)
    if s.ndim != 2 or trans.shape != (s.shape[1], s.shape[1]):
        raise ValueError(f"viterbi_decode: score must be [seq_len, num_tags] and "
                         f"transition_params [num_tags, num_tags], got {s.shape} and "
                         f"{trans.shape}")
    best = s[0].copy()
    back = np.zeros(s.shape, dtype=np.int32)
    for t in range(1, s.shape[0]):
        cand = best[:, None] + trans  # cand[i, j]: tag i at t - 1, then tag j
        back[t] = cand.argmax(axis=0)
        best = s[t] + cand.max(axis=0)
    tags = [int(best.argmax())]
    for t in range(s.shape[0] - 1, 0, -1):
        tags.append(int(back[t, tags[-1]]))
    return tags[::-1], best.max()


class CrfDecodeForwardRnnCell(_TransitionCell):
    """One Viterbi step: the best score of each tag so far (state) and, as output, the
    int32 best previous tag of each tag (the backpointers)."""


    def call(self, inputs: Any, state: Any) -> Tuple[Tensor, Tensor]:
        """One Viterbi step: ``(backpointers, new best scores)``."""
        scores = array_ops.expand_dims(state, 2) + self._transition_params
        back = array_ops.cast(math_ops.argmax(scores, 1), _dtypes.int32)
        return back, inputs + math_ops.reduce_max(scores, [1])


class CrfDecodeBackwardRnnCell(RNNCell):
    """Follows the backpointers: state and output are the ``[batch, 1]`` int32 tag of the
    previous position."""

    def __init__(self, num_tags: int):
        super().__init__()
        self._num_tags = num_tags

    @property
    def state_size(self) -> Any:
        """1: the current tag."""
        return 1

    @property
    def output_size(self) -> Any:
        """1: the previous tag."""
        return 1

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> Tuple[Tensor, Tensor]:
        return self.call(inputs, state)

    def call(self, inputs: Any, state: Any) -> Tuple[Tensor, Tensor]:
        """The tag before ``state`` according to the backpointers ``inputs``."""
        tag = array_ops.squeeze(state, [1])
        rows = array_ops.range(array_ops.shape(inputs)[0])
        prev = scatter_ops.gather_nd(inputs, array_ops.stack([rows, tag], axis=1))
        prev = array_ops.expand_dims(prev, -1)
        return prev, prev


def crf_decode(potentials: Any, transition_params: Any, sequence_length: Any
               ) -> Tuple[Tensor, Tensor]:
    """Viterbi decoding in the graph: ``(decode_tags [batch, max_seq_len] int32,
    best_score [batch])``; tags past a sequence's length are 0."""
    x = _check_inputs(potentials, "crf_decode")
    lengths = convert_to_tensor(sequence_length, name="sequence_length")
    if _static_len(x) == 1:
        first = x[:, 0, :]
        tags = array_ops.expand_dims(array_ops.cast(math_ops.argmax(first, 1),
                                                    _dtypes.int32), 1)
        return tags, math_ops.reduce_max(first, 1)
    steps = math_ops.maximum(lengths - 1, array_ops.zeros_like(lengths))
    back, last = dynamic_rnn(CrfDecodeForwardRnnCell(transition_params), x[:, 1:, :],
                             sequence_length=steps, initial_state=x[:, 0, :], dtype=x.dtype)
    back = rnn_ops.reverse_sequence(back, steps, seq_axis=1, batch_axis=0)
    start = array_ops.expand_dims(array_ops.cast(math_ops.argmax(last, 1), _dtypes.int32), -1)
    tags, _ = dynamic_rnn(CrfDecodeBackwardRnnCell(x.shape.as_list()[2]), back,
                          sequence_length=steps, initial_state=start, dtype=_dtypes.int32)
    tags = array_ops.concat([start, array_ops.squeeze(tags, [2])], axis=1)
    tags = rnn_ops.reverse_sequence(tags, lengths, seq_axis=1, batch_axis=0)
    return tags, math_ops.reduce_max(last, 1)


__all__ = ["crf_sequence_score", "crf_log_norm", "crf_log_likelihood", "crf_unary_score",
           "crf_binary_score", "crf_multitag_sequence_score", "CrfForwardRnnCell",
           "viterbi_decode", "crf_decode", "CrfDecodeForwardRnnCell", "CrfDecodeBackwardRnnCell"]
