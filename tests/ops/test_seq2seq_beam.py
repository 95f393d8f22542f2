"""tf.contrib.seq2seq beam search, gather_tree and SampleEmbeddingHelper against numpy."""

import numpy as np
import pytest

import tensorfleet as tf

s2s = tf.contrib.seq2seq
rc = tf.nn.rnn_cell
F32_MIN = np.finfo(np.float32).min
F64_MIN = np.finfo(np.float64).min


def sig(z):
    return 1.0 / (1.0 + np.exp(-z))


def softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def log_softmax(z):
    z = z - z.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


def const_getter(weights):
    def getter(inner, name, *args, **kwargs):
        for suffix, value in weights.items():
            if name.endswith(suffix):
                return tf.constant(value)
        raise AssertionError(f"unexpected variable {name}")
    return getter


def lstm(x, c, h, w, b):
    i, j, f, o = np.split(np.concatenate([x, h], 1) @ w + b, 4, axis=1)
    c = sig(f + 1.0) * c + sig(i) * np.tanh(j)
    return c, sig(o) * np.tanh(c)


# -- numpy references ------------------------------------------------------------------------

def np_gather_tree(ids, parents, max_lens, end):
    n_time, batch, beam = ids.shape
    out = np.full(ids.shape, end, np.int32)
    for b in range(batch):
        n = min(n_time, max_lens[b])
        for k in range(beam):
            if n <= 0:
                continue
            out[n - 1, b, k] = ids[n - 1, b, k]
            p = parents[n - 1, b, k]
            for t in range(n - 2, -1, -1):
                if p < 0 or p >= beam:
                    out[t, b, k] = -1
                    break
                out[t, b, k] = ids[t, b, p]
                p = parents[t, b, p]
            done = False
            for t in range(n):
                if done:
                    out[t, b, k] = end
                elif out[t, b, k] == end:
                    done = True
    return out


def np_beam_search(step, state, start, end, beam, vocab, max_steps, lp_weight=0.0,
                   coverage_weight=0.0, min_value=F64_MIN):
    """TF1 beam search by hand. ``step(ids [batch*beam], state) -> (logits, state)``,
    ``state`` a list of [batch*beam, ...] arrays, the alignments last when there is
    attention."""
    batch = len(start)
    log_probs = np.full((batch, beam), -np.inf)
    log_probs[:, 0] = 0.0
    finished = np.ones((batch, beam), bool)
    finished[:, 0] = False
    lengths = np.zeros((batch, beam), np.int64)
    tokens = np.repeat(np.asarray(start)[:, None], beam, 1)
    loop_finished, loop_lengths = finished.copy(), np.zeros((batch, beam), np.int32)
    rows = np.arange(batch)[:, None]
    scores_t, ids_t, parents_t, history = [], [], [], []
    coverage = np.zeros((batch, beam, state[-1].shape[-1])) if coverage_weight else None
    for t in range(max_steps):
        logits, state = step(tokens.reshape(-1), state)
        history.append(state[-1])
        lp = log_softmax(logits).reshape(batch, beam, vocab)
        eos_row = np.where(np.arange(vocab) == end, 0.0, min_value)
        lp = np.where(finished[:, :, None], eos_row, lp)
        total = log_probs[:, :, None] + lp
        new_len = lengths[:, :, None] + ((np.arange(vocab) != end) & ~finished[:, :, None])
        if lp_weight:
            pen = ((5.0 + new_len.astype(np.float32)) ** np.float32(lp_weight)
                   / np.float32(6.0) ** np.float32(lp_weight))
            scores = total / pen.astype(total.dtype)
        else:
            scores = total
        if coverage_weight:
            coverage = coverage + state[-1].reshape(batch, beam, -1) * ~finished[:, :, None]
            acc = np.where(coverage == 0.0, 1.0, coverage)
            penalty = np.log(np.minimum(acc, 1.0)).sum(2) * finished
            scores = scores + coverage_weight * penalty[:, :, None]
        flat = scores.reshape(batch, -1)
        # top_k: descending, equal scores keep ascending index order
        idx = np.argsort(-flat, axis=1, kind="stable")[:, :beam]
        parent, word = idx // vocab, idx % vocab
        prev_fin = finished[rows, parent]
        finished = prev_fin | (word == end)
        lengths = lengths[rows, parent] + ~prev_fin
        log_probs = total.reshape(batch, -1)[rows, idx]
        if coverage_weight:
            coverage = coverage[rows, parent]
        gather = (rows * beam + parent).reshape(-1)
        state = [s[gather] for s in state]
        tokens = word
        scores_t.append(flat[rows, idx])
        ids_t.append(word)
        parents_t.append(parent)
        loop_lengths = np.where(~loop_finished, t + 1, loop_lengths)
        loop_finished = finished
        if finished.all():
            break
    ids_t, parents_t = np.stack(ids_t), np.stack(parents_t)
    predicted = np_gather_tree(ids_t, parents_t, lengths.max(1), end)
    return dict(predicted=predicted.transpose(1, 0, 2), scores=np.stack(scores_t, 1),
                ids=ids_t.transpose(1, 0, 2), parents=parents_t.transpose(1, 0, 2),
                lengths=lengths, finished=finished, log_probs=log_probs,
                loop_lengths=loop_lengths, state=state, history=history, coverage=coverage)


