"""static_rnn, dynamic_rnn and the bidirectional forms against numpy; training on a cluster."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.ops import rnn as rnn_mod
from tensorfleet.testing.cluster import local_cluster
from tensorfleet.testing.gradient_checker import check_gradients
from tensorfleet.training.device_setter import replica_device_setter

rc = tf.nn.rnn_cell
RNG = np.random.RandomState(3)


def sig(z):
    return 1.0 / (1.0 + np.exp(-z))


def rand(*shape, scale=0.5):
    return RNG.uniform(-scale, scale, shape)


def const_getter(weights):
    def getter(inner, name, *args, **kwargs):
        for suffix, value in weights.items():
            if name.endswith(suffix):
                return tf.constant(value)
        raise AssertionError(f"unexpected variable {name}")
    return getter


def np_lstm_seq(x, lengths, w, b, c0=None, h0=None):
    """Batch-major LSTM over time with TensorFlow's sequence_length semantics."""
    batch, steps, _ = x.shape
    n = b.shape[0] // 4
    c = np.zeros((batch, n)) if c0 is None else c0.copy()
    h = np.zeros((batch, n)) if h0 is None else h0.copy()
    outs = np.zeros((batch, steps, n))
    for t in range(steps):
        z = np.concatenate([x[:, t], h], 1) @ w + b
        i, j, f, o = np.split(z, 4, axis=1)
        nc = sig(f + 1.0) * c + sig(i) * np.tanh(j)
        nh = sig(o) * np.tanh(nc)
        valid = (t < lengths)[:, None]
        outs[:, t] = np.where(valid, nh, 0.0)
        c, h = np.where(valid, nc, c), np.where(valid, nh, h)
    return outs, c, h


def np_rnn_seq(x, lengths, w, b):
    batch, steps, _ = x.shape
    h = np.zeros((batch, b.shape[0]))
    outs = np.zeros((batch, steps, b.shape[0]))
    for t in range(steps):
        nh = np.tanh(np.concatenate([x[:, t], h], 1) @ w + b)
        valid = (t < lengths)[:, None]
        outs[:, t] = np.where(valid, nh, 0.0)
        h = np.where(valid, nh, h)
    return outs, h


X = rand(3, 5, 4)
LENS = np.array([5, 2, 0])
W, B = rand(10, 24, scale=1.0), rand(24)


