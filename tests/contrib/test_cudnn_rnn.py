"""``tf.contrib.cudnn_rnn`` on the CPU: cuDNN's equations checked against numpy, both call
forms, the compatible cells and checkpoints through RNNParamsSaveable."""

import numpy as np
import pytest

import tensorfleet as tf

cudnn = tf.contrib.cudnn_rnn
T, B, I, U = 3, 2, 4, 5


def _sig(x):
    return 1 / (1 + np.exp(-x))


def _np_lstm(x, h, c, ws, bs, layers):
    """cuDNN's LSTM (gates i, f, c, o), layer by layer."""
    hs, cs = [], []
    for layer in range(layers):
        w, b = ws[8 * layer:8 * layer + 8], bs[8 * layer:8 * layer + 8]
        hl, cl, out = h[layer], c[layer], []
        for t in range(x.shape[0]):
            z = [x[t] @ w[k].T + b[k] + hl @ w[4 + k].T + b[4 + k] for k in range(4)]
            cl = _sig(z[1]) * cl + _sig(z[0]) * np.tanh(z[2])
            hl = _sig(z[3]) * np.tanh(cl)
            out.append(hl)
        x = np.stack(out)
        hs.append(hl)
        cs.append(cl)
    return x, np.stack(hs), np.stack(cs)


def _np_gru(x, h, ws, bs):
    out = []
    for t in range(x.shape[0]):
        xr = [x[t] @ ws[k].T + bs[k] for k in range(3)]
        hr = [h @ ws[3 + k].T + bs[3 + k] for k in range(3)]
        r, z = _sig(xr[0] + hr[0]), _sig(xr[1] + hr[1])
        n = np.tanh(xr[2] + r * hr[2])
        h = (1 - z) * n + z * h
        out.append(h)
    return np.stack(out), h


def _canonical(layer_inputs, gates, rng):
    ws, bs = [], []
    for depth in layer_inputs:
        ws += [rng.normal(0, .4, (U, depth)).astype(np.float32) for _ in range(gates)]
        ws += [rng.normal(0, .4, (U, U)).astype(np.float32) for _ in range(gates)]
        bs += [rng.normal(0, .4, (U,)).astype(np.float32) for _ in range(2 * gates)]
    return ws, bs


def test_lstm_with_opaque_params_matches_cudnns_equations():
    rng = np.random.default_rng(0)
    ws, bs = _canonical([I, U], 4, rng)
    x = rng.normal(size=(T, B, I)).astype(np.float32)
    h0 = rng.normal(size=(2, B, U)).astype(np.float32)
    c0 = rng.normal(size=(2, B, U)).astype(np.float32)
    with tf.Graph().as_default():
        lstm = cudnn.CudnnLSTM(num_layers=2, num_units=U, input_size=I, dropout=0)
        assert lstm.params_size() == sum(w.size for w in ws) + sum(b.size for b in bs)
        params = lstm.canonical_to_params([tf.constant(w) for w in ws],
                                          [tf.constant(b) for b in bs])
        out, h, c = lstm(tf.constant(x), tf.constant(h0), tf.constant(c0), params, True)
        back_w, back_b = lstm.params_to_canonical(params)
        with tf.Session() as sess:
            out_v, h_v, c_v, bw = sess.run([out, h, c, back_w])
    want = _np_lstm(x, h0, c0, ws, bs, 2)
    for got, exp in zip((out_v, h_v, c_v), want):
        np.testing.assert_allclose(got, exp, rtol=1e-5, atol=1e-5)
    for got, exp in zip(bw, ws):
        np.testing.assert_array_equal(got, exp)


