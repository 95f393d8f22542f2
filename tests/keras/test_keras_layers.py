"""tf.keras layers in graph mode: values against numpy references, weight names."""

import numpy as np
import pytest

import tensorfleet as tf

keras = tf.keras
K = keras.backend


@pytest.fixture(autouse=True)
def _keras_session():
    np.random.seed(0)  # fit shuffles with numpy's global generator
    yield
    K.clear_session()


def _run(t, feed=None):
    return K.get_session().run(t, feed)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _hard_sigmoid(x):
    return np.clip(0.2 * x + 0.5, 0.0, 1.0)


def test_dense_names_values_and_second_call_reuses_weights():
    x = keras.Input(shape=(3,))
    d1 = keras.layers.Dense(4, activation="relu")
    d2 = keras.layers.Dense(2)
    y = d2(d1(x))
    assert (d1.name, d2.name) == ("dense", "dense_1")
    assert [w.name for w in d1.weights + d2.weights] == [
        "dense/kernel:0", "dense/bias:0", "dense_1/kernel:0", "dense_1/bias:0"]
    assert K.int_shape(y) == (None, 2)
    xv = np.random.RandomState(0).randn(5, 3).astype(np.float32)
    k1, b1, k2, b2 = K.batch_get_value(d1.weights + d2.weights)
    np.testing.assert_allclose(_run(y, {x: xv}), np.maximum(xv @ k1 + b1, 0) @ k2 + b2,
                               rtol=1e-5, atol=1e-6)
    before = len(tf.global_variables())
    d1(tf.placeholder(tf.float32, [None, 3]))
    assert len(tf.global_variables()) == before


