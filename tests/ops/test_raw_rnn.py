"""tf.nn.raw_rnn (loop_fn protocol, copy-through, loop state) and
tf.contrib.rnn.LayerNormBasicLSTMCell (values against numpy, variable names, dropout,
gradients)."""

import numpy as np
import pytest

import tensorfleet as tf

B, D, N, T = 2, 3, 4, 5


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _np_lstm(x, kernel, bias, lengths):
    c = np.zeros((B, N))
    h = np.zeros((B, N))
    outs = np.zeros((T, B, N))
    for t in range(T):
        z = np.concatenate([x[t], h], 1) @ kernel + bias
        i, j, f, o = np.split(z, 4, axis=1)
        nc = c * _sigmoid(f + 1.0) + _sigmoid(i) * np.tanh(j)
        nh = np.tanh(nc) * _sigmoid(o)
        live = (t < lengths)[:, None]
        c, h = np.where(live, nc, c), np.where(live, nh, h)
        outs[t] = np.where(live, nh, 0)
    return outs, c, h


def test_raw_rnn_runs_lstm_until_each_sequence_finishes():
    inputs = tf.placeholder(tf.float64, [T, B, D])
    lengths = np.array([3, 5])
    seq_len = tf.constant(lengths, dtype=tf.int32)
    inputs_ta = tf.TensorArray(tf.float64, size=T).unstack(inputs)
    cell = tf.nn.rnn_cell.BasicLSTMCell(N)
    calls = []

    def loop_fn(time, cell_output, cell_state, loop_state):
        calls.append(cell_output is None)
        next_state = cell.zero_state(B, tf.float64) if cell_output is None else cell_state
        finished = time >= seq_len
        next_input = tf.cond(tf.reduce_all(finished), lambda: tf.zeros([B, D], tf.float64),
                             lambda: inputs_ta.read(time))
        return finished, next_input, next_state, cell_output, None

    emit_ta, final_state, final_loop = tf.nn.raw_rnn(cell, loop_fn)
    assert calls[0] is True and final_loop is None
    assert [v.op.name for v in tf.global_variables()] == ["rnn/basic_lstm_cell/kernel",
                                                           "rnn/basic_lstm_cell/bias"]
    outputs = emit_ta.stack()
    x = np.random.RandomState(0).randn(T, B, D)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        kernel, bias = sess.run(cell.variables)
        out, st = sess.run([outputs, final_state], {inputs: x})
    want, c, h = _np_lstm(x, kernel, bias, lengths)
    np.testing.assert_allclose(out, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(st.c, c, rtol=1e-10)
    np.testing.assert_allclose(st.h, h, rtol=1e-10)


def test_raw_rnn_loop_state_and_emit_structure():
    cell = tf.nn.rnn_cell.BasicRNNCell(2)

    def loop_fn(time, cell_output, cell_state, loop_state):
        if cell_output is None:
            # Emit a 1-vector per step (the step count so far) instead of the output.
            return (tf.constant([False, False]), tf.ones([2, 1]), cell.zero_state(2, tf.float32),
                    tf.zeros([1], tf.float32), tf.constant(0))
        emit = tf.fill([2, 1], tf.cast(loop_state + 1, tf.float32))
        finished = tf.fill([2], time >= 4)
        return finished, tf.ones([2, 1]), cell_state, emit, loop_state + 1

    emit_ta, _, final_loop = tf.nn.raw_rnn(cell, loop_fn, scope="custom")
    assert tf.global_variables()[0].op.name == "custom/basic_rnn_cell/kernel"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        emitted, loops = sess.run([emit_ta.stack(), final_loop])
    assert loops == 4
    np.testing.assert_array_equal(emitted[:, 0, 0], [1, 2, 3, 4])


def test_raw_rnn_bad_arguments():
    cell = tf.nn.rnn_cell.BasicRNNCell(2)
    with pytest.raises(TypeError, match="loop_fn"):
        tf.nn.raw_rnn(cell, 3)
    with pytest.raises(TypeError, match="bool"):
        tf.nn.raw_rnn(cell, lambda t, o, s, l: (tf.constant([0]), tf.ones([1, 1]),
                                                cell.zero_state(1, tf.float32), None, None))


def _np_ln(v, gamma, beta):
    mean = v.mean(1, keepdims=True)
    var = v.var(1, keepdims=True)
    return (v - mean) / np.sqrt(var + 1e-12) * gamma + beta


def test_layer_norm_lstm_cell_matches_numpy_and_names():
    x = tf.placeholder(tf.float64, [B, D])
    c0 = tf.placeholder(tf.float64, [B, N])
    h0 = tf.placeholder(tf.float64, [B, N])
    cell = tf.contrib.rnn.LayerNormBasicLSTMCell(N, forget_bias=0.5, norm_gain=1.5,
                                                 norm_shift=0.1)
    out, st = cell(x, tf.contrib.rnn.LSTMStateTuple(c0, h0))
    names = sorted(v.op.name for v in tf.global_variables())
    scope = "layer_norm_basic_lstm_cell"
    assert names == sorted([f"{scope}/kernel"] + [f"{scope}/{s}/{p}" for s in
                           ("input", "transform", "forget", "output", "state")
                           for p in ("gamma", "beta")])
    rng = np.random.RandomState(1)
    xv, cv, hv = rng.randn(B, D), rng.randn(B, N), rng.randn(B, N)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        kernel = sess.run(tf.global_variables()[0])
        got_h, got_st = sess.run([out, st], {x: xv, c0: cv, h0: hv})
    z = np.concatenate([xv, hv], 1) @ kernel
    i, j, f, o = [_np_ln(p, 1.5, 0.1) for p in np.split(z, 4, axis=1)]
    new_c = _np_ln(cv * _sigmoid(f + 0.5) + _sigmoid(i) * np.tanh(j), 1.5, 0.1)
    new_h = np.tanh(new_c) * _sigmoid(o)
    np.testing.assert_allclose(got_st.c, new_c, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(got_h, new_h, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(got_st.h, new_h, rtol=1e-8, atol=1e-10)


def test_layer_norm_lstm_without_norm_has_bias_and_dropout_placeholder():
    cell = tf.contrib.rnn.LayerNormBasicLSTMCell(N, layer_norm=False)
    keep = tf.placeholder_with_default(tf.constant(1.0), [])
    cell2 = tf.contrib.rnn.LayerNormBasicLSTMCell(N, dropout_keep_prob=keep,
                                                  dropout_prob_seed=3)
    x = tf.ones([B, D])
    with tf.variable_scope("a"):
        cell(x, cell.zero_state(B, tf.float32))
    with tf.variable_scope("b"):
        out2, _ = cell2(x, cell2.zero_state(B, tf.float32))
    names = [v.op.name for v in tf.global_variables()]
    assert "a/layer_norm_basic_lstm_cell/bias" in names
    assert not any(n.startswith("a/") and "gamma" in n for n in names)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        full = sess.run(out2)
        again = sess.run(out2)
        dropped = sess.run(out2, {keep: 0.5})
    np.testing.assert_allclose(full, again)
    assert not np.allclose(full, dropped)
    with pytest.raises(ValueError, match="dropout_keep_prob"):
        tf.contrib.rnn.LayerNormBasicLSTMCell(N, dropout_keep_prob=0.0)
    with pytest.raises(ValueError, match="input_size"):
        tf.contrib.rnn.LayerNormBasicLSTMCell(N, input_size=3)


def test_layer_norm_lstm_in_dynamic_rnn_and_gradients():
    cell = tf.contrib.rnn.LayerNormBasicLSTMCell(3)
    outs, _ = tf.nn.dynamic_rnn(cell, tf.ones([2, 4, 2]), dtype=tf.float32)
    assert outs.shape.as_list() == [2, 4, 3]
    assert tf.global_variables()[0].op.name == "rnn/layer_norm_basic_lstm_cell/kernel"

    x = tf.constant(np.random.RandomState(2).randn(2, 3))
    with tf.variable_scope("g"):
        c = tf.contrib.rnn.LayerNormBasicLSTMCell(2)
        h, _ = c(x, c.zero_state(2, tf.float64))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        err = tf.test.compute_gradient_error(x, [2, 3], h, [2, 2], delta=1e-6,
                                             x_init_value=np.random.RandomState(2).randn(2, 3))
    assert err < 1e-6
