"""The attention decoders and model of ``tf.contrib.legacy_seq2seq``.

``attention_decoder`` reads, at every step, ``num_heads`` weighted sums of
the encoder's outputs (Bahdanau-style additive attention): for head ``a``,
``score[b, t] = sum(AttnV_a * tanh(states[b, t] @ AttnW_a + query @ W_q))``,
the weights are ``softmax(score)`` over ``t`` and the read is
``sum_t weight[b, t] * states[b, t]``. ``AttnW_a`` keeps TensorFlow's
``[1, 1, attn_size, attn_size]`` (1x1 convolution) shape; it is applied here
as the equivalent matrix product.
"""

from __future__ import annotations

import logging
from typing import Any, List, Optional, Tuple

from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops.legacy_seq2seq_ops import (
    LoopFn, _check_feed_previous, _check_projection, _EmbeddingWrapper,
    _as_columns, _extract_argmax_and_embed, _fresh_copy, _linear, _OutputProjectionWrapper)
from tensorfleet.ops.rnn import static_rnn
from tensorfleet.ops.rnn_cell_impl import RNNCell, flatten, is_sequence
from tensorfleet.ops.variable_scope import get_variable, get_variable_scope, variable_scope

logger = logging.getLogger(__name__)


def attention_decoder(decoder_inputs: List[Any], initial_state: Any, attention_states: Any,
                      cell: RNNCell, output_size: Optional[int] = None, num_heads: int = 1,
                      loop_function: LoopFn = None, dtype: Any = None, scope: Any = None,
                      initial_state_attention: bool = False) -> Tuple[List[Tensor], Any]:
    """An RNN decoder that attends over ``attention_states`` ([batch, length, size]).

    Each step feeds the cell ``linear([input] + reads)`` (the previous step's
    attention reads, zeros at the first step unless ``initial_state_attention``
    computes them from ``initial_state``), then reads again with the new state
    as query; the step's output is ``linear([cell_output] + reads,
    output_size)`` (``AttnOutputProjection``). ``loop_function`` works as in
    ``rnn_decoder``. Returns ``(outputs, state)``; scope default
    ``"attention_decoder"``.

    Raises:
      ValueError: no decoder inputs, ``num_heads < 1``, the depth of
        ``attention_states`` or of an input unknown at graph-build time.
    """
    if not decoder_inputs:
        raise ValueError("Must provide at least 1 input to attention decoder.")
    if num_heads < 1:
        raise ValueError("With less than 1 heads, use a non-attention decoder.")
    attention_states = convert_to_tensor(attention_states)
    if attention_states.shape.ndims != 3 or attention_states.shape[2] is None:
        raise ValueError(f"Shape[2] of attention_states must be known: "
                         f"{attention_states.shape}")
    if output_size is None:
        output_size = cell.output_size
    with variable_scope(scope or "attention_decoder", dtype=dtype) as vs:
        dtype = vs.dtype
        attn_size = int(attention_states.shape[2])
        attn_length = attention_states.shape[1]
        states_shape = A.shape(attention_states)
        flat_states = A.reshape(attention_states, [-1, attn_size])
        features, vs_a = [], []
        for a in range(num_heads):
            k = get_variable(f"AttnW_{a}", [1, 1, attn_size, attn_size], dtype=dtype)
            feat = M.matmul(flat_states, A.reshape(k, [attn_size, attn_size]))
            features.append(A.reshape(feat, states_shape) if attn_length is None
                            else A.reshape(feat, [-1, int(attn_length), attn_size]))
            vs_a.append(get_variable(f"AttnV_{a}", [attn_size], dtype=dtype))

        def attention(query: Any) -> List[Tensor]:
            if is_sequence(query):
                parts = flatten(query)
                for q in parts:
                    if q.shape.ndims not in (None, 2):
                        raise ValueError(f"attention query parts must be rank 2, got {q.shape}")
                query = A.concat(parts, 1)
            reads = []
            for a in range(num_heads):
                with variable_scope(f"Attention_{a}"):
                    y = A.expand_dims(_linear([query], attn_size, dtype), 1)
                    score = M.reduce_sum(M.multiply(vs_a[a], M.tanh(M.add(features[a], y))), 2)
                    weight = A.expand_dims(N.softmax(score), 2)
                    read = M.reduce_sum(M.multiply(weight, attention_states), 1)
                    reads.append(A.reshape(read, [-1, attn_size]))
            return reads

        batch = A.shape(decoder_inputs[0])[0]
        attns = [A.zeros(A.stack([batch, attn_size]), dtype=dtype) for _ in range(num_heads)]
        for z in attns:
            z.set_shape([None, attn_size])
        if initial_state_attention:
            attns = attention(initial_state)
        outputs: List[Tensor] = []
        state = initial_state
        prev = None
        for i, inp in enumerate(decoder_inputs):
            if i > 0:
                get_variable_scope().reuse_variables()
            if loop_function is not None and prev is not None:
                with variable_scope("loop_function", reuse=True):
                    inp = loop_function(prev, i)
            inp = convert_to_tensor(inp)
            if inp.shape.ndims != 2 or inp.shape[1] is None:
                raise ValueError(f"Could not infer input size from input: {inp.name} "
                                 f"(shape {inp.shape})")
            x = _linear([inp] + attns, int(inp.shape[1]), dtype)
            cell_output, state = cell(x, state)
            if i == 0 and initial_state_attention:
                with variable_scope(get_variable_scope(), reuse=True):
                    attns = attention(state)
            else:
                attns = attention(state)
            with variable_scope("AttnOutputProjection"):
                output = _linear([cell_output] + attns, int(output_size), dtype)
            if loop_function is not None:
                prev = output
            outputs.append(output)
    return outputs, state


