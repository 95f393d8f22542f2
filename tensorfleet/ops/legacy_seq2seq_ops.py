"""The graph-building sequence-to-sequence models of ``tf.contrib.legacy_seq2seq``.

Every model takes Python lists with one ``[batch, ...]`` tensor per time step
and unrolls its encoder and decoder statically. Variable scopes and names are
TensorFlow 1.x's, so checkpoints of the classic translate models line up:
``embedding_attention_seq2seq/rnn/embedding_wrapper/embedding``,
``embedding_attention_seq2seq/embedding_attention_decoder/attention_decoder/AttnW_0``...

A cell owns its variables (see ``rnn_cell_impl``): calling one cell object
again, as ``model_with_buckets`` does for each bucket, uses the same weights.
The encoder of a ``*_seq2seq`` model runs on an unbuilt copy of the cell,
so encoder and decoder weights are distinct, as in TensorFlow.
"""

from __future__ import annotations

import copy
import logging
import math
from typing import Any, Callable, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import init_ops
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops.rnn import static_rnn
from tensorfleet.ops.rnn_cell_impl import RNNCell, flatten
from tensorfleet.ops.seq2seq_loss import legacy_sequence_loss, sequence_loss_by_example
from tensorfleet.ops.variable_scope import get_variable, get_variable_scope, variable_scope

logger = logging.getLogger(__name__)

LoopFn = Optional[Callable[[Tensor, int], Tensor]]


# -- helpers ------------------------------------------------------------------------------

def _linear(args: Sequence[Tensor], output_size: int, dtype: Any) -> Tensor:
    """``concat(args, 1) @ kernel + bias`` with ``kernel``/``bias`` in the current scope."""
    depths = []
    for a in args:
        d = a.shape[1] if a.shape.ndims == 2 else None
        if d is None:
            raise ValueError(f"linear needs inputs of rank 2 with a known depth, got shape "
                             f"{a.shape} ({a.name})")
        depths.append(int(d))
    kernel = get_variable("kernel", [sum(depths), int(output_size)], dtype=dtype)
    bias = get_variable("bias", [int(output_size)], dtype=dtype,
                        initializer=init_ops.zeros_initializer())
    x = args[0] if len(args) == 1 else A.concat(list(args), 1)
    return N.bias_add(M.matmul(x, kernel), bias)


def _as_columns(symbols: List[Any]) -> List[Tensor]:
    """[batch] symbol ids as [batch, 1], the rank ``static_rnn`` expects of a step."""
    return [A.reshape(convert_to_tensor(s), [-1, 1]) for s in symbols]


def _state_dtype(state: Any) -> Any:
    return flatten(state)[0].dtype


def _fresh_copy(cell: RNNCell) -> RNNCell:
    """A copy of ``cell`` (and of the cells inside it) that has made no variables yet.

    A cell's only state that changes once it runs is its scope, its variable
    list and ``built``; those are reset and the rest (its configuration) is
    shared. A deep copy would instead drag a built cell's scope and variables
    (and through them the graph) along, and share the weights the copy is
    meant to keep apart.
    """
    new = copy.copy(cell)
    new._scope = None
    new._variables = []
    new.built = False
    for key, value in list(vars(new).items()):
        if isinstance(value, RNNCell):
            setattr(new, key, _fresh_copy(value))
        elif isinstance(value, (list, tuple)) and value and \
                all(isinstance(c, RNNCell) for c in value):
            setattr(new, key, type(value)(_fresh_copy(c) for c in value))
    return new