def test_conv_pool_flatten_against_numpy():
    rng = np.random.RandomState(1)
    x = keras.Input(shape=(6, 6, 2))
    conv = keras.layers.Conv2D(3, 3, kernel_initializer="he_normal", bias_initializer="ones")
    c = conv(x)
    p = keras.layers.MaxPooling2D()(c)
    a = keras.layers.AveragePooling2D(pool_size=2, strides=1)(c)
    f = keras.layers.Flatten()(p)
    g = keras.layers.GlobalAveragePooling2D()(c)
    assert [w.name for w in conv.weights] == ["conv2d/kernel:0", "conv2d/bias:0"]
    xv = rng.randn(2, 6, 6, 2).astype(np.float32)
    k, b = K.batch_get_value(conv.weights)
    np.testing.assert_allclose(b, 1.0)
    ref = np.zeros((2, 4, 4, 3), np.float32)
    for i in range(4):
        for j in range(4):
            ref[:, i, j] = np.tensordot(xv[:, i:i + 3, j:j + 3], k, axes=3)
    ref += b
    cv, pv, av, fv, gv = _run([c, p, a, f, g], {x: xv})
    np.testing.assert_allclose(cv, ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(pv, ref.reshape(2, 2, 2, 2, 2, 3).max(axis=(2, 4)), rtol=1e-5)
    assert av.shape == (2, 3, 3, 3)
    np.testing.assert_allclose(av[:, 0, 0], ref[:, :2, :2].mean(axis=(1, 2)), rtol=1e-5)
    np.testing.assert_allclose(fv, pv.reshape(2, -1), rtol=1e-6)
    np.testing.assert_allclose(gv, ref.mean(axis=(1, 2)), rtol=1e-5)


def test_conv2d_transpose_shape_and_names():
    x = keras.Input(shape=(4, 4, 2))
    layer = keras.layers.Conv2DTranspose(3, 3, strides=2, padding="same")
    y = layer(x)
    assert K.int_shape(y) == (None, 8, 8, 3)
    assert [w.name for w in layer.weights] == ["conv2d_transpose/kernel:0",
                                               "conv2d_transpose/bias:0"]
    assert layer.kernel.get_shape().as_list() == [3, 3, 3, 2]
    with pytest.raises(ValueError, match="output_padding"):
        keras.layers.Conv2DTranspose(3, 3, output_padding=1)


def test_padding_upsampling_reshape_merge_activation_layers():
    rng = np.random.RandomState(2)
    x = keras.Input(shape=(2, 3, 1))
    z = keras.layers.ZeroPadding2D(((1, 0), (0, 2)))(x)
    u = keras.layers.UpSampling2D((2, 3))(x)
    r = keras.layers.Reshape((3, -1))(x)
    v = keras.Input(shape=(4,))
    w = keras.Input(shape=(4,))
    cat = keras.layers.concatenate([v, w])
    add = keras.layers.add([v, w])
    sub = keras.layers.Subtract()([v, w])
    mul = keras.layers.Multiply()([v, w])
    avg = keras.layers.Average()([v, w])
    leaky = keras.layers.LeakyReLU(0.1)(v)
    act = keras.layers.Activation("tanh")(v)
    lam = keras.layers.Lambda(lambda t, p: t ** p, arguments={"p": 2})(v)
    xv = rng.randn(2, 2, 3, 1).astype(np.float32)
    vv, wv = rng.randn(2, 4).astype(np.float32), rng.randn(2, 4).astype(np.float32)
    out = _run([z, u, r, cat, add, sub, mul, avg, leaky, act, lam], {x: xv, v: vv, w: wv})
    np.testing.assert_array_equal(out[0], np.pad(xv, [[0, 0], [1, 0], [0, 2], [0, 0]]))
    np.testing.assert_array_equal(out[1], xv.repeat(2, axis=1).repeat(3, axis=2))
    assert K.int_shape(u) == (None, 4, 9, 1)
    np.testing.assert_array_equal(out[2], xv.reshape(2, 3, 2))
    np.testing.assert_allclose(out[3], np.concatenate([vv, wv], 1))
    np.testing.assert_allclose(out[4], vv + wv, rtol=1e-6)
    np.testing.assert_allclose(out[5], vv - wv, rtol=1e-6)
    np.testing.assert_allclose(out[6], vv * wv, rtol=1e-6)
    np.testing.assert_allclose(out[7], (vv + wv) / 2, rtol=1e-6)
    np.testing.assert_allclose(out[8], np.where(vv > 0, vv, 0.1 * vv), rtol=1e-6)
    np.testing.assert_allclose(out[9], np.tanh(vv), rtol=1e-5)
    np.testing.assert_allclose(out[10], vv ** 2, rtol=1e-5)
    with pytest.raises(ValueError, match="at least 2 inputs"):
        keras.layers.Add()([v])


def test_dropout_follows_learning_phase():
    x = keras.Input(shape=(1000,))
    y = keras.layers.Dropout(0.5)(x)
    ones = np.ones((2, 1000), np.float32)
    np.testing.assert_array_equal(_run(y, {x: ones}), ones)
    dropped = _run(y, {x: ones, K.learning_phase(): True})
    assert set(np.unique(dropped)) <= {0.0, 2.0}
    assert 0.4 < (dropped == 0).mean() < 0.6


def test_batch_normalization_inference_and_training_updates():
    rng = np.random.RandomState(3)
    x = keras.Input(shape=(5,))
    bn = keras.layers.BatchNormalization(momentum=0.5)
    y = bn(x)
    assert [w.name for w in bn.weights] == [
        "batch_normalization/gamma:0", "batch_normalization/beta:0",
        "batch_normalization/moving_mean:0", "batch_normalization/moving_variance:0"]
    assert len(bn.trainable_weights) == 2 and len(bn.updates) == 2
    xv = rng.randn(8, 5).astype(np.float32) * 3 + 1
    bn.set_weights([np.full(5, 2.0), np.full(5, 0.5), np.full(5, 1.0), np.full(5, 4.0)])
    np.testing.assert_allclose(_run(y, {x: xv}), 2.0 * (xv - 1.0) / np.sqrt(4.0 + 1e-3) + 0.5,
                               rtol=1e-5, atol=1e-5)
    train = _run([y] + bn.updates, {x: xv, K.learning_phase(): True})[0]
    mean, var = xv.mean(0), xv.var(0)
    np.testing.assert_allclose(train, 2.0 * (xv - mean) / np.sqrt(var + 1e-3) + 0.5,
                               rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(K.get_value(bn.moving_mean), 0.5 * 1.0 + 0.5 * mean, rtol=1e-5)


def test_embedding_lookup_and_uniform_init():
    ids = keras.Input(shape=(3,), dtype="int32")
    emb = keras.layers.Embedding(10, 4)
    y = emb(ids)
    assert [w.name for w in emb.weights] == ["embedding/embeddings:0"]
    table = K.get_value(emb.embeddings)
    assert np.abs(table).max() <= 0.05
    idv = np.array([[1, 2, 9], [0, 0, 3]])
    np.testing.assert_array_equal(_run(y, {ids: idv}), table[idv])
    with pytest.raises(ValueError, match="mask_zero"):
        keras.layers.Embedding(10, 4, mask_zero=True)


def _lstm_ref(x, k, rk, b, units):
    h = np.zeros((x.shape[0], units), np.float32)
    c = np.zeros_like(h)
    hs = []
    for t in range(x.shape[1]):
        z = x[:, t] @ k + h @ rk + b
        i, f, g, o = np.split(z, 4, axis=1)
        c = _hard_sigmoid(f) * c + _hard_sigmoid(i) * np.tanh(g)
        h = _hard_sigmoid(o) * np.tanh(c)
        hs.append(h)
    return np.stack(hs, 1), h, c


def test_lstm_sequences_states_and_names():
    rng = np.random.RandomState(4)
    x = keras.Input(shape=(5, 3))
    layer = keras.layers.LSTM(4, return_sequences=True, return_state=True)
    seq, h, c = layer(x)
    assert [w.name for w in layer.weights] == [
        "lstm/lstm_cell/kernel:0", "lstm/lstm_cell/recurrent_kernel:0", "lstm/lstm_cell/bias:0"]
    k, rk, b = K.batch_get_value(layer.weights)
    np.testing.assert_array_equal(b, np.r_[np.zeros(4), np.ones(4), np.zeros(8)])
    xv = rng.randn(2, 5, 3).astype(np.float32)
    got = _run([seq, h, c], {x: xv})
    for g, r in zip(got, _lstm_ref(xv, k, rk, b, 4)):
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-5)


def test_gru_and_simple_rnn_against_numpy():
    rng = np.random.RandomState(5)
    x = keras.Input(shape=(4, 2))
    gru = keras.layers.GRU(3, bias_initializer="glorot_uniform")
    rnn = keras.layers.SimpleRNN(3, go_backwards=True)
    yg, yr = gru(x), rnn(x)
    assert [w.name for w in gru.weights][0] == "gru/gru_cell/kernel:0"
    assert [w.name for w in rnn.weights][0] == "simple_rnn/simple_rnn_cell/kernel:0"
    xv = rng.randn(3, 4, 2).astype(np.float32)
    k, rk, b = K.batch_get_value(gru.weights)
    h = np.zeros((3, 3), np.float32)
    for t in range(4):
        xz, xr, xh = np.split(xv[:, t] @ k + b, 3, axis=1)
        rz, rr, rh = np.split(rk, 3, axis=1)
        z = _hard_sigmoid(xz + h @ rz)
        r = _hard_sigmoid(xr + h @ rr)
        hh = np.tanh(xh + (r * h) @ rh)
        h = z * h + (1 - z) * hh
    k2, rk2, b2 = K.batch_get_value(rnn.weights)
    h2 = np.zeros((3, 3), np.float32)
    for t in reversed(range(4)):
        h2 = np.tanh(xv[:, t] @ k2 + h2 @ rk2 + b2)
    g, r = _run([yg, yr], {x: xv})
    np.testing.assert_allclose(g, h, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(r, h2, rtol=1e-4, atol=1e-5)


def test_lstm_initial_state_and_bidirectional():
    rng = np.random.RandomState(6)
    x = keras.Input(shape=(3, 2))
    h0, c0 = keras.Input(shape=(2,)), keras.Input(shape=(2,))
    lstm = keras.layers.LSTM(2)
    y = lstm(x, initial_state=[h0, c0])
    xv = rng.randn(2, 3, 2).astype(np.float32)
    hv, cv = rng.randn(2, 2).astype(np.float32), rng.randn(2, 2).astype(np.float32)
    k, rk, b = K.batch_get_value(lstm.weights)
    h, c = hv, cv
    for t in range(3):
        i, f, g, o = np.split(xv[:, t] @ k + h @ rk + b, 4, axis=1)
        c = _hard_sigmoid(f) * c + _hard_sigmoid(i) * np.tanh(g)
        h = _hard_sigmoid(o) * np.tanh(c)
    np.testing.assert_allclose(_run(y, {x: xv, h0: hv, c0: cv}), h, rtol=1e-4, atol=1e-5)

    bi = keras.layers.Bidirectional(keras.layers.SimpleRNN(2, return_sequences=True))
    yb = bi(x)
    assert K.int_shape(yb) == (None, 3, 4)
    names = [w.name for w in bi.weights]
    assert names[0] == "bidirectional/forward_simple_rnn/simple_rnn_cell/kernel:0"
    assert names[3] == "bidirectional/backward_simple_rnn/simple_rnn_cell/kernel:0"
    kf, rf, bf, kb, rb, bb = K.batch_get_value(bi.weights)
    out = _run(yb, {x: xv})
    hf, hb = np.zeros((2, 2)), np.zeros((2, 2))
    fw, bw = [], [None] * 3
    for t in range(3):
        hf = np.tanh(xv[:, t] @ kf + hf @ rf + bf)
        fw.append(hf)
    for t in reversed(range(3)):
        hb = np.tanh(xv[:, t] @ kb + hb @ rb + bb)
        bw[t] = hb
    np.testing.assert_allclose(out, np.concatenate([np.stack(fw, 1), np.stack(bw, 1)], -1),
                               rtol=1e-4, atol=1e-5)


def test_unsupported_arguments_raise():
    with pytest.raises(ValueError, match="dropout"):
        keras.layers.LSTM(2, dropout=0.1)
    with pytest.raises(ValueError, match="stateful"):
        keras.layers.GRU(2, stateful=True)
    with pytest.raises(ValueError, match="channels_last"):
        keras.layers.Conv2D(2, 3, data_format="channels_first")
    with pytest.raises(TypeError):
        keras.layers.Dense(2, bogus=1)
    with pytest.raises(ValueError, match="Unknown activation"):
        keras.layers.Dense(2, activation="nope")


def test_repeat_permute_time_distributed():
    rng = np.random.RandomState(7)
    v = keras.Input(shape=(3,))
    rep = keras.layers.RepeatVector(4)(v)
    seq = keras.Input(shape=(5, 3, 2))
    perm = keras.layers.Permute((2, 1, 3))(seq)
    td_layer = keras.layers.TimeDistributed(keras.layers.Dense(4))
    td = td_layer(keras.Input(shape=(5, 3)))
    assert K.int_shape(rep) == (None, 4, 3) and K.int_shape(perm) == (None, 3, 5, 2)
    assert K.int_shape(td) == (None, 5, 4)
    assert [w.name for w in td_layer.weights] == ["time_distributed/dense/kernel:0",
                                                  "time_distributed/dense/bias:0"]
    vv = rng.randn(2, 3).astype(np.float32)
    sv = rng.randn(2, 5, 3, 2).astype(np.float32)
    tin = td.op.graph.get_tensor_by_name("input_3:0")
    xv = rng.randn(2, 5, 3).astype(np.float32)
    k, b = K.batch_get_value(td_layer.weights)
    r, p, t = _run([rep, perm, td], {v: vv, seq: sv, tin: xv})
    np.testing.assert_array_equal(r, np.repeat(vv[:, None], 4, axis=1))
    np.testing.assert_array_equal(p, sv.transpose(0, 2, 1, 3))
    np.testing.assert_allclose(t, xv @ k + b, rtol=1e-5, atol=1e-6)


def test_bidirectional_lstm_states_and_merge_modes():
    x = keras.Input(shape=(4, 3))
    bi = keras.layers.Bidirectional(keras.layers.LSTM(2, return_state=True), merge_mode="ave")
    out, fh, fc, bh, bc = bi(x)
    xv = np.random.RandomState(8).randn(2, 4, 3).astype(np.float32)
    o, f, b = _run([out, fh, bh], {x: xv})
    np.testing.assert_allclose(o, (f + b) / 2, rtol=1e-5, atol=1e-6)
    kb, rkb, bb = K.batch_get_value(bi.backward_layer.weights)
    _, h_ref, _ = _lstm_ref(xv[:, ::-1], kb, rkb, bb, 2)
    np.testing.assert_allclose(b, h_ref, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="merge mode"):
        keras.layers.Bidirectional(keras.layers.LSTM(2), merge_mode="max")
