"""The whole-sequence LSTM layer op and its use by static_rnn / dynamic_rnn: values against
numpy, gradients numerically, variable names and the step-by-step fallback."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.ops import rnn as rnn_mod
from tensorfleet.ops import rnn_ops
from tensorfleet.testing.gradient_checker import check_gradients

rc = tf.nn.rnn_cell
RNG = np.random.RandomState(11)


def sig(z):
    return 1.0 / (1.0 + np.exp(-z))


def rand(*shape, scale=0.5):
    return RNG.uniform(-scale, scale, shape)


def np_lstm_layer(x, c, h, w, b, forget_bias):
    """Time-major LSTM layer: returns (h of every step, c_last, h_last, c of every step)."""
    n = c.shape[1]
    hs, cs = [], []
    for t in range(x.shape[0]):
        z = np.concatenate([x[t], h], 1) @ w + b
        i, j, f, o = z[:, :n], z[:, n:2 * n], z[:, 2 * n:3 * n], z[:, 3 * n:]
        c = sig(f + forget_bias) * c + sig(i) * np.tanh(j)
        h = sig(o) * np.tanh(c)
        hs.append(h)
        cs.append(c)
    return np.stack(hs), c, h, np.stack(cs)


def op_types():
    return [op.type for op in tf.get_default_graph().get_operations()]


# -- the op -----------------------------------------------------------------------------

@pytest.mark.parametrize("forget_bias", [0.0, 1.0, -0.4])
def test_fused_lstm_sequence_matches_numpy(forget_bias):
    x, c0, h0 = rand(5, 3, 4), rand(3, 6), rand(3, 6)
    w, b = rand(10, 24, scale=1.0), rand(24)
    h_seq, c_last, h_last = rnn_ops.fused_lstm_sequence(x, c0, h0, w, b, forget_bias)
    assert h_seq.shape.as_list() == [5, 3, 6] and c_last.shape.as_list() == [3, 6]
    seq_op = h_seq.op
    with tf.Session() as sess:
        hv, cv, hl, cseq, gates = sess.run([h_seq, c_last, h_last, seq_op.outputs[1],
                                            seq_op.outputs[2]])
    want_h, want_c, want_hl, want_cs = np_lstm_layer(x, c0, h0, w, b, forget_bias)
    np.testing.assert_allclose(hv, want_h, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(cv, want_c, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(hl, want_hl, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(cseq, want_cs, rtol=1e-12, atol=1e-14)
    # The saved gates of the last step are the activated i, j, f, o.
    z = np.concatenate([x[4], want_h[3]], 1) @ w + b
    np.testing.assert_allclose(gates[4, :, 6:12], np.tanh(z[:, 6:12]), rtol=1e-12)
    np.testing.assert_allclose(gates[4, :, 12:18], sig(z[:, 12:18] + forget_bias), rtol=1e-12)


def test_fused_lstm_sequence_equals_step_ops_forward_and_backward():
    vals = [rand(4, 2, 3), rand(2, 5), rand(2, 5), rand(8, 20, scale=1.0), rand(20)]
    phs = [tf.placeholder(tf.float64, v.shape) for v in vals]
    h_seq, c_last, h_last = rnn_ops.fused_lstm_sequence(*phs, forget_bias=0.5)
    c, h, steps = phs[1], phs[2], []
    for x_t in tf.unstack(phs[0], axis=0):
        c, h, _ = rnn_ops.fused_lstm_cell(x_t, c, h, phs[3], phs[4], forget_bias=0.5)
        steps.append(h)
    weights = tf.constant(rand(4, 2, 5))
    loss1 = tf.reduce_sum(h_seq * weights) + tf.reduce_sum(c_last * 1.7) - tf.reduce_sum(h_last)
    loss2 = tf.reduce_sum(tf.stack(steps) * weights) + tf.reduce_sum(c * 1.7) - tf.reduce_sum(h)
    g1, g2 = tf.gradients(loss1, phs), tf.gradients(loss2, phs)
    assert {g.op.type for g in g1} == {"FusedLSTMSequenceGrad"}
    with tf.Session() as sess:
        r1, r2 = sess.run([[h_seq, c_last, h_last] + g1, [tf.stack(steps), c, h] + g2],
                          dict(zip(phs, vals)))
    for a, b in zip(r1, r2):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-13)


def test_fused_lstm_sequence_gradients_numerically():
    def build(x, c0, h0, w, b):
        h_seq, c_last, h_last = rnn_ops.fused_lstm_sequence(x, c0, h0, w, b, forget_bias=0.3)
        return tf.concat([tf.reshape(h_seq, [-1]), tf.reshape(c_last, [-1]),
                          tf.reshape(h_last, [-1])], 0)
    check_gradients(build, [rand(3, 2, 3), rand(2, 4), rand(2, 4), rand(7, 16, scale=1.0),
                            rand(16)], delta=1e-6, rtol=1e-5, atol=1e-7)


def test_gradient_through_every_steps_c_output():
    # Output 1 (c of every step) is kept for the backward op; a gradient reaching it
    # still flows back correctly.
    def build(x, w):
        h_seq, _, _ = rnn_ops.fused_lstm_sequence(x, tf.zeros([2, 3], tf.float64),
                                                  tf.zeros([2, 3], tf.float64), w,
                                                  tf.zeros([12], tf.float64))
        return h_seq.op.outputs[1]
    check_gradients(build, [rand(4, 2, 2), rand(5, 12, scale=1.0)], delta=1e-6, rtol=1e-5,
                    atol=1e-7)


def test_backward_op_gets_an_empty_c_gradient_when_none_reaches_c():
    x, c0, h0 = rand(5, 3, 4), rand(3, 6), rand(3, 6)
    w, b = tf.constant(rand(10, 24, scale=1.0)), tf.constant(rand(24))
    h_seq, _, _ = rnn_ops.fused_lstm_sequence(x, c0, h0, w, b, 0.5)
    loss = tf.reduce_sum(h_seq * h_seq)
    (dw,) = tf.gradients(loss, [w])
    grad_op = next(op for op in tf.get_default_graph().get_operations()
                   if op.type == "FusedLSTMSequenceGrad")
    assert grad_op.inputs[9].shape.as_list() == [0]
    with tf.Session() as sess:
        got = sess.run(dw)
    # The same gradient with every step's c fed a zero gradient explicitly (a Fill,
    # which the backward op takes as it is).
    dc = tf.zeros([5, 3, 6], tf.float64)
    explicit = rnn_ops.fused_lstm_sequence_grad(h_seq.op, 2 * h_seq, dc,
                                                tf.zeros_like(c0), tf.zeros_like(h0))
    with tf.Session() as sess:
        np.testing.assert_allclose(got, sess.run(explicit[3]), rtol=1e-12, atol=1e-14)


def test_fused_lstm_sequence_float32_and_bad_inputs():
    x = tf.placeholder(tf.float32, [None, 2, 3])
    c = tf.placeholder(tf.float32, [2, 4])
    w = tf.placeholder(tf.float32, [None, 16])
    h_seq, c_last, _ = rnn_ops.fused_lstm_sequence(x, c, c, w, tf.zeros([16]))
    assert h_seq.dtype == tf.float32 and h_seq.shape.as_list() == [None, 2, 4]
    with tf.Session() as sess:
        xv, cv = np.ones((3, 2, 3), np.float32), np.full((2, 4), 0.5, np.float32)
        out = sess.run(h_seq, {x: xv, c: cv, w: np.full((7, 16), 0.1, np.float32)})
        assert out.dtype == np.float32 and out.shape == (3, 2, 4)
        # No steps: the final state is the initial state.
        last = sess.run(c_last, {x: np.zeros((0, 2, 3), np.float32), c: cv,
                                 w: np.zeros((7, 16), np.float32)})
        np.testing.assert_array_equal(last, cv)
        with pytest.raises(tf.errors.InvalidArgumentError, match="LSTM step"):
            sess.run(h_seq, {x: xv, c: cv, w: np.zeros((6, 16), np.float32)})
    with pytest.raises(TypeError, match="dtype"):
        rnn_ops.fused_lstm_sequence(x, c, c, tf.zeros([7, 16], tf.float64), tf.zeros([16]))
    with pytest.raises(TypeError, match="floating"):
        rnn_ops.fused_lstm_sequence(tf.zeros([2, 2, 3], tf.int32), c, c, w, tf.zeros([16]))
    with pytest.raises(ValueError, match="time, batch, depth"):
        rnn_ops.fused_lstm_sequence(tf.zeros([2, 3]), c, c, w, tf.zeros([16]))


# -- static_rnn and dynamic_rnn ----------------------------------------------------------

def _two_layers(cls=rc.BasicLSTMCell, **kw):
    return rc.MultiRNNCell([cls(5, **kw), cls(4, **kw)])


@pytest.mark.parametrize("time_major", [False, True])
def test_dynamic_rnn_runs_one_op_per_layer_and_matches_numpy(time_major):
    x_bm = rand(3, 6, 4)
    x = tf.constant(x_bm.transpose(1, 0, 2) if time_major else x_bm)
    out, state = tf.nn.dynamic_rnn(_two_layers(forget_bias=0.2), x, dtype=tf.float64,
                                   time_major=time_major)
    types = op_types()
    assert types.count("FusedLSTMSequence") == 2 and "FusedLSTMCell" not in types
    names = sorted(v.op.name for v in tf.trainable_variables())
    assert names == [f"rnn/multi_rnn_cell/cell_{i}/basic_lstm_cell/{k}"
                     for i in range(2) for k in ("bias", "kernel")]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o, st, ws = sess.run([out, state, tf.trainable_variables()])
    wts = {v.op.name: val for v, val in zip(tf.trainable_variables(), ws)}
    pre = "rnn/multi_rnn_cell/cell_"
    x_tm = x_bm.transpose(1, 0, 2)
    h1, c1, hl1, _ = np_lstm_layer(x_tm, np.zeros((3, 5)), np.zeros((3, 5)),
                                   wts[pre + "0/basic_lstm_cell/kernel"],
                                   wts[pre + "0/basic_lstm_cell/bias"], 0.2)
    h2, c2, hl2, _ = np_lstm_layer(h1, np.zeros((3, 4)), np.zeros((3, 4)),
                                   wts[pre + "1/basic_lstm_cell/kernel"],
                                   wts[pre + "1/basic_lstm_cell/bias"], 0.2)
    # atol: an output near zero differs in its last bits with the product's summation
    # order (BLAS threads), which rtol alone reads as a large relative error.
    np.testing.assert_allclose(o, h2 if time_major else h2.transpose(1, 0, 2), rtol=1e-12,
                               atol=1e-15)
    for got, want in zip([st[0].c, st[0].h, st[1].c, st[1].h], [c1, hl1, c2, hl2]):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def _step_and_fused(build):
    """Runs ``build(cell_fn)`` twice in one graph: once as is (fused), once with the
    fused path turned off (step by step); the same cell objects share the weights."""
    results = []
    for fused in (True, False):
        saved = rnn_mod._lstm_layers
        if not fused:
            rnn_mod._lstm_layers = lambda cell: None
        try:
            results.append(build())
        finally:
            rnn_mod._lstm_layers = saved
    return results


@pytest.mark.parametrize("form", ["static", "dynamic"])
@pytest.mark.parametrize("cell_kind", ["basic", "lstm", "concat_state"])
def test_fused_equals_step_by_step_values_and_gradients(form, cell_kind):
    x = tf.constant(rand(2, 5, 3), tf.float32)
    make = {"basic": lambda: _two_layers(),
            "lstm": lambda: _two_layers(rc.LSTMCell, initializer=tf.random_uniform_initializer(
                -0.5, 0.5, seed=3)),
            "concat_state": lambda: rc.BasicLSTMCell(4, state_is_tuple=False)}[cell_kind]()
    cell = make

    def build():
        with tf.variable_scope("net", reuse=tf.AUTO_REUSE):
            if form == "static":
                outs, st = tf.nn.static_rnn(cell, tf.unstack(x, axis=1), dtype=tf.float32)
                out = tf.stack(outs, 1)
            else:
                out, st = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        loss = tf.reduce_sum(out * out) + sum(tf.reduce_sum(s) for s in tf.nest.flatten(st))
        return [out] + tf.nest.flatten(st) + tf.gradients(loss, tf.trainable_variables() + [x])

    fused, steps = _step_and_fused(build)
    types = op_types()
    assert "FusedLSTMSequence" in types and "FusedLSTMCell" in types
    n_vars = {"basic": 4, "lstm": 4, "concat_state": 2}[cell_kind]
    assert len(tf.trainable_variables()) == n_vars
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        a, b = sess.run([fused, steps])
    for u, v in zip(a, b):
        np.testing.assert_allclose(u, v, rtol=2e-5, atol=2e-6)


def test_cells_that_are_not_plain_lstms_or_lengths_take_the_step_path():
    x = tf.zeros([2, 3, 4])
    assert rnn_mod._lstm_layers(rc.LSTMCell(3, use_peepholes=True)) is None
    assert rnn_mod._lstm_layers(rc.MultiRNNCell([rc.BasicLSTMCell(3), rc.GRUCell(3)])) is None
    assert rnn_mod._lstm_layers(rc.DropoutWrapper(rc.BasicLSTMCell(3))) is None
    assert rnn_mod._lstm_layers(rc.BasicLSTMCell(3, activation=tf.nn.relu)) is None
    tf.nn.dynamic_rnn(rc.BasicLSTMCell(3), x, sequence_length=[3, 2], dtype=tf.float32,
                      scope="lengths")
    assert "FusedLSTMSequence" not in op_types() and "FusedLSTMCell" in op_types()
    tf.nn.dynamic_rnn(rc.BasicLSTMCell(3), x, dtype=tf.float32, scope="plain")
    assert "FusedLSTMSequence" in op_types()


class _OwnMathLSTM(rc.LSTMCell):
    def call(self, inputs, state):
        return super().call(inputs * 2.0, state)


def test_lstm_subclasses_keeping_the_math_take_the_whole_sequence_path():
    block = tf.contrib.rnn.LSTMBlockCell(3)
    assert rnn_mod._lstm_layers(block) == [block]
    assert rnn_mod._lstm_layers(tf.contrib.rnn.LSTMBlockCell(3, use_peephole=True)) is None
    assert rnn_mod._lstm_layers(_OwnMathLSTM(3)) is None
    x = tf.zeros([2, 3, 4])
    tf.nn.dynamic_rnn(block, x, dtype=tf.float32)
    assert "FusedLSTMSequence" in op_types() and "FusedLSTMCell" not in op_types()
    names = {v.op.name for v in tf.global_variables()}
    assert names == {"rnn/lstm_cell/kernel", "rnn/lstm_cell/bias"}


def test_a_cell_called_first_by_hand_keeps_its_variables():
    cell = rc.BasicLSTMCell(3)
    x = tf.constant(rand(2, 4, 5), tf.float32)
    first, _ = cell(x[:, 0], cell.zero_state(2, tf.float32))
    out, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    assert [v.op.name for v in tf.global_variables()] == ["basic_lstm_cell/kernel",
                                                          "basic_lstm_cell/bias"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        f, o = sess.run([first, out])
    np.testing.assert_allclose(f, o[:, 0], rtol=1e-6)


def test_bad_multi_cell_state_raises():
    cell = _two_layers()
    with pytest.raises(ValueError, match="tuple of length 2"):
        tf.nn.dynamic_rnn(cell, tf.zeros([2, 3, 4]),
                          initial_state=(cell.zero_state(2, tf.float32)[0],))


@pytest.mark.parametrize("form", ["dynamic", "static"])
def test_bidirectional_lstms_run_one_op_per_direction(form):
    x = tf.zeros([2, 5, 4])
    fw, bw = rc.BasicLSTMCell(3), tf.contrib.rnn.LSTMCell(3)
    if form == "dynamic":
        tf.nn.bidirectional_dynamic_rnn(fw, bw, x, dtype=tf.float32)
    else:
        tf.nn.static_bidirectional_rnn(fw, bw, tf.unstack(x, 5, 1), dtype=tf.float32)
    types = op_types()
    assert types.count("FusedLSTMSequence") == 2 and "FusedLSTMCell" not in types