@pytest.mark.parametrize("time_major", [False, True])
def test_dynamic_rnn_sequence_length_matches_numpy(time_major):
    x = tf.placeholder(tf.float64, [5, 3, 4] if time_major else [3, 5, 4])
    sl = tf.placeholder(tf.int64, [3])
    with tf.variable_scope("m", custom_getter=const_getter({"kernel": W, "bias": B})):
        out, (c, h) = tf.nn.dynamic_rnn(rc.BasicLSTMCell(6), x, sequence_length=sl,
                                        dtype=tf.float64, time_major=time_major)
    assert out.shape.as_list() == ([5, 3, 6] if time_major else [3, 5, 6])
    feed = {x: X.transpose(1, 0, 2) if time_major else X, sl: LENS}
    with tf.Session() as sess:
        o, cv, hv = sess.run([out, c, h], feed)
    want_o, want_c, want_h = np_lstm_seq(X, LENS, W, B)
    if time_major:
        o = o.transpose(1, 0, 2)
    np.testing.assert_allclose(o, want_o, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(cv, want_c, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(hv, want_h, rtol=1e-10, atol=1e-12)
    assert not np.any(o[1, 2:]) and not np.any(o[2])
    assert not np.any(cv[2])  # length 0: the initial (zero) state


def test_dynamic_rnn_initial_state_and_no_lengths():
    c0, h0 = rand(3, 6), rand(3, 6)
    x = tf.constant(X)
    init = rc.LSTMStateTuple(tf.constant(c0), tf.constant(h0))
    with tf.variable_scope("m", custom_getter=const_getter({"kernel": W, "bias": B})):
        out, (c, h) = tf.nn.dynamic_rnn(rc.BasicLSTMCell(6), x, initial_state=init)
    with tf.Session() as sess:
        o, cv = sess.run([out, c])
    want_o, want_c, _ = np_lstm_seq(X, np.array([5, 5, 5]), W, B, c0, h0)
    np.testing.assert_allclose(o, want_o, rtol=1e-10)
    np.testing.assert_allclose(cv, want_c, rtol=1e-10)


def test_static_and_dynamic_rnn_give_equal_outputs():
    x = tf.placeholder(tf.float32, [3, 5, 4])
    sl = tf.placeholder(tf.int32, [3])
    cell = rc.MultiRNNCell([rc.GRUCell(5), rc.BasicLSTMCell(4)])
    d_out, d_state = tf.nn.dynamic_rnn(cell, x, sequence_length=sl, dtype=tf.float32)
    # The same cell object shares its variables, so both runs use equal weights.
    s_out, s_state = tf.contrib.rnn.static_rnn(cell, tf.unstack(x, axis=1), dtype=tf.float32,
                                               sequence_length=sl)
    assert len(tf.trainable_variables()) == 6
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {x: X.astype(np.float32), sl: LENS}
        dv, ds, sv, ss = sess.run([d_out, d_state, s_out, s_state], feed)
    np.testing.assert_allclose(dv, np.stack(sv, axis=1), rtol=1e-6, atol=1e-7)
    for a, b in zip(rnn_mod.flatten(ds), rnn_mod.flatten(ss)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_bidirectional_dynamic_rnn_matches_numpy():
    w_f, b_f, w_b, b_b = rand(7, 3), rand(3), rand(7, 3), rand(3)
    x = tf.placeholder(tf.float64, [3, 5, 4])
    sl = tf.placeholder(tf.int32, [3])
    getter = const_getter({"fw/basic_rnn_cell/kernel": w_f, "fw/basic_rnn_cell/bias": b_f,
                           "bw/basic_rnn_cell/kernel": w_b, "bw/basic_rnn_cell/bias": b_b})
    with tf.variable_scope("m", custom_getter=getter):
        (of, ob), (sf, sb) = tf.nn.bidirectional_dynamic_rnn(
            rc.BasicRNNCell(3), rc.BasicRNNCell(3), x, sequence_length=sl, dtype=tf.float64)
    with tf.Session() as sess:
        ofv, obv, sfv, sbv = sess.run([of, ob, sf, sb], {x: X, sl: LENS})
    want_f, want_sf = np_rnn_seq(X, LENS, w_f, b_f)
    rev = np.zeros_like(X)
    for i, n in enumerate(LENS):
        rev[i, :n] = X[i, :n][::-1]
        rev[i, n:] = X[i, n:]
    out_b, want_sb = np_rnn_seq(rev, LENS, w_b, b_b)
    want_b = np.zeros_like(out_b)
    for i, n in enumerate(LENS):
        want_b[i, :n] = out_b[i, :n][::-1]
    np.testing.assert_allclose(ofv, want_f, rtol=1e-10)
    np.testing.assert_allclose(obv, want_b, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sfv, want_sf, rtol=1e-10)
    np.testing.assert_allclose(sbv, want_sb, rtol=1e-10)


def test_static_bidirectional_rnn_concatenates_directions():
    w_f, b_f, w_b, b_b = rand(7, 3), rand(3), rand(7, 3), rand(3)
    x = tf.placeholder(tf.float64, [3, 5, 4])
    getter = const_getter({"fw/basic_rnn_cell/kernel": w_f, "fw/basic_rnn_cell/bias": b_f,
                           "bw/basic_rnn_cell/kernel": w_b, "bw/basic_rnn_cell/bias": b_b})
    with tf.variable_scope("m", custom_getter=getter):
        outs, sf, sb = tf.nn.static_bidirectional_rnn(rc.BasicRNNCell(3), rc.BasicRNNCell(3),
                                                      tf.unstack(x, axis=1), dtype=tf.float64)
    with tf.Session() as sess:
        ov = np.stack(sess.run(outs, {x: X}), 1)
    full = np.array([5, 5, 5])
    want_f, _ = np_rnn_seq(X, full, w_f, b_f)
    out_b, _ = np_rnn_seq(X[:, ::-1], full, w_b, b_b)
    np.testing.assert_allclose(ov, np.concatenate([want_f, out_b[:, ::-1]], 2), rtol=1e-10)


def test_stack_bidirectional_dynamic_rnn_shapes_and_names():
    x = tf.placeholder(tf.float32, [2, 4, 3])
    out, sfw, sbw = tf.contrib.rnn.stack_bidirectional_dynamic_rnn(
        [rc.GRUCell(2), rc.GRUCell(3)], [rc.GRUCell(2), rc.GRUCell(3)], x, dtype=tf.float32)
    assert out.shape.as_list() == [2, 4, 6]
    assert len(sfw) == 2 and sbw[1].shape.as_list() == [2, 3]
    names = [v.op.name for v in tf.global_variables()]
    assert "stack_bidirectional_rnn/cell_1/bidirectional_rnn/bw/gru_cell/gates/kernel" in names
    assert tf.global_variables()[names.index(
        "stack_bidirectional_rnn/cell_1/bidirectional_rnn/fw/gru_cell/gates/kernel")
    ].shape.as_list() == [7, 6]


def test_dynamic_rnn_gradients_numerically():
    def build(x, w, b):
        with tf.variable_scope("g", custom_getter=lambda g, n, *a, **k:
                               w if n.endswith("kernel") else b):
            out, (c, _) = tf.nn.dynamic_rnn(rc.BasicLSTMCell(2), x,
                                            sequence_length=[3, 1], dtype=tf.float64)
        return tf.concat([tf.reshape(out, [-1]), tf.reshape(c, [-1])], 0)
    check_gradients(build, [rand(2, 3, 2), rand(4, 8, scale=1.0), rand(8)],
                    delta=1e-6, rtol=1e-5, atol=1e-7)


def test_dynamic_rnn_errors():
    x = tf.placeholder(tf.float32, [2, 3, 4])
    with pytest.raises(ValueError, match="dtype"):
        tf.nn.dynamic_rnn(rc.GRUCell(2), x)
    with pytest.raises(ValueError, match="rank 3"):
        tf.nn.dynamic_rnn(rc.GRUCell(2), tf.zeros([2, 4]), dtype=tf.float32)
    with pytest.raises(TypeError, match="RNNCell"):
        tf.nn.dynamic_rnn(lambda a, b: (a, b), x, dtype=tf.float32)
    with pytest.raises(ValueError, match="vector"):
        tf.nn.dynamic_rnn(rc.GRUCell(2), x, sequence_length=[[1, 2]], dtype=tf.float32)
    if rnn_mod._loop is None:
        with pytest.raises(ValueError, match="time dimension"):
            tf.nn.dynamic_rnn(rc.GRUCell(2), tf.placeholder(tf.float32, [2, None, 4]),
                              dtype=tf.float32)


def test_reverse_sequence_and_its_gradient():
    x = rand(2, 4, 3)
    got = tf.Session().run(tf.reverse_sequence(x, [3, 0], seq_axis=1, batch_axis=0))
    want = x.copy()
    want[0, :3] = x[0, :3][::-1]
    np.testing.assert_array_equal(got, want)
    check_gradients(lambda t: tf.reverse_sequence(t, [1, 3, 2], seq_axis=0, batch_axis=1),
                    [rand(3, 3, 2)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="seq_lengths"):
        tf.Session().run(tf.reverse_sequence(x, [5, 1], seq_axis=1))


def test_sequence_mask():
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(tf.sequence_mask([1, 3, 0], 4)),
                                      [[1, 0, 0, 0], [1, 1, 1, 0], [0, 0, 0, 0]])
        m = sess.run(tf.sequence_mask(tf.constant([[2], [1]]), dtype=tf.float32))
    assert m.dtype == np.float32 and m.shape == (2, 1, 2)
    np.testing.assert_array_equal(m[:, 0], [[1, 1], [1, 0]])


def _build_worker_model(task):
    vocab, steps, batch = 12, 6, 8
    with tf.device(replica_device_setter(ps_tasks=1, worker_device=f"/job:worker/task:{task}")):
        ids = tf.placeholder(tf.int32, [batch, steps])
        targets = tf.placeholder(tf.int32, [batch, steps])
        emb = tf.get_variable("emb", [vocab, 8], initializer=tf.random_uniform_initializer(
            -0.1, 0.1, seed=1))
        cell = rc.MultiRNNCell([rc.BasicLSTMCell(16) for _ in range(2)])
        out, _ = tf.nn.dynamic_rnn(cell, tf.nn.embedding_lookup(emb, ids), dtype=tf.float32)
        logits = tf.layers.dense(out, vocab, name="softmax")
        loss = tf.contrib.seq2seq.sequence_loss(logits, targets, tf.ones([batch, steps]))
        tvars = tf.trainable_variables()
        grads, _ = tf.clip_by_global_norm(tf.gradients(loss, tvars), 5.0)
        step = tf.train.GradientDescentOptimizer(3.0).apply_gradients(zip(grads, tvars))
    return ids, targets, loss, step, tvars


def test_recurrent_model_trains_between_graph_on_a_cluster():
    seq = np.arange(7 * 8) % 12  # a cyclic sequence: the next token is predictable
    data = np.stack([np.roll(seq, k)[:7] for k in range(8)])
    feed_ids, feed_tg = data[:, :6], data[:, 1:7]
    losses = []
    with local_cluster(ps=1, worker=2) as c:
        graphs = []
        for task in range(2):
            g = tf.Graph()
            with g.as_default():
                ids, tg, loss, step, tvars = _build_worker_model(task)
                init = tf.global_variables_initializer()
            assert all(v.device == "/job:ps/task:0" for v in tvars)
            graphs.append((g, ids, tg, loss, step, init))
        sessions = [tf.Session(c.target("worker", i), graph=g[0]) for i, g in enumerate(graphs)]
        try:
            sessions[0].run(graphs[0][5])
            for it in range(8):
                g, ids, tg, loss, step, _ = graphs[it % 2]
                lv, _ = sessions[it % 2].run([loss, step], {ids: feed_ids, tg: feed_tg})
                losses.append(lv)
            final = sessions[1].run(graphs[1][3], {graphs[1][1]: feed_ids,
                                                    graphs[1][2]: feed_tg})
        finally:
            for s in sessions:
                s.close()
    assert losses[0] == pytest.approx(np.log(12), rel=0.05)
    assert all(b < a for a, b in zip(losses, losses[1:])), losses
    assert final < losses[0] - 0.3, (losses, final)


@pytest.mark.skipif(rnn_mod._loop is None, reason="tf.while_loop is not available")
@pytest.mark.parametrize("time_major", [False, True])
def test_dynamic_rnn_unknown_time_uses_a_loop_equal_to_unrolling(time_major):
    shape = [None, 3, 4] if time_major else [3, None, 4]
    x = tf.placeholder(tf.float64, shape)
    xs = tf.placeholder(tf.float64, [5, 3, 4] if time_major else [3, 5, 4])
    sl = tf.placeholder(tf.int32, [3])
    cell = rc.MultiRNNCell([rc.BasicLSTMCell(6), rc.GRUCell(5)])
    o, s = tf.nn.dynamic_rnn(cell, x, sequence_length=sl, dtype=tf.float64,
                             time_major=time_major)
    o2, s2 = tf.nn.dynamic_rnn(cell, xs, sequence_length=sl, dtype=tf.float64,
                               time_major=time_major)
    assert len(tf.trainable_variables()) == 6
    assert "While" in {op.type for op in tf.get_default_graph().get_operations()}
    tv = tf.trainable_variables()
    g = tf.gradients(tf.reduce_sum(o) + tf.reduce_sum(s[0].c), tv)
    g2 = tf.gradients(tf.reduce_sum(o2) + tf.reduce_sum(s2[0].c), tv)
    data = X.transpose(1, 0, 2) if time_major else X
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        r = sess.run([o, s, g], {x: data, sl: LENS})
        r2 = sess.run([o2, s2, g2], {xs: data, sl: LENS})
    for a, b in zip(rnn_mod.flatten(r), rnn_mod.flatten(r2)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.skipif(rnn_mod._loop is None, reason="tf.while_loop is not available")
def test_bidirectional_dynamic_rnn_unknown_time_without_lengths():
    x = tf.placeholder(tf.float64, [3, None, 4])
    xs = tf.placeholder(tf.float64, [3, 5, 4])
    fw, bw = rc.GRUCell(3), rc.GRUCell(3)
    (of, ob), _ = tf.nn.bidirectional_dynamic_rnn(fw, bw, x, dtype=tf.float64)
    (of2, ob2), _ = tf.nn.bidirectional_dynamic_rnn(fw, bw, xs, dtype=tf.float64)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        a = sess.run([of, ob], {x: X})
        b = sess.run([of2, ob2], {xs: X})
    np.testing.assert_allclose(a[0], b[0], rtol=1e-10)
    np.testing.assert_allclose(a[1], b[1], rtol=1e-10)


def test_ptb_lstm_example_perplexity_falls():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("OPENBLAS_NUM_THREADS", "1")  # small matmuls on a shared machine
    proc = subprocess.run([sys.executable, os.path.join(root, "examples", "ptb_lstm.py"),
                           "--epochs", "5", "--sentences", "1500", "--hidden_size", "32",
                           "--num_steps", "10"],
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ppl = [float(p) for p in re.findall(r"valid perplexity ([0-9.]+)", proc.stdout)]
    assert len(ppl) == 6, proc.stdout
    assert ppl[0] > 20 and ppl[-1] < 0.6 * ppl[0], proc.stdout
