"""tf.contrib.seq2seq decoding and attention against numpy references."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

s2s = tf.contrib.seq2seq
rc = tf.nn.rnn_cell
RNG = np.random.RandomState(5)


def rand(*shape, scale=0.5):
    return RNG.uniform(-scale, scale, shape)


def sig(z):
    return 1.0 / (1.0 + np.exp(-z))


def softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def const_getter(weights):
    def getter(inner, name, *args, **kwargs):
        for suffix, value in weights.items():
            if name.endswith(suffix):
                return tf.constant(value)
        raise AssertionError(f"unexpected variable {name}")
    return getter


def test_training_helper_decode_equals_dynamic_rnn():
    x = tf.placeholder(tf.float64, [3, 5, 4])
    lens = tf.constant([5, 2, 3])
    cell = rc.GRUCell(6)
    dec = s2s.BasicDecoder(cell, s2s.TrainingHelper(x, lens), cell.zero_state(3, tf.float64))
    (out, ids), state, out_lens = s2s.dynamic_decode(dec, impute_finished=True)
    assert [v.op.name for v in tf.global_variables()] == [
        "decoder/gru_cell/gates/kernel", "decoder/gru_cell/gates/bias",
        "decoder/gru_cell/candidate/kernel", "decoder/gru_cell/candidate/bias"]
    with tf.variable_scope("decoder", reuse=True) as vs:
        ref_out, ref_state = tf.nn.dynamic_rnn(cell, x, sequence_length=lens, dtype=tf.float64,
                                               scope=vs)
    data = rand(3, 5, 4)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o, i, s, n, ro, rs = sess.run([out, ids, state, out_lens, ref_out, ref_state],
                                      {x: data})
    np.testing.assert_allclose(o, ro, rtol=1e-12)
    np.testing.assert_allclose(s, rs, rtol=1e-12)
    np.testing.assert_array_equal(n, [5, 2, 3])
    np.testing.assert_array_equal(i, np.where(np.abs(o).sum(-1) > 0, o.argmax(-1), 0))


def test_greedy_embedding_decode_matches_numpy_and_stops():
    vocab, units, batch, end = 6, 5, 2, 3
    emb, w, b = rand(vocab, 4), rand(9, 4 * units, scale=2.0), rand(4 * units)
    pw, pb = rand(units, vocab, scale=3.0), rand(vocab)
    getter = const_getter({"basic_lstm_cell/kernel": w, "basic_lstm_cell/bias": b,
                           "out/kernel": pw, "out/bias": pb})
    with tf.variable_scope("m", custom_getter=getter):
        cell = rc.BasicLSTMCell(units)
        helper = s2s.GreedyEmbeddingHelper(tf.constant(emb), tf.constant([1, 4]), end)
        dec = s2s.BasicDecoder(cell, helper, cell.zero_state(batch, tf.float64),
                               output_layer=tf.layers.Dense(vocab, name="out"))
        (logits, ids), _, lens = s2s.dynamic_decode(dec, maximum_iterations=7)
    with tf.Session() as sess:
        lv, iv, nv = sess.run([logits, ids, lens])
    # numpy greedy decoding, 7 steps at most, finished rows keep emitting
    c, h = np.zeros((batch, units)), np.zeros((batch, units))
    tok, done = np.array([1, 4]), np.zeros(batch, bool)
    want_ids, want_logits, want_len = [], [], np.zeros(batch, int)
    for t in range(7):
        z = np.concatenate([emb[tok], h], 1) @ w + b
        i, j, f, o = np.split(z, 4, axis=1)
        c = sig(f + 1.0) * c + sig(i) * np.tanh(j)
        h = sig(o) * np.tanh(c)
        lg = h @ pw + pb
        tok = lg.argmax(1)
        want_logits.append(lg)
        want_ids.append(tok)
        want_len[~done] = t + 1
        done = done | (tok == end)
        if done.all():
            break
    np.testing.assert_allclose(lv, np.stack(want_logits, 1), rtol=1e-10)
    np.testing.assert_array_equal(iv, np.stack(want_ids, 1))
    np.testing.assert_array_equal(nv, want_len)


def np_bahdanau_step(x, c, h, att, memory, mlen, ws, normalize):
    keys = memory @ ws["memory_layer/kernel"]
    z = np.concatenate([x, att, h], 1) @ ws["basic_lstm_cell/kernel"] + ws["basic_lstm_cell/bias"]
    i, j, f, o = np.split(z, 4, axis=1)
    c = sig(f + 1.0) * c + sig(i) * np.tanh(j)
    h = sig(o) * np.tanh(c)
    pq = (h @ ws["query_layer/kernel"])[:, None]
    v = ws["attention_v"]
    if normalize:
        v = ws["attention_g"] * v / np.sqrt((v ** 2).sum())
        score = (v * np.tanh(keys + pq + ws["attention_b"])).sum(2)
    else:
        score = (v * np.tanh(keys + pq)).sum(2)
    mask = np.arange(memory.shape[1])[None] < mlen[:, None]
    align = softmax(np.where(mask, score, -np.inf))
    context = (align[:, :, None] * memory).sum(1)
    attention = np.concatenate([h, context], 1) @ ws["attention_layer/kernel"]
    return attention, c, h, align


@pytest.mark.parametrize("normalize", [False, True])
def test_bahdanau_attention_wrapper_step_matches_numpy(normalize):
    memory, mlen = rand(2, 5, 3), np.array([5, 2])
    ws = {"memory_layer/kernel": rand(3, 4), "basic_lstm_cell/kernel": rand(4 + 6 + 4, 16),
          "basic_lstm_cell/bias": rand(16), "query_layer/kernel": rand(4, 4),
          "attention_v": rand(4), "attention_g": np.array(0.7), "attention_b": rand(4),
          "attention_layer/kernel": rand(7, 6)}
    x = rand(2, 4)
    with tf.variable_scope("m", custom_getter=const_getter(ws)):
        mech = s2s.BahdanauAttention(4, tf.constant(memory), memory_sequence_length=mlen,
                                     normalize=normalize)
        cell = s2s.AttentionWrapper(rc.BasicLSTMCell(4), mech, attention_layer_size=6)
        st0 = cell.zero_state(2, tf.float64)
        out1, st1 = cell(tf.constant(x), st0)
        out2, st2 = cell(tf.constant(x), st1)
    with tf.Session() as sess:
        o1, o2, a2, t2 = sess.run([out1, out2, st2.alignments, st2.time])
    att, c, h, _ = np_bahdanau_step(x, np.zeros((2, 4)), np.zeros((2, 4)), np.zeros((2, 6)),
                                    memory, mlen, ws, normalize)
    np.testing.assert_allclose(o1, att, rtol=1e-10)
    att2, _, _, al2 = np_bahdanau_step(x, c, h, att, memory, mlen, ws, normalize)
    np.testing.assert_allclose(o2, att2, rtol=1e-10)
    np.testing.assert_allclose(a2, al2, rtol=1e-10)
    assert t2 == 2 and not np.any(a2[1, 2:])


def test_luong_attention_scores_and_names():
    memory = rand(2, 3, 4)
    q = rand(2, 5)
    wm = rand(4, 5)
    with tf.variable_scope("m", custom_getter=const_getter({"memory_layer/kernel": wm,
                                                           "attention_g": np.array(2.0)})):
        mech = s2s.LuongAttention(5, tf.constant(memory), scale=True)
        align, _ = mech(tf.constant(q), None)
    with tf.Session() as sess:
        got = sess.run(align)
    np.testing.assert_allclose(got, softmax(2.0 * np.einsum("bd,btd->bt", q, memory @ wm)),
                               rtol=1e-10)
    with pytest.raises(ValueError, match="num_units"):
        s2s.LuongAttention(3, tf.constant(memory))(tf.constant(q), None)


def test_attention_decoder_variable_names_and_alignment_history():
    mem = tf.placeholder(tf.float32, [2, 6, 5])
    x = tf.placeholder(tf.float32, [2, 3, 4])
    mech = s2s.BahdanauAttention(8, mem, memory_sequence_length=[6, 3])
    cell = s2s.AttentionWrapper(rc.BasicLSTMCell(8), mech, attention_layer_size=7,
                                alignment_history=True)
    dec = s2s.BasicDecoder(cell, s2s.TrainingHelper(x, [3, 3]), cell.zero_state(2, tf.float32))
    (out, _), st, _ = s2s.dynamic_decode(dec)
    assert sorted(v.op.name for v in tf.global_variables()) == sorted([
        "memory_layer/kernel",
        "decoder/attention_wrapper/basic_lstm_cell/kernel",
        "decoder/attention_wrapper/basic_lstm_cell/bias",
        "decoder/attention_wrapper/bahdanau_attention/query_layer/kernel",
        "decoder/attention_wrapper/bahdanau_attention/attention_v",
        "decoder/attention_wrapper/attention_layer/kernel"])
    hist = st.alignment_history.stack()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o, hv = sess.run([out, hist], {mem: rand(2, 6, 5), x: rand(2, 3, 4)})
    assert o.shape == (2, 3, 7) and hv.shape == (3, 2, 6)
    np.testing.assert_allclose(hv.sum(-1), np.ones((3, 2)), rtol=1e-5)
    assert not np.any(hv[:, 1, 3:])


def test_decode_gradients_numerically():
    def build(x, w, b):
        with tf.variable_scope("g", custom_getter=lambda g, n, *a, **k:
                               w if n.endswith("kernel") else b):
            cell = rc.BasicRNNCell(3)
            dec = s2s.BasicDecoder(cell, s2s.TrainingHelper(x, [3, 2]),
                                   cell.zero_state(2, tf.float64))
            (out, _), state, _ = s2s.dynamic_decode(dec, impute_finished=True)
        return tf.concat([tf.reshape(out, [-1]), tf.reshape(state, [-1])], 0)
    check_gradients(build, [rand(2, 3, 2), rand(5, 3), rand(3)], delta=1e-6, rtol=1e-5,
                    atol=1e-7)


def test_tile_batch_and_errors():
    with tf.Session() as sess:
        got = sess.run(s2s.tile_batch((tf.constant([[1, 2], [3, 4]]), tf.constant([5, 6])), 2))
    np.testing.assert_array_equal(got[0], [[1, 2], [1, 2], [3, 4], [3, 4]])
    np.testing.assert_array_equal(got[1], [5, 5, 6, 6])
    with pytest.raises(ValueError, match="multiplier"):
        s2s.tile_batch(tf.constant([1]), 0)
    with pytest.raises(TypeError, match="Decoder"):
        s2s.dynamic_decode("not a decoder")
    with pytest.raises(ValueError, match="attention_layer_size"):
        mech = s2s.LuongAttention(2, tf.zeros([1, 2, 2]))
        s2s.AttentionWrapper(rc.GRUCell(2), [mech], attention_layer_size=[2, 3])