# -- gather_tree -----------------------------------------------------------------------------

def test_gather_tree_follows_parents_and_pads_with_end_token():
    ids = np.array([[[1, 2, 3]], [[4, 5, 6]], [[7, 8, 9]], [[10, 11, 12]]], np.int32)
    parents = np.array([[[0, 0, 0]], [[0, 1, 1]], [[2, 1, 2]], [[2, 1, 0]]], np.int32)
    with tf.Session() as sess:
        full = sess.run(s2s.gather_tree(ids, parents, [4], 99))
        short = sess.run(s2s.gather_tree(ids, parents, [2], 99))
        ended = sess.run(s2s.gather_tree(ids, parents, [4], 5))
    np.testing.assert_array_equal(full[:, 0], [[2, 2, 2], [6, 5, 6], [9, 8, 7], [10, 11, 12]])
    np.testing.assert_array_equal(short[:, 0], [[1, 2, 2], [4, 5, 6], [99, 99, 99],
                                               [99, 99, 99]])
    # beam 1 passes through 5 (the end token) at step 1: all later steps become 5
    np.testing.assert_array_equal(ended[:, 0, 1], [2, 5, 5, 5])
    np.testing.assert_array_equal(ended, np_gather_tree(ids, parents, [4], 5))


def test_gather_tree_matches_reference_on_random_trees():
    rng = np.random.RandomState(3)
    ids = rng.randint(0, 6, (7, 5, 4)).astype(np.int32)
    parents = rng.randint(0, 4, (7, 5, 4)).astype(np.int32)
    parents[4, 2, 1] = 4  # out of range: the path through it is broken
    parents[1, 3, 0] = -1
    lens = np.array([7, 3, 9, 0, 6], np.int32)
    with tf.Session() as sess:
        got = sess.run(s2s.gather_tree(ids, parents, lens, 2))
    np.testing.assert_array_equal(got, np_gather_tree(ids, parents, lens, 2))


def test_gather_tree_errors():
    with pytest.raises(TypeError, match="int32"):
        s2s.gather_tree(tf.zeros([2, 1, 2], tf.int64), tf.zeros([2, 1, 2], tf.int32), [2], 1)
    with pytest.raises(ValueError):
        s2s.gather_tree(tf.zeros([2, 1, 2], tf.int32), tf.zeros([2, 1, 3], tf.int32), [2], 1)
    ids = tf.placeholder(tf.int32, [None, None, None])
    out = s2s.gather_tree(ids, ids, tf.placeholder(tf.int32, [None]), 1)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="batch"):
        sess.run(out, {ids: np.zeros((2, 3, 2), np.int32), out.op.inputs[2]: [1, 2]})


# -- BeamSearchDecoder on a fixed LSTM -------------------------------------------------------

VOCAB, EMB, UNITS, END = 6, 3, 5, 2