def embedding_attention_decoder(decoder_inputs: List[Any], initial_state: Any,
                                attention_states: Any, cell: RNNCell, num_symbols: int,
                                embedding_size: int, num_heads: int = 1,
                                output_size: Optional[int] = None,
                                output_projection: Any = None, feed_previous: bool = False,
                                update_embedding_for_previous: bool = True, dtype: Any = None,
                                scope: Any = None,
                                initial_state_attention: bool = False
                                ) -> Tuple[List[Tensor], Any]:
    """An ``attention_decoder`` over embedded symbol ids ([batch] ints per step).

    The ``embedding`` variable lives under ``scope`` (default
    ``"embedding_attention_decoder"``); ``feed_previous`` and
    ``output_projection`` work as in ``embedding_rnn_decoder``.
    """
    feed_previous = _check_feed_previous(feed_previous)
    if output_size is None:
        output_size = cell.output_size
    with variable_scope(scope or "embedding_attention_decoder", dtype=dtype) as vs:
        proj = _check_projection(output_projection, num_symbols, vs.dtype)
        embedding = get_variable("embedding", [num_symbols, embedding_size])
        loop = _extract_argmax_and_embed(embedding, proj, update_embedding_for_previous) \
            if feed_previous else None
        emb_inp = [N.embedding_lookup(embedding, i) for i in decoder_inputs]
        return attention_decoder(emb_inp, initial_state, attention_states, cell,
                                 output_size=output_size, num_heads=num_heads,
                                 loop_function=loop,
                                 initial_state_attention=initial_state_attention)


def embedding_attention_seq2seq(encoder_inputs: List[Any], decoder_inputs: List[Any],
                                cell: RNNCell, num_encoder_symbols: int,
                                num_decoder_symbols: int, embedding_size: int,
                                num_heads: int = 1, output_projection: Any = None,
                                feed_previous: bool = False, dtype: Any = None,
                                scope: Any = None, initial_state_attention: bool = False
                                ) -> Tuple[List[Tensor], Any]:
    """Embeds and encodes symbol ids, then decodes attending over the encoder outputs.

    Without ``output_projection`` the outputs are ``num_decoder_symbols``
    logits; with it they keep the cell's output size (project them with
    ``(W, B)`` yourself, e.g. inside a sampled softmax loss). Scope default:
    ``"embedding_attention_seq2seq"``.
    """
    feed_previous = _check_feed_previous(feed_previous)
    with variable_scope(scope or "embedding_attention_seq2seq", dtype=dtype) as vs:
        dtype = vs.dtype
        enc_cell = _EmbeddingWrapper(_fresh_copy(cell), num_encoder_symbols, embedding_size)
        enc_outputs, enc_state = static_rnn(enc_cell, _as_columns(encoder_inputs), dtype=dtype)
        depth = int(cell.output_size)
        attention_states = A.concat([A.reshape(e, [-1, 1, depth]) for e in enc_outputs], 1)
        output_size = None
        if output_projection is None:
            cell = _OutputProjectionWrapper(cell, num_decoder_symbols)
            output_size = num_decoder_symbols
        return embedding_attention_decoder(
            decoder_inputs, enc_state, attention_states, cell, num_decoder_symbols,
            embedding_size, num_heads=num_heads, output_size=output_size,
            output_projection=output_projection, feed_previous=feed_previous,
            initial_state_attention=initial_state_attention)
