"""Keras stacked cells, ConvLSTM, the CuDNN-form recurrent layers and backend.rnn,
against numpy step loops."""

import numpy as np
import pytest

import tensorfleet as tf
from tests.keras.numpy_reference import conv_nd

keras = tf.keras
K = keras.backend


@pytest.fixture(autouse=True)
def _keras_session():
    yield
    K.clear_session()


def _sig(x):
    return 1 / (1 + np.exp(-x))


def _hsig(x):
    return np.clip(0.2 * x + 0.5, 0, 1)


def test_stacked_cells_equal_two_layers():
    rng = np.random.RandomState(0)
    xv = rng.randn(2, 4, 3).astype(np.float32)
    x = keras.Input(shape=(4, 3))
    cells = [keras.layers.SimpleRNNCell(5), keras.layers.SimpleRNNCell(2)]
    rnn = keras.layers.RNN(cells, return_state=True)
    out, s1, s2 = rnn(x)
    assert rnn.cell.state_size == (5, 2) and len(rnn.weights) == 6
    o, st1 = K.get_session().run([out, s1], {x: xv})
    k1, r1, b1, k2, r2, b2 = K.batch_get_value(rnn.weights)
    h1, h2 = np.zeros((2, 5)), np.zeros((2, 2))
    for t in range(4):
        h1 = np.tanh(xv[:, t] @ k1 + h1 @ r1 + b1)
        h2 = np.tanh(h1 @ k2 + h2 @ r2 + b2)
    np.testing.assert_allclose(o, h2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(st1, h1, rtol=1e-5, atol=1e-6)


def test_conv_lstm2d_against_numpy_and_training():
    rng = np.random.RandomState(1)
    xv = rng.randn(2, 3, 4, 4, 2).astype(np.float32)
    x = keras.Input(shape=(3, 4, 4, 2))
    layer = keras.layers.ConvLSTM2D(3, 3, padding="same", return_sequences=True)
    y = layer(x)
    out = K.get_session().run(y, {x: xv})
    k, rk, b = K.batch_get_value(layer.weights)
    h = np.zeros((2, 4, 4, 3))
    c = np.zeros_like(h)
    for t in range(3):
        z = conv_nd(xv[:, t], k, (1, 1), "same") + b + conv_nd(h, rk, (1, 1), "same")
        zi, zf, zc, zo = np.split(z, 4, axis=-1)
        c = _hsig(zf) * c + _hsig(zi) * np.tanh(zc)
        h = _hsig(zo) * np.tanh(c)
        np.testing.assert_allclose(out[:, t], h, rtol=1e-4, atol=1e-5)
    model = keras.Sequential([keras.layers.ConvLSTM1D(2, 2, input_shape=(3, 5, 1)),
                              keras.layers.Flatten()])
    model.compile(optimizer=keras.optimizers.SGD(0.5), loss="mse")
    xs = rng.randn(4, 3, 5, 1).astype(np.float32)
    ys = np.ones((4, 8), np.float32) * 0.3
    l0 = model.train_on_batch(xs, ys)
    assert model.test_on_batch(xs, ys) < l0


def test_cudnn_lstm_and_gru_against_numpy():
    rng = np.random.RandomState(2)
    xv = rng.randn(2, 3, 4).astype(np.float32)
    x = keras.Input(shape=(3, 4))
    lstm, gru = keras.layers.CuDNNLSTM(3), keras.layers.CuDNNGRU(2)
    yl, yg = lstm(x), gru(x)
    ol, og = K.get_session().run([yl, yg], {x: xv})
    k, r, b = K.batch_get_value(lstm.weights)
    assert b.shape == (24,) and np.all(b[3:6] == 1)
    h, c = np.zeros((2, 3)), np.zeros((2, 3))
    for t in range(3):
        z = xv[:, t] @ k + h @ r + b[:12] + b[12:]
        zi, zf, zc, zo = np.split(z, 4, axis=1)
        c = _sig(zf) * c + _sig(zi) * np.tanh(zc)
        h = _sig(zo) * np.tanh(c)
    np.testing.assert_allclose(ol, h, rtol=1e-5, atol=1e-6)
    k, r, b = K.batch_get_value(gru.weights)
    h = np.zeros((2, 2))
    for t in range(3):
        xz, xr, xh = np.split(xv[:, t] @ k + b[:6], 3, axis=1)
        rz, rr, rh = np.split(h @ r + b[6:], 3, axis=1)
        z, rg = _sig(xz + rz), _sig(xr + rr)
        h = z * h + (1 - z) * np.tanh(xh + rg * rh)
    np.testing.assert_allclose(og, h, rtol=1e-5, atol=1e-6)


def test_backend_rnn_with_mask_and_go_backwards():
    xv = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
    mask = np.array([[1, 1, 0], [1, 0, 1]], bool)

    def step(x, states):
        s = states[0] + x
        return s * 2, [s]
    last, outs, states = K.rnn(step, K.constant(xv), [K.zeros((2, 2))], mask=K.constant(mask))
    lv, ov, sv = K.get_session().run([last, outs, states[0]])
    ref_s = np.zeros((2, 2))
    ref_o = np.zeros((2, 3, 2))
    prev = np.zeros((2, 2))
    for t in range(3):
        new = ref_s + xv[:, t]
        m = mask[:, t][:, None]
        ref_s = np.where(m, new, ref_s)
        prev = np.where(m, new * 2, prev)
        ref_o[:, t] = prev
    np.testing.assert_allclose(ov, ref_o)
    np.testing.assert_allclose(sv, ref_s)
    np.testing.assert_allclose(lv, ref_o[:, -1])
    _, back, _ = K.rnn(step, K.constant(xv), [K.zeros((2, 2))], go_backwards=True)
    np.testing.assert_allclose(K.eval(back)[:, 0], 2 * xv[:, 2])


def test_abstract_cell_subclass_runs_in_rnn():
    class Doubler(keras.layers.AbstractRNNCell):
        @property
        def state_size(self):
            return 2

        @property
        def output_size(self):
            return 2

        def call(self, inputs, states):
            s = states[0] + inputs
            return s, [s]

    xv = np.ones((1, 3, 2), np.float32)
    x = keras.Input(shape=(3, 2))
    y = keras.layers.RNN(Doubler())(x)
    np.testing.assert_allclose(K.get_session().run(y, {x: xv}), [[3, 3]])
    with pytest.raises(TypeError, match="state_size"):
        keras.layers.AbstractRNNCell().state_size