def lstm_weights(seed, end_bias=1.0):
    rng = np.random.RandomState(seed)
    out_bias = rng.uniform(-0.5, 0.5, VOCAB)
    out_bias[END] += end_bias  # so that beams end at different steps
    return {"emb": rng.uniform(-1, 1, (VOCAB, EMB)),
            "basic_lstm_cell/kernel": rng.uniform(-1.5, 1.5, (EMB + UNITS, 4 * UNITS)),
            "basic_lstm_cell/bias": rng.uniform(-0.5, 0.5, 4 * UNITS),
            "out/kernel": rng.uniform(-2.5, 2.5, (UNITS, VOCAB)), "out/bias": out_bias}


def np_lstm_step(ws):
    def step(ids, state):
        c, h = lstm(ws["emb"][ids], state[0], state[1], ws["basic_lstm_cell/kernel"],
                    ws["basic_lstm_cell/bias"])
        return h @ ws["out/kernel"] + ws["out/bias"], [c, h]
    return step


def build_lstm_beam(ws, start, beam, init_c, init_h, **kw):
    with tf.variable_scope("m", custom_getter=const_getter(ws)):
        cell = rc.BasicLSTMCell(UNITS)
        state = rc.LSTMStateTuple(tf.constant(init_c), tf.constant(init_h))
        dec = s2s.BeamSearchDecoder(cell, tf.constant(ws["emb"]), tf.constant(start), END,
                                    s2s.tile_batch(state, beam), beam,
                                    output_layer=tf.layers.Dense(VOCAB, name="out"), **kw)
        return s2s.dynamic_decode(dec, maximum_iterations=8)


# seed 4: every beam ends before maximum_iterations (after 6 steps, 7 with the length
# penalty); seed 1: some beams are still running after the 8 steps allowed.
@pytest.mark.parametrize("lp_weight,seed", [(0.0, 4), (0.8, 4), (0.8, 1)])
def test_beam_search_matches_numpy_reference(lp_weight, seed):
    ws = lstm_weights(seed)
    batch, beam = 3, 3
    rng = np.random.RandomState(1)
    c0, h0 = rng.uniform(-1, 1, (2, batch, UNITS))
    start = np.array([0, 3, 5], np.int32)
    out, state, lens = build_lstm_beam(ws, start, beam, c0, h0, length_penalty_weight=lp_weight)
    assert isinstance(out, s2s.FinalBeamSearchDecoderOutput)
    assert out.predicted_ids.dtype == tf.int32 and out.predicted_ids.shape.as_list() == [
        batch, None, beam]
    with tf.Session() as sess:
        got, st, ln = sess.run([out, state, lens])
    want = np_beam_search(np_lstm_step(ws), [np.repeat(c0, beam, 0), np.repeat(h0, beam, 0)],
                          start, END, beam, VOCAB, 8, lp_weight)
    bso = got.beam_search_decoder_output
    np.testing.assert_array_equal(bso.predicted_ids, want["ids"])
    np.testing.assert_array_equal(bso.parent_ids, want["parents"])
    np.testing.assert_allclose(bso.scores, want["scores"], rtol=1e-6)
    np.testing.assert_array_equal(got.predicted_ids, want["predicted"])
    np.testing.assert_array_equal(st.lengths, want["lengths"])
    np.testing.assert_allclose(st.log_probs, want["log_probs"], rtol=1e-10)
    np.testing.assert_array_equal(st.finished, want["finished"])
    np.testing.assert_array_equal(ln, want["loop_lengths"])
    np.testing.assert_allclose(st.cell_state.h.reshape(batch * beam, -1), want["state"][1],
                               rtol=1e-10)
    assert st.lengths.dtype == np.int64
    # beams of different lengths, some padded with END by gather_tree
    assert len(np.unique(want["lengths"])) > 2 and (want["predicted"][:, -1] == END).any()


