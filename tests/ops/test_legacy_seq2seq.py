"""tf.contrib.legacy_seq2seq models: shapes, variable names, numpy references, training."""

import numpy as np
import pytest

import tensorfleet as tf

S = tf.contrib.legacy_seq2seq
RNG = np.random.RandomState(3)


def names():
    return sorted(v.name for v in tf.global_variables())


def values(sess, prefix=""):
    vs = [v for v in tf.global_variables() if v.name.startswith(prefix)]
    return dict(zip([v.name for v in vs], sess.run(vs)))


def np_rnn_step(x, h, kernel, bias):
    return np.tanh(np.concatenate([x, h], 1) @ kernel + bias)


def np_xent(logits, targets):
    m = logits.max(-1, keepdims=True)
    lse = np.log(np.exp(logits - m).sum(-1)) + m[:, 0]
    return lse - logits[np.arange(len(targets)), targets]


def test_rnn_decoder_matches_numpy_loop():
    xs_np = [RNG.randn(2, 3).astype(np.float32) for _ in range(4)]
    h0_np = RNG.randn(2, 5).astype(np.float32)
    cell = tf.nn.rnn_cell.BasicRNNCell(5)
    outs, state = S.rnn_decoder([tf.constant(x) for x in xs_np], tf.constant(h0_np), cell)
    assert len(outs) == 4 and all(o.shape.as_list() == [2, 5] for o in outs)
    assert names() == ["rnn_decoder/basic_rnn_cell/bias:0", "rnn_decoder/basic_rnn_cell/kernel:0"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, got_state = sess.run([outs, state])
        v = values(sess)
    k, b = v["rnn_decoder/basic_rnn_cell/kernel:0"], v["rnn_decoder/basic_rnn_cell/bias:0"]
    h = h0_np
    for t, x in enumerate(xs_np):
        h = np_rnn_step(x, h, k, b)
        np.testing.assert_allclose(got[t], h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_state, h, rtol=1e-5, atol=1e-6)


def test_rnn_decoder_loop_function_replaces_later_inputs():
    xs_np = [RNG.randn(2, 4).astype(np.float32) for _ in range(3)]
    seen = []

    def loop(prev, i):
        seen.append(i)
        return prev * 2.0

    cell = tf.nn.rnn_cell.BasicRNNCell(4)
    outs, _ = S.rnn_decoder([tf.constant(x) for x in xs_np], tf.zeros([2, 4]), cell,
                            loop_function=loop, scope="dec")
    assert seen == [1, 2]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(outs)
        v = values(sess)
    k, b = v["dec/basic_rnn_cell/kernel:0"], v["dec/basic_rnn_cell/bias:0"]
    h = np_rnn_step(xs_np[0], np.zeros((2, 4), np.float32), k, b)
    for t in (1, 2):
        h = np_rnn_step(got[t - 1] * 2.0, h, k, b)
        np.testing.assert_allclose(got[t], h, rtol=1e-5, atol=1e-6)


def test_basic_and_tied_rnn_seq2seq_variables():
    enc = [tf.constant(RNG.randn(2, 3).astype(np.float32)) for _ in range(3)]
    dec = [tf.constant(RNG.randn(2, 3).astype(np.float32)) for _ in range(2)]
    outs, _ = S.basic_rnn_seq2seq(enc, dec, tf.nn.rnn_cell.BasicRNNCell(4))
    assert len(outs) == 2 and outs[0].shape.as_list() == [2, 4]
    assert names() == ["basic_rnn_seq2seq/rnn/basic_rnn_cell/bias:0",
                       "basic_rnn_seq2seq/rnn/basic_rnn_cell/kernel:0",
                       "basic_rnn_seq2seq/rnn_decoder/basic_rnn_cell/bias:0",
                       "basic_rnn_seq2seq/rnn_decoder/basic_rnn_cell/kernel:0"]
    tied, _ = S.tied_rnn_seq2seq(enc, dec, tf.nn.rnn_cell.BasicRNNCell(4))
    assert len(tied) == 2
    assert [n for n in names() if n.startswith("combined")] == [
        "combined_tied_rnn_seq2seq/tied_rnn_seq2seq/basic_rnn_cell/bias:0",
        "combined_tied_rnn_seq2seq/tied_rnn_seq2seq/basic_rnn_cell/kernel:0"]


def test_embedding_rnn_seq2seq_feed_previous_matches_numpy():
    enc_np = [np.array([1, 4]), np.array([2, 0]), np.array([3, 3])]
    dec_np = [np.array([0, 1]), np.array([5, 5]), np.array([2, 4])]
    enc = [tf.placeholder(tf.int32, [None]) for _ in enc_np]
    dec = [tf.placeholder(tf.int32, [None]) for _ in dec_np]
    outs, _ = S.embedding_rnn_seq2seq(enc, dec, tf.nn.rnn_cell.BasicRNNCell(4), 5, 6, 3,
                                      feed_previous=True)
    assert len(outs) == 3 and outs[0].shape.as_list() == [None, 6]
    p = "embedding_rnn_seq2seq/"
    assert names() == sorted(p + n for n in [
        "rnn/embedding_wrapper/embedding:0", "rnn/embedding_wrapper/basic_rnn_cell/kernel:0",
        "rnn/embedding_wrapper/basic_rnn_cell/bias:0", "embedding_rnn_decoder/embedding:0",
        "embedding_rnn_decoder/rnn_decoder/output_projection_wrapper/basic_rnn_cell/kernel:0",
        "embedding_rnn_decoder/rnn_decoder/output_projection_wrapper/basic_rnn_cell/bias:0",
        "embedding_rnn_decoder/rnn_decoder/output_projection_wrapper/kernel:0",
        "embedding_rnn_decoder/rnn_decoder/output_projection_wrapper/bias:0"])
    feed = dict(zip(enc + dec, enc_np + dec_np))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(outs, feed)
        # Later decoder inputs are ignored when the previous output is fed back.
        other = {**feed, dec[1]: np.array([0, 0]), dec[2]: np.array([1, 1])}
        got2 = sess.run(outs, other)
        v = {k[len(p):]: x for k, x in values(sess).items()}
    for a, b in zip(got, got2):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    ew = "rnn/embedding_wrapper/"
    dw = "embedding_rnn_decoder/rnn_decoder/output_projection_wrapper/"
    h = np.zeros((2, 4), np.float32)
    for x in enc_np:
        h = np_rnn_step(v[ew + "embedding:0"][x], h, v[ew + "basic_rnn_cell/kernel:0"],
                        v[ew + "basic_rnn_cell/bias:0"])
    emb = v["embedding_rnn_decoder/embedding:0"]
    inp = emb[dec_np[0]]
    for t in range(3):
        h = np_rnn_step(inp, h, v[dw + "basic_rnn_cell/kernel:0"], v[dw + "basic_rnn_cell/bias:0"])
        logits = h @ v[dw + "kernel:0"] + v[dw + "bias:0"]
        np.testing.assert_allclose(got[t], logits, rtol=1e-4, atol=1e-5)
        inp = emb[logits.argmax(1)]


def test_embedding_rnn_decoder_output_projection_feeds_projected_argmax():
    w = RNG.randn(4, 7).astype(np.float32)
    b = RNG.randn(7).astype(np.float32)
    dec = [tf.constant(np.array([1, 2])) for _ in range(3)]
    cell = tf.nn.rnn_cell.BasicRNNCell(4)
    outs, _ = S.embedding_rnn_decoder(dec, tf.zeros([2, 4]), cell, 7, 3,
                                      output_projection=(w, b), feed_previous=True)
    assert outs[0].shape.as_list() == [2, 4]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(outs)
        v = values(sess)
    pre = "embedding_rnn_decoder/rnn_decoder/basic_rnn_cell/"
    emb = v["embedding_rnn_decoder/embedding:0"]
    h = np.zeros((2, 4), np.float32)
    inp = emb[[1, 2]]
    for t in range(3):
        h = np_rnn_step(inp, h, v[pre + "kernel:0"], v[pre + "bias:0"])
        np.testing.assert_allclose(got[t], h, rtol=1e-4, atol=1e-5)
        inp = emb[(h @ w + b).argmax(1)]
    with pytest.raises(ValueError, match="output_projection"):
        S.embedding_rnn_decoder(dec, tf.zeros([2, 4]), cell, 7, 3,
                                output_projection=(w, b[:3]), scope="bad")


def np_attention(query, states, w_q, b_q, attn_w, attn_v):
    feats = states @ attn_w[0, 0]
    y = query @ w_q + b_q
    score = (attn_v * np.tanh(feats + y[:, None, :])).sum(2)
    e = np.exp(score - score.max(1, keepdims=True))
    a = e / e.sum(1, keepdims=True)
    return (a[:, :, None] * states).sum(1)


def test_attention_decoder_matches_numpy():
    states_np = RNG.randn(2, 3, 4).astype(np.float32)
    xs_np = [RNG.randn(2, 2).astype(np.float32) for _ in range(2)]
    h0 = RNG.randn(2, 5).astype(np.float32)
    cell = tf.nn.rnn_cell.BasicRNNCell(5)
    outs, state = S.attention_decoder([tf.constant(x) for x in xs_np], tf.constant(h0),
                                      tf.constant(states_np), cell, output_size=6)
    assert len(outs) == 2 and outs[0].shape.as_list() == [2, 6]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, got_state = sess.run([outs, state])
        v = {k[len("attention_decoder/"):]: x for k, x in values(sess).items()}
    attn = np.zeros((2, 4), np.float32)
    h = h0
    for t, x in enumerate(xs_np):
        cell_in = np.concatenate([x, attn], 1) @ v["kernel:0"] + v["bias:0"]
        h = np_rnn_step(cell_in, h, v["basic_rnn_cell/kernel:0"], v["basic_rnn_cell/bias:0"])
        attn = np_attention(h, states_np, v["Attention_0/kernel:0"], v["Attention_0/bias:0"],
                            v["AttnW_0:0"], v["AttnV_0:0"])
        out = np.concatenate([h, attn], 1) @ v["AttnOutputProjection/kernel:0"] + \
            v["AttnOutputProjection/bias:0"]
        np.testing.assert_allclose(got[t], out, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_state, h, rtol=1e-4, atol=1e-5)


def test_attention_decoder_errors():
    cell = tf.nn.rnn_cell.BasicRNNCell(3)
    states = tf.zeros([2, 4, 3])
    with pytest.raises(ValueError, match="at least 1 input"):
        S.attention_decoder([], tf.zeros([2, 3]), states, cell)
    with pytest.raises(ValueError, match="less than 1 heads"):
        S.attention_decoder([tf.zeros([2, 3])], tf.zeros([2, 3]), states, cell, num_heads=0)


def test_embedding_attention_seq2seq_names_shapes_and_options():
    enc = [tf.placeholder(tf.int32, [None]) for _ in range(3)]
    dec = [tf.placeholder(tf.int32, [None]) for _ in range(4)]
    cell = tf.nn.rnn_cell.GRUCell(5)
    outs, state = S.embedding_attention_seq2seq(enc, dec, cell, 7, 8, 4, num_heads=2,
                                                initial_state_attention=True)
    assert len(outs) == 4 and all(o.shape.as_list() == [None, 8] for o in outs)
    p = "embedding_attention_seq2seq/"
    d = p + "embedding_attention_decoder/attention_decoder/"
    got = set(names())
    for n in [p + "rnn/embedding_wrapper/embedding:0",
              p + "rnn/embedding_wrapper/gru_cell/gates/kernel:0",
              p + "embedding_attention_decoder/embedding:0",
              d + "AttnW_0:0", d + "AttnV_1:0", d + "kernel:0", d + "Attention_1/kernel:0",
              d + "AttnOutputProjection/kernel:0", d + "output_projection_wrapper/kernel:0",
              d + "output_projection_wrapper/gru_cell/candidate/kernel:0"]:
        assert n in got, n
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {ph: np.array([1, 2]) for ph in enc + dec}
        res = sess.run(outs + [state], feed)
    assert [r.shape for r in res] == [(2, 8)] * 4 + [(2, 5)]
    proj_outs, _ = S.embedding_attention_seq2seq(
        enc, dec, tf.nn.rnn_cell.GRUCell(5), 7, 8, 4, scope="proj",
        output_projection=(np.zeros((5, 8), np.float32), np.zeros(8, np.float32)),
        feed_previous=True)
    assert proj_outs[0].shape.as_list() == [None, 5]
    with pytest.raises(ValueError, match="feed_previous"):
        S.embedding_attention_seq2seq(enc, dec, tf.nn.rnn_cell.GRUCell(5), 7, 8, 4,
                                      feed_previous=tf.constant(True), scope="t")


def _bucket_model(n_enc=4, n_dec=4):
    enc = [tf.placeholder(tf.int32, [None], name=f"enc{i}") for i in range(n_enc)]
    dec = [tf.placeholder(tf.int32, [None], name=f"dec{i}") for i in range(n_dec)]
    tgt = [tf.placeholder(tf.int32, [None], name=f"tgt{i}") for i in range(n_dec)]
    wts = [tf.placeholder(tf.float32, [None], name=f"w{i}") for i in range(n_dec)]
    cell = tf.nn.rnn_cell.GRUCell(6)

    def seq2seq(e, d):
        return S.embedding_attention_seq2seq(e, d, cell, 5, 5, 4)

    return enc, dec, tgt, wts, seq2seq


def test_model_with_buckets_shares_variables_and_losses():
    enc, dec, tgt, wts, seq2seq = _bucket_model()
    outputs, losses = S.model_with_buckets(enc, dec, tgt, wts, [(2, 3), (4, 4)], seq2seq)
    n_vars = len(tf.global_variables())
    assert [len(o) for o in outputs] == [3, 4] and len(losses) == 2
    # One model's worth: 5 encoder, 1 embedding, 2 attention, 2 input linear, 4 + 2 cell
    # and projection, 2 query linear, 2 output projection.
    assert n_vars == 20
    assert all(name.startswith("embedding_attention_seq2seq/") for name in names())
    tf.get_variable_scope().reuse_variables()
    _, ex_losses = S.model_with_buckets(enc, dec, tgt, wts, [(2, 3), (4, 4)], seq2seq,
                                        per_example_loss=True, name="again")
    assert len(tf.global_variables()) == n_vars
    feed = {}
    for i in range(4):
        feed[enc[i]] = RNG.randint(0, 5, 3)
        feed[dec[i]] = RNG.randint(0, 5, 3)
        feed[tgt[i]] = RNG.randint(0, 5, 3)
        feed[wts[i]] = RNG.rand(3).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        outs, ls, ex = sess.run([outputs, losses, ex_losses], feed)
    for b, dec_len in enumerate([3, 4]):
        w = np.stack([feed[wts[t]] for t in range(dec_len)], 1)
        x = np.stack([np_xent(outs[b][t], feed[tgt[t]]) for t in range(dec_len)], 1)
        per = (x * w).sum(1) / (w.sum(1) + 1e-12)
        np.testing.assert_allclose(ex[b], per, rtol=1e-4)
        np.testing.assert_allclose(ls[b], per.sum() / 3, rtol=1e-4)


def test_model_with_buckets_wrapped_multi_cell_encoder_and_decoder_apart():
    enc = [tf.placeholder(tf.int32, [None]) for _ in range(3)]
    dec = [tf.placeholder(tf.int32, [None]) for _ in range(3)]
    tgt = [tf.placeholder(tf.int32, [None]) for _ in range(3)]
    wts = [tf.ones([2]) for _ in range(3)]
    cell = tf.nn.rnn_cell.MultiRNNCell(
        [tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.GRUCell(4)) for _ in range(2)])

    def seq2seq(e, d):
        return S.embedding_rnn_seq2seq(e, d, cell, 5, 6, 3)

    outputs, losses = S.model_with_buckets(enc, dec, tgt, wts, [(1, 2), (2, 2), (3, 3)],
                                           seq2seq)
    got = names()
    # encoder: embedding + 2 layers x 4; decoder: embedding + 2 x 4 + projection 2.
    assert len(got) == 20, got
    assert "embedding_rnn_seq2seq/rnn/embedding_wrapper/multi_rnn_cell/cell_1/gru_cell/" \
        "gates/kernel:0" in got
    assert "embedding_rnn_seq2seq/embedding_rnn_decoder/rnn_decoder/output_projection_wrapper/" \
        "multi_rnn_cell/cell_0/gru_cell/candidate/bias:0" in got
    assert [len(o) for o in outputs] == [2, 2, 3] and len(losses) == 3
    feed = {ph: np.array([1, 3]) for ph in enc + dec + tgt}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        ls = sess.run(losses, feed)
    assert all(np.isfinite(x) and x > 0 for x in ls)