def test_gru_layer_trains_and_matches_the_compatible_cell():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(T, B, I)).astype(np.float32)
    with tf.Graph().as_default():
        gru = cudnn.CudnnGRU(1, U, seed=3)
        out, (h,) = gru(tf.constant(x), training=True)
        (opaque,) = gru.trainable_variables
        loss = tf.reduce_sum(tf.square(out))
        step = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
        ws, bs = gru.params_to_canonical(opaque)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out_v, h_v, w_v, b_v = sess.run([out, h, ws, bs])
            first = sess.run(loss)
            for _ in range(3):
                sess.run(step)
            assert sess.run(loss) < first
    want_out, want_h = _np_gru(x, np.zeros((B, U), np.float32), w_v, b_v)
    np.testing.assert_allclose(out_v, want_out, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(h_v[0], want_h, rtol=1e-5, atol=1e-5)


def test_rnn_tanh_relu_and_bidirectional_shapes():
    x = np.ones((T, B, I), np.float32)
    with tf.Graph().as_default():
        out_t, (h_t,) = cudnn.CudnnRNNTanh(2, U, direction="bidirectional")(tf.constant(x))
        out_r, (h_r,) = cudnn.CudnnRNNRelu(1, U)(tf.constant(x))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            ot, ht, orl = sess.run([out_t, h_t, out_r])
    assert ot.shape == (T, B, 2 * U) and ht.shape == (4, B, U)
    assert np.all(np.abs(ot) <= 1) and np.all(orl >= 0)


def test_errors_name_the_bad_argument():
    with pytest.raises(ValueError, match="input_mode 'skip_input'"):
        cudnn.CudnnLSTM(1, U, input_mode="skip_input")
    with pytest.raises(ValueError, match="direction"):
        cudnn.CudnnGRU(1, U, direction="sideways")
    with pytest.raises(ValueError, match="input size is not known"):
        cudnn.CudnnLSTM(1, U).params_size()
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"\[time, batch, depth\]"):
            cudnn.CudnnLSTM(1, U)(tf.ones([2, 3]))


def test_params_saveable_restores_into_compatible_cells(tmp_path):
    rng = np.random.default_rng(2)
    ws, bs = _canonical([I, U], 4, rng)
    x = rng.normal(size=(T, B, I)).astype(np.float32)
    zeros = np.zeros((2, B, U), np.float32)
    want, _, _ = _np_lstm(x, zeros, zeros, ws, bs, 2)
    path = str(tmp_path / "ckpt")
    with tf.Graph().as_default():
        lstm = cudnn.CudnnLSTM(2, U, I)
        params = tf.get_variable("lstm_params", initializer=lstm.canonical_to_params(
            [tf.constant(w) for w in ws], [tf.constant(b) for b in bs]), validate_shape=False)
        saveable = cudnn.RNNParamsSaveable(lstm, lstm.params_to_canonical,
                                           lstm.canonical_to_params, [params],
                                           base_variable_scope="rnn")
        tf.add_to_collection(tf.GraphKeys.SAVEABLE_OBJECTS, saveable)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().save(sess, path)
    with tf.Graph().as_default():
        cell = tf.nn.rnn_cell.MultiRNNCell([cudnn.CudnnCompatibleLSTMCell(U) for _ in range(2)])
        out, _ = tf.nn.dynamic_rnn(cell, tf.constant(x), dtype=tf.float32, time_major=True)
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, path)
            np.testing.assert_allclose(sess.run(out), want, rtol=1e-5, atol=1e-5)
    # ... and back: the cells' checkpoint restores the opaque vector.
    with tf.Graph().as_default():
        lstm = cudnn.CudnnLSTM(2, U, I)
        params = tf.get_variable("lstm_params", initializer=tf.zeros([lstm.params_size()]),
                                 validate_shape=False)
        saveable = cudnn.RNNParamsSaveable(lstm, lstm.params_to_canonical,
                                           lstm.canonical_to_params, [params],
                                           base_variable_scope="rnn")
        out, _, _ = lstm(tf.constant(x), tf.constant(zeros), tf.constant(zeros), params)
        with tf.Session() as sess:
            tf.train.Saver([saveable]).restore(sess, path)
            np.testing.assert_allclose(sess.run(out), want, rtol=1e-5, atol=1e-5)