def test_unknown_batch_time_major_and_fed_length_penalty():
    ws = lstm_weights(4)
    batch, beam = 3, 3
    rng = np.random.RandomState(1)
    c0, h0 = rng.uniform(-1, 1, (2, batch, UNITS))
    start = np.array([0, 3, 5], np.int32)
    tokens = tf.placeholder(tf.int32, [None])
    c_in, h_in = (tf.placeholder(tf.float64, [None, UNITS]) for _ in range(2))
    weight = tf.placeholder(tf.float32, [])
    with tf.variable_scope("m", custom_getter=const_getter(ws)):
        cell = rc.BasicLSTMCell(UNITS)
        state = s2s.tile_batch(rc.LSTMStateTuple(c_in, h_in), beam)
        dec = s2s.BeamSearchDecoder(cell, tf.constant(ws["emb"]), tokens, END, state, beam,
                                    output_layer=tf.layers.Dense(VOCAB, name="out"),
                                    length_penalty_weight=weight)
        out, _, _ = s2s.dynamic_decode(dec, output_time_major=True, maximum_iterations=8)
    assert out.predicted_ids.shape.as_list() == [None, None, beam]
    with tf.Session() as sess:
        got = sess.run(out, {tokens: start, c_in: c0, h_in: h0, weight: 0.8})
    want = np_beam_search(np_lstm_step(ws), [np.repeat(c0, beam, 0), np.repeat(h0, beam, 0)],
                          start, END, beam, VOCAB, 8, 0.8)
    np.testing.assert_array_equal(got.predicted_ids, want["predicted"].transpose(1, 0, 2))
    np.testing.assert_allclose(got.beam_search_decoder_output.scores,
                               want["scores"].transpose(1, 0, 2), rtol=1e-6)


def test_attention_state_clone_checks_shapes():
    mech = s2s.LuongAttention(4, tf.zeros([6, 3, 4]))
    cell = s2s.AttentionWrapper(rc.GRUCell(4), mech)
    zero = cell.zero_state(6, tf.float32)
    new = tf.placeholder(tf.float32, [None, 4])
    cloned = zero.clone(cell_state=new)
    assert cloned.cell_state is new and new.shape.as_list() == [6, 4]
    assert cloned.attention is zero.attention
    with pytest.raises(ValueError):
        zero.clone(cell_state=tf.zeros([2, 4]))


def test_beam_width_one_equals_greedy():
    ws = lstm_weights(4)
    start = np.array([1, 4], np.int32)
    rng = np.random.RandomState(2)
    c0, h0 = rng.uniform(-1, 1, (2, 2, UNITS))
    out, _, _ = build_lstm_beam(ws, start, 1, c0, h0)
    with tf.variable_scope("g", custom_getter=const_getter(ws)):
        cell = rc.BasicLSTMCell(UNITS)
        helper = s2s.GreedyEmbeddingHelper(tf.constant(ws["emb"]), tf.constant(start), END)
        dec = s2s.BasicDecoder(cell, helper, rc.LSTMStateTuple(tf.constant(c0),
                                                               tf.constant(h0)),
                               output_layer=tf.layers.Dense(VOCAB, name="out"))
        (logits, greedy_ids), _, greedy_lens = s2s.dynamic_decode(dec, maximum_iterations=8)
    with tf.Session() as sess:
        beam_ids, scores, g_ids, g_logits, g_lens = sess.run(
            [out.predicted_ids, out.beam_search_decoder_output.scores, greedy_ids, logits,
             greedy_lens])
    n = g_ids.shape[1]
    assert beam_ids.shape[1] == n
    for b in range(2):
        L = g_lens[b]
        np.testing.assert_array_equal(beam_ids[b, :L, 0], g_ids[b, :L])
        assert (beam_ids[b, L:, 0] == END).all()
        want = np.cumsum(log_softmax(g_logits[b, :L])[np.arange(L), g_ids[b, :L]])
        np.testing.assert_allclose(scores[b, :L, 0], want, rtol=1e-10)


# -- with an AttentionWrapper, the TF1 NMT inference pattern ---------------------------------