class _EmbeddingWrapper(RNNCell):
    """Looks each step's symbol ids up in ``embedding`` before running the cell."""

    _default_name = "embedding_wrapper"

    def __init__(self, cell: RNNCell, embedding_classes: int, embedding_size: int,
                 initializer: Any = None):
        super().__init__()
        if embedding_classes <= 0 or embedding_size <= 0:
            raise ValueError(f"Both embedding_classes and embedding_size must be > 0: "
                             f"{embedding_classes}, {embedding_size}.")
        self._cell = cell
        self._classes = int(embedding_classes)
        self._size = int(embedding_size)
        self._initializer = initializer

    @property
    def state_size(self) -> Any:
        return self._cell.state_size

    @property
    def output_size(self) -> Any:
        return self._cell.output_size

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        """The wrapped cell's zero state."""
        return self._cell.zero_state(batch_size, dtype)

    def call(self, inputs: Any, state: Any) -> Any:
        init = self._initializer or get_variable_scope().initializer or \
            init_ops.random_uniform_initializer(-math.sqrt(3), math.sqrt(3))
        embedding = get_variable("embedding", [self._classes, self._size],
                                 initializer=init, dtype=_state_dtype(state))
        embedded = N.embedding_lookup(embedding, A.reshape(inputs, [-1]))
        return self._cell(embedded, state)


class _OutputProjectionWrapper(RNNCell):
    """Runs the cell, then projects its output linearly to ``output_size``."""

    _default_name = "output_projection_wrapper"

    def __init__(self, cell: RNNCell, output_size: int):
        super().__init__()
        if output_size < 1:
            raise ValueError(f"Parameter output_size must be > 0: {output_size}.")
        self._cell = cell
        self._out = int(output_size)

    @property
    def state_size(self) -> Any:
        return self._cell.state_size

    @property
    def output_size(self) -> int:
        return self._out

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        """The wrapped cell's zero state."""
        return self._cell.zero_state(batch_size, dtype)

    def call(self, inputs: Any, state: Any) -> Any:
        output, new_state = self._cell(inputs, state)
        return _linear([output], self._out, output.dtype), new_state


def _check_feed_previous(feed_previous: Any) -> bool:
    if not isinstance(feed_previous, bool):
        raise ValueError(f"feed_previous must be a Python bool; a boolean tensor is not "
                         f"supported by tensorfleet's legacy_seq2seq, got {feed_previous!r}")
    return feed_previous


def _check_projection(output_projection: Any, num_symbols: int,
                      dtype: Any) -> Optional[Tuple[Tensor, Tensor]]:
    if output_projection is None:
        return None
    if not isinstance(output_projection, (tuple, list)) or len(output_projection) != 2:
        raise ValueError(f"output_projection must be a pair (W, B), got {output_projection!r}")
    w = convert_to_tensor(output_projection[0], dtype=dtype)
    b = convert_to_tensor(output_projection[1], dtype=dtype)
    if w.shape.ndims not in (None, 2) or (w.shape.ndims == 2 and w.shape[1] is not None
                                          and int(w.shape[1]) != num_symbols):
        raise ValueError(f"output_projection[0] must have shape [output_size, "
                         f"{num_symbols}], got {w.shape}")
    if b.shape.ndims not in (None, 1) or (b.shape.ndims == 1 and b.shape[0] is not None
                                          and int(b.shape[0]) != num_symbols):
        raise ValueError(f"output_projection[1] must have shape [{num_symbols}], got {b.shape}")
    return w, b


def _extract_argmax_and_embed(embedding: Any, output_projection: Any = None,
                              update_embedding: bool = True) -> Callable[[Tensor, int], Tensor]:
    """A loop function that feeds back the embedding of the previous argmax symbol."""

    def loop_function(prev: Tensor, _: int) -> Tensor:
        if output_projection is not None:
            prev = N.xw_plus_b(prev, output_projection[0], output_projection[1])
        emb = N.embedding_lookup(embedding, M.argmax(prev, 1))
        # Without update_embedding no gradient reaches the embedding through the
        # fed-back symbols, only through the given decoder inputs.
        return emb if update_embedding else A.stop_gradient(emb)

    return loop_function


# -- plain RNN decoders and models --------------------------------------------------------