def test_model_with_buckets_rejects_short_inputs():
    enc, dec, tgt, wts, seq2seq = _bucket_model(n_enc=3)
    with pytest.raises(ValueError, match="encoder_inputs"):
        S.model_with_buckets(enc, dec, tgt, wts, [(2, 2), (4, 4)], seq2seq)
    enc, dec, tgt, wts, seq2seq = _bucket_model()
    with pytest.raises(ValueError, match="targets"):
        S.model_with_buckets(enc, dec, tgt[:3], wts, [(2, 2), (4, 4)], seq2seq)
    with pytest.raises(ValueError, match="weights"):
        S.model_with_buckets(enc, dec, tgt, wts[:3], [(2, 2), (4, 4)], seq2seq)


def test_embedding_attention_seq2seq_learns_copy_task():
    tf.set_random_seed(1)
    n_sym, length, batch = 6, 3, 16
    data = np.random.RandomState(0).randint(1, n_sym, (batch, length))
    # Decoder inputs are GO (0) then the sequence; the targets are the sequence.
    dec_np = np.concatenate([np.zeros((batch, 1), np.int64), data[:, :-1]], 1)
    enc = [tf.constant(data[:, t]) for t in range(length)]
    dec = [tf.constant(dec_np[:, t]) for t in range(length)]
    tgt = [tf.constant(data[:, t]) for t in range(length)]
    outs, _ = S.embedding_attention_seq2seq(enc, dec, tf.nn.rnn_cell.GRUCell(16), n_sym,
                                            n_sym, 8)
    loss = S.sequence_loss(outs, tgt, [tf.ones([batch])] * length)
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss)
        for _ in range(60):
            sess.run(train)
        last = sess.run(loss)
    assert np.isfinite(last) and last < 0.5 * first, (first, last)


def test_feed_previous_gradient_mixes_int32_and_int64_lookups():
    # The fed-back argmax ids are int64 and the given ones int32: their sparse
    # gradients into the one embedding are summed together.
    dec = [tf.constant(np.array([1, 2], np.int32)) for _ in range(3)]
    outs, _ = S.embedding_rnn_decoder(dec, tf.zeros([2, 4]), tf.nn.rnn_cell.BasicRNNCell(4),
                                      5, 3, feed_previous=True)
    emb = [v for v in tf.global_variables() if v.name.endswith("/embedding:0")][0]
    grad = tf.gradients(tf.add_n([tf.reduce_sum(o) for o in outs]), [emb])[0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        g = sess.run(tf.convert_to_tensor(grad))
    assert g.shape == (5, 3) and np.isfinite(g).all() and np.abs(g).sum() > 0