def np_attention_step(ws, memory, mlen):
    keys = memory @ ws["memory_layer/kernel"]
    mask = np.arange(memory.shape[1])[None] < mlen[:, None]

    def step(ids, state):
        c, h, att = state[:3]
        c, h = lstm(np.concatenate([ws["emb"][ids], att], 1), c, h,
                    ws["basic_lstm_cell/kernel"], ws["basic_lstm_cell/bias"])
        score = (ws["attention_v"] * np.tanh(keys + (h @ ws["query_layer/kernel"])[:, None]))
        align = softmax(np.where(mask, score.sum(2), -np.inf))
        context = (align[:, :, None] * memory).sum(1)
        att = np.concatenate([h, context], 1) @ ws["attention_layer/kernel"]
        return att @ ws["out/kernel"] + ws["out/bias"], [c, h, att, align]
    return step


def attention_weights(mem_depth, att_size, end_bias=0.0):
    rng = np.random.RandomState(7)
    u = rng.uniform
    out_bias = u(-0.5, 0.5, VOCAB)
    out_bias[END] += end_bias
    return {"emb": u(-1, 1, (VOCAB, EMB)), "memory_layer/kernel": u(-1, 1, (mem_depth, UNITS)),
            "basic_lstm_cell/kernel": u(-1.5, 1.5, (EMB + att_size + UNITS, 4 * UNITS)),
            "basic_lstm_cell/bias": u(-0.5, 0.5, 4 * UNITS),
            "query_layer/kernel": u(-1, 1, (UNITS, UNITS)), "attention_v": u(-1, 1, UNITS),
            "attention_layer/kernel": u(-1, 1, (UNITS + mem_depth, att_size)),
            "out/kernel": u(-2.5, 2.5, (att_size, VOCAB)), "out/bias": out_bias}


def test_beam_search_with_tiled_attention_matches_numpy():
    batch, beam, depth, att_size = 2, 4, 3, 4
    ws = attention_weights(depth, att_size)
    rng = np.random.RandomState(9)
    memory, mlen = rng.uniform(-1, 1, (batch, 5, depth)), np.array([5, 3])
    c0, h0 = rng.uniform(-1, 1, (2, batch, UNITS))
    start = np.array([1, 0], np.int32)
    with tf.variable_scope("m", custom_getter=const_getter(ws)):
        enc_state = rc.LSTMStateTuple(tf.constant(c0), tf.constant(h0))
        mech = s2s.BahdanauAttention(UNITS, s2s.tile_batch(tf.constant(memory), beam),
                                     memory_sequence_length=s2s.tile_batch(mlen, beam))
        cell = s2s.AttentionWrapper(rc.BasicLSTMCell(UNITS), mech,
                                    attention_layer_size=att_size, alignment_history=True)
        init = cell.zero_state(batch * beam, tf.float64).clone(
            cell_state=s2s.tile_batch(enc_state, beam))
        dec = s2s.BeamSearchDecoder(cell, tf.constant(ws["emb"]), tf.constant(start), END,
                                    init, beam, output_layer=tf.layers.Dense(VOCAB, name="out"),
                                    length_penalty_weight=1.0)
        out, state, _ = s2s.dynamic_decode(dec, maximum_iterations=7)
    hist = state.cell_state.alignment_history
    assert isinstance(hist, tf.Tensor)  # reordered along the beams and stacked
    with tf.Session() as sess:
        got, hv, al = sess.run([out, hist, state.cell_state.alignments])
    tiled = np.repeat(memory, beam, 0)
    init_state = [np.repeat(c0, beam, 0), np.repeat(h0, beam, 0),
                  np.zeros((batch * beam, att_size)), np.zeros((batch * beam, 5))]
    want = np_beam_search(np_attention_step(ws, tiled, np.repeat(mlen, beam)), init_state,
                          start, END, beam, VOCAB, 7, 1.0)
    bso = got.beam_search_decoder_output
    np.testing.assert_array_equal(bso.predicted_ids, want["ids"])
    np.testing.assert_array_equal(bso.parent_ids, want["parents"])
    np.testing.assert_allclose(bso.scores, want["scores"], rtol=1e-6)
    np.testing.assert_array_equal(got.predicted_ids, want["predicted"])
    np.testing.assert_allclose(al.reshape(batch * beam, -1), want["state"][3], rtol=1e-10)
    # the history is reordered along the beams traced back from the last step
    steps = np.stack(want["history"])  # [time, batch * beam, memory], as written
    n = steps.shape[0]
    tiled_ids = np.broadcast_to(np.arange(beam), (n, batch, beam)).astype(np.int32)
    order = np_gather_tree(tiled_ids, want["parents"].transpose(1, 0, 2),
                           want["lengths"].max(1), beam + 1)
    order = np.where(np.arange(n)[:, None, None] < want["lengths"][None], order, tiled_ids)
    rows = np.arange(batch)[None, :, None] * beam + order
    np.testing.assert_allclose(hv, steps[np.arange(n)[:, None, None], rows].reshape(
        n, batch * beam, -1), rtol=1e-10)
    assert not np.allclose(hv, steps)