def rnn_decoder(decoder_inputs: List[Any], initial_state: Any, cell: RNNCell,
                loop_function: LoopFn = None, scope: Any = None) -> Tuple[List[Tensor], Any]:
    """Runs ``cell`` over ``decoder_inputs`` from ``initial_state``.

    With ``loop_function(prev_output, i)`` every step after the first takes
    its input from the previous output instead of ``decoder_inputs[i]``.
    Returns ``(outputs, state)``: one ``[batch, cell.output_size]`` output per
    step and the final state. Variables live under ``scope``
    (default ``"rnn_decoder"``).
    """
    with variable_scope(scope or "rnn_decoder"):
        state = initial_state
        outputs: List[Tensor] = []
        prev = None
        for i, inp in enumerate(decoder_inputs):
            if loop_function is not None and prev is not None:
                with variable_scope("loop_function", reuse=True):
                    inp = loop_function(prev, i)
            if i > 0:
                get_variable_scope().reuse_variables()
            output, state = cell(inp, state)
            outputs.append(output)
            if loop_function is not None:
                prev = output
    return outputs, state


def basic_rnn_seq2seq(encoder_inputs: List[Any], decoder_inputs: List[Any], cell: RNNCell,
                      dtype: Any = _dtypes.float32, scope: Any = None) -> Tuple[List[Tensor], Any]:
    """Encodes ``encoder_inputs`` with a copy of ``cell``, decodes with ``cell``.

    The decoder starts from the encoder's final state. Returns
    ``(outputs, state)`` of the decoder. Scope default: ``"basic_rnn_seq2seq"``.
    """
    with variable_scope(scope or "basic_rnn_seq2seq"):
        _, enc_state = static_rnn(_fresh_copy(cell), encoder_inputs, dtype=dtype)
        return rnn_decoder(decoder_inputs, enc_state, cell)


def tied_rnn_seq2seq(encoder_inputs: List[Any], decoder_inputs: List[Any], cell: RNNCell,
                     loop_function: LoopFn = None, dtype: Any = _dtypes.float32,
                     scope: Any = None) -> Tuple[List[Tensor], Any]:
    """``basic_rnn_seq2seq`` with one set of weights for encoder and decoder.

    Both run under ``combined_tied_rnn_seq2seq/<scope or "tied_rnn_seq2seq">``.
    """
    with variable_scope("combined_tied_rnn_seq2seq"):
        scope = scope or "tied_rnn_seq2seq"
        _, enc_state = static_rnn(cell, encoder_inputs, dtype=dtype, scope=scope)
        get_variable_scope().reuse_variables()
        return rnn_decoder(decoder_inputs, enc_state, cell, loop_function=loop_function,
                           scope=scope)


def embedding_rnn_decoder(decoder_inputs: List[Any], initial_state: Any, cell: RNNCell,
                          num_symbols: int, embedding_size: int,
                          output_projection: Any = None, feed_previous: bool = False,
                          update_embedding_for_previous: bool = True,
                          scope: Any = None) -> Tuple[List[Tensor], Any]:
    """An ``rnn_decoder`` over embedded symbol ids (``decoder_inputs``: [batch] ints).

    The ``embedding`` variable ([num_symbols, embedding_size]) lives under
    ``scope`` (default ``"embedding_rnn_decoder"``). With ``feed_previous``
    each step after the first embeds the argmax of the previous output
    (projected by ``output_projection = (W, B)`` when given).
    """
    feed_previous = _check_feed_previous(feed_previous)
    with variable_scope(scope or "embedding_rnn_decoder") as vs:
        proj = _check_projection(output_projection, num_symbols, vs.dtype)
        embedding = get_variable("embedding", [num_symbols, embedding_size])
        loop = _extract_argmax_and_embed(embedding, proj, update_embedding_for_previous) \
            if feed_previous else None
        emb_inp = [N.embedding_lookup(embedding, i) for i in decoder_inputs]
        return rnn_decoder(emb_inp, initial_state, cell, loop_function=loop)


def embedding_rnn_seq2seq(encoder_inputs: List[Any], decoder_inputs: List[Any], cell: RNNCell,
                          num_encoder_symbols: int, num_decoder_symbols: int,
                          embedding_size: int, output_projection: Any = None,
                          feed_previous: bool = False, dtype: Any = None,
                          scope: Any = None) -> Tuple[List[Tensor], Any]:
    """Embeds and encodes symbol ids, then decodes with ``embedding_rnn_decoder``.

    Without ``output_projection`` the decoder cell's output is projected to
    ``num_decoder_symbols`` logits (``output_projection_wrapper``); with it
    the outputs keep the cell's size. Scope default: ``"embedding_rnn_seq2seq"``.
    """
    feed_previous = _check_feed_previous(feed_previous)
    with variable_scope(scope or "embedding_rnn_seq2seq") as vs:
        if dtype is not None:
            vs.set_dtype(dtype)
        dtype = vs.dtype
        enc_cell = _EmbeddingWrapper(_fresh_copy(cell), num_encoder_symbols, embedding_size)
        _, enc_state = static_rnn(enc_cell, _as_columns(encoder_inputs), dtype=dtype)
        if output_projection is None:
            cell = _OutputProjectionWrapper(cell, num_decoder_symbols)
        return embedding_rnn_decoder(decoder_inputs, enc_state, cell, num_decoder_symbols,
                                     embedding_size, output_projection=output_projection,
                                     feed_previous=feed_previous)


# -- buckets ------------------------------------------------------------------------------

def model_with_buckets(encoder_inputs: List[Any], decoder_inputs: List[Any],
                       targets: List[Any], weights: List[Any],
                       buckets: Sequence[Tuple[int, int]],
                       seq2seq: Callable[[List[Any], List[Any]], Tuple[List[Tensor], Any]],
                       softmax_loss_function: Any = None, per_example_loss: bool = False,
                       name: Optional[str] = None) -> Tuple[List[List[Tensor]], List[Tensor]]:
    """Builds ``seq2seq`` once per bucket on the leading steps of the inputs.

    Bucket ``(enc_len, dec_len)`` sees ``encoder_inputs[:enc_len]`` and
    ``decoder_inputs[:dec_len]``; every bucket after the first reuses the
    first one's variables. Returns ``(outputs, losses)``: per bucket the list
    of decoder outputs and its loss, ``sequence_loss`` over the bucket's
    targets and weights (a scalar), or ``sequence_loss_by_example`` ([batch])
    with ``per_example_loss``.

    Raises:
      ValueError: ``buckets`` is empty, or the encoder inputs, targets or
        weights are shorter than the last bucket.
    """
    if not buckets:
        raise ValueError("model_with_buckets: buckets must not be empty")
    if len(encoder_inputs) < buckets[-1][0]:
        raise ValueError(f"Length of encoder_inputs ({len(encoder_inputs)}) must be at least "
                         f"that of last bucket ({buckets[-1][0]}).")
    if len(targets) < buckets[-1][1]:
        raise ValueError(f"Length of targets ({len(targets)}) must be at least that of last "
                         f"bucket ({buckets[-1][1]}).")
    if len(weights) < buckets[-1][1]:
        raise ValueError(f"Length of weights ({len(weights)}) must be at least that of last "
                         f"bucket ({buckets[-1][1]}).")
    losses: List[Tensor] = []
    outputs: List[List[Tensor]] = []
    with name_scope(name or "model_with_buckets"):
        for j, (enc_len, dec_len) in enumerate(buckets):
            with variable_scope(get_variable_scope(), reuse=True if j > 0 else None):
                bucket_outputs, _ = seq2seq(encoder_inputs[:enc_len], decoder_inputs[:dec_len])
                outputs.append(bucket_outputs)
                loss_fn = sequence_loss_by_example if per_example_loss else legacy_sequence_loss
                losses.append(loss_fn(bucket_outputs, targets[:dec_len], weights[:dec_len],
                                      softmax_loss_function=softmax_loss_function))
    return outputs, losses