@pytest.mark.parametrize("weight", [0.0, 0.7])
def test_coverage_penalty_matches_numpy(weight):
    batch, beam, depth, att_size = 2, 3, 3, 4
    ws = attention_weights(depth, att_size, end_bias=2.0)  # some beams end early
    memory = np.random.RandomState(4).uniform(-1, 1, (batch, 4, depth))
    mlen = np.array([4, 2])
    with tf.variable_scope("m", custom_getter=const_getter(ws)):
        mech = s2s.BahdanauAttention(UNITS, s2s.tile_batch(tf.constant(memory), beam),
                                     memory_sequence_length=s2s.tile_batch(mlen, beam))
        cell = s2s.AttentionWrapper(rc.BasicLSTMCell(UNITS), mech, attention_layer_size=att_size)
        dec = s2s.BeamSearchDecoder(cell, tf.constant(ws["emb"]), tf.constant([1, 3]), END,
                                    cell.zero_state(batch * beam, tf.float64), beam,
                                    output_layer=tf.layers.Dense(VOCAB, name="out"),
                                    coverage_penalty_weight=weight)
        out, state, _ = s2s.dynamic_decode(dec, maximum_iterations=6)
    with tf.Session() as sess:
        got, st = sess.run([out, state])
    init_state = [np.zeros((batch * beam, UNITS)), np.zeros((batch * beam, UNITS)),
                  np.zeros((batch * beam, att_size)), np.zeros((batch * beam, 4))]
    want = np_beam_search(np_attention_step(ws, np.repeat(memory, beam, 0),
                                            np.repeat(mlen, beam)),
                          init_state, np.array([1, 3]), END, beam, VOCAB, 6,
                          coverage_weight=weight)
    bso = got.beam_search_decoder_output
    np.testing.assert_array_equal(bso.predicted_ids, want["ids"])
    np.testing.assert_array_equal(bso.parent_ids, want["parents"])
    # the weight is a float32 scalar, as in TensorFlow
    np.testing.assert_allclose(bso.scores, want["scores"], rtol=1e-7)
    np.testing.assert_array_equal(got.predicted_ids, want["predicted"])
    if weight:
        np.testing.assert_allclose(st.accumulated_attention_probs, want["coverage"],
                                   rtol=1e-10)
        # live steps add whole alignments: each hypothesis's total is its length
        np.testing.assert_allclose(st.accumulated_attention_probs.sum(-1), st.lengths,
                                   rtol=1e-10)
        # the penalty changed some scores of this search
        plain = np_beam_search(np_attention_step(ws, np.repeat(memory, beam, 0),
                                                 np.repeat(mlen, beam)),
                               init_state, np.array([1, 3]), END, beam, VOCAB, 6)
        assert plain["scores"].shape != want["scores"].shape or not np.allclose(
            plain["scores"], want["scores"])
    else:
        assert st.accumulated_attention_probs == ()


def test_beam_search_errors():
    cell = rc.BasicLSTMCell(4)
    emb = tf.zeros([5, 3])
    with pytest.raises(ValueError, match="beam_width"):
        s2s.BeamSearchDecoder(cell, emb, [1], 2, cell.zero_state(1, tf.float32), 0)
    with pytest.raises(ValueError, match="tile_batch"):
        s2s.BeamSearchDecoder(cell, emb, [1, 1], 2, cell.zero_state(2, tf.float32), 3)
    with pytest.raises(ValueError, match="start_tokens"):
        s2s.BeamSearchDecoder(cell, emb, [[1]], 2, cell.zero_state(3, tf.float32), 3)
    with pytest.raises(ValueError, match="attentional"):
        s2s.BeamSearchDecoder(cell, emb, [1], 2, cell.zero_state(3, tf.float32), 3,
                              coverage_penalty_weight=0.5).initialize()
    with pytest.raises(ValueError, match="scalar"):
        s2s.BeamSearchDecoder(cell, emb, [1], 2, cell.zero_state(3, tf.float32), 3,
                              length_penalty_weight=[1.0, 2.0])


# -- SampleEmbeddingHelper -------------------------------------------------------------------

def test_sample_embedding_helper_draws_from_softmax():
    logits = np.log(np.array([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25]]))
    n = 4000
    helper = s2s.SampleEmbeddingHelper(tf.eye(3), [0, 0], 2, seed=3)
    ids = helper.sample(0, tf.constant(np.tile(logits, (n, 1))), None)
    cold = s2s.SampleEmbeddingHelper(tf.eye(3), [0, 0], 2, softmax_temperature=0.01)
    cold_ids = cold.sample(0, tf.constant(np.tile(logits, (50, 1))), None)
    hot = s2s.SampleEmbeddingHelper(tf.eye(3), [0, 0], 2, softmax_temperature=1e6, seed=1)
    hot_ids = hot.sample(0, tf.constant(np.tile(logits, (n, 1))), None)
    assert ids.dtype == tf.int32 and ids.shape.as_list() == [2 * n]
    with tf.Session() as sess:
        got, c, h = sess.run([ids, cold_ids, hot_ids])
    freq = np.stack([np.bincount(got[r::2], minlength=3) / n for r in range(2)])
    np.testing.assert_allclose(freq, np.exp(logits), atol=0.035)
    np.testing.assert_array_equal(c, np.tile([1, 0], 50))
    np.testing.assert_allclose(np.bincount(h, minlength=3) / (2 * n), [1 / 3] * 3, atol=0.03)


def test_sample_embedding_helper_decodes_and_is_seeded():
    ws = lstm_weights(5)

    def run():
        g = tf.Graph()
        with g.as_default(), tf.variable_scope("m", custom_getter=const_getter(ws)):
            tf.set_random_seed(42)
            cell = rc.BasicLSTMCell(UNITS)
            helper = s2s.SampleEmbeddingHelper(tf.constant(ws["emb"]), tf.constant([1] * 64),
                                               END, seed=7)
            dec = s2s.BasicDecoder(cell, helper, cell.zero_state(64, tf.float64),
                                   output_layer=tf.layers.Dense(VOCAB, name="out"))
            (logits, ids), _, lens = s2s.dynamic_decode(dec, maximum_iterations=5)
            with tf.Session(graph=g) as sess:
                return sess.run([logits, ids, lens])

    lg, ids, lens = run()
    lg2, ids2, _ = run()
    np.testing.assert_array_equal(ids, ids2)
    # each next input is the embedding of the drawn id: replay the logits in numpy
    step = np_lstm_step(ws)
    state = [np.zeros((64, UNITS)), np.zeros((64, UNITS))]
    tokens = np.ones(64, int)
    for t in range(ids.shape[1]):
        want, state = step(tokens, state)
        live = lens > t
        np.testing.assert_allclose(lg[live, t], want[live], rtol=1e-10)
        tokens = ids[:, t]
    assert len(set(map(tuple, ids))) > 1  # sampling, not argmax
    ended = (ids == END).any(1)
    np.testing.assert_array_equal(lens[ended], np.argmax(ids == END, 1)[ended] + 1)
    with pytest.raises(ValueError, match="softmax_temperature"):
        s2s.SampleEmbeddingHelper(tf.eye(3), [0], 2, softmax_temperature=0.0)
