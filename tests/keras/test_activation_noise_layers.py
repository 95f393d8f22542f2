"""Keras activation layers (ELU, PReLU, ThresholdedReLU), noise and structured dropout,
LayerNormalization and the pass-through layers, against numpy."""

import numpy as np
import pytest

import tensorfleet as tf

keras = tf.keras
K = keras.backend


@pytest.fixture(autouse=True)
def _keras_session():
    yield
    K.clear_session()


def _run(y, feed):
    return K.get_session().run(y, feed)


def test_elu_thresholded_prelu_forward_and_training():
    rng = np.random.RandomState(0)
    xv = rng.randn(4, 3, 2).astype(np.float32)
    x = keras.Input(shape=(3, 2))
    elu = keras.layers.ELU(alpha=0.5)(x)
    thr = keras.layers.ThresholdedReLU(theta=0.3)(x)
    prelu = keras.layers.PReLU(alpha_initializer=keras.initializers.Constant(0.25),
                               shared_axes=[1])
    p = prelu(x)
    assert prelu.weights[0].get_shape().as_list() == [1, 2]
    e, t, pv = _run([elu, thr, p], {x: xv})
    np.testing.assert_allclose(e, np.where(xv > 0, xv, 0.5 * (np.exp(xv) - 1)), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(t, np.where(xv > 0.3, xv, 0), rtol=1e-6)
    np.testing.assert_allclose(pv, np.where(xv > 0, xv, 0.25 * xv), rtol=1e-6)
    # The slope learns: d loss / d alpha is sum of min(x, 0) * upstream.
    model = keras.Model(x, p)
    model.compile(optimizer=keras.optimizers.SGD(1.0), loss="mse")
    model.train_on_batch(xv, np.zeros_like(xv))
    a = K.get_value(prelu.alpha)
    neg = np.minimum(xv, 0)
    grad = (2 * 0.25 * neg * neg / xv.size).sum(axis=(0, 1))
    np.testing.assert_allclose(a[0], 0.25 - grad, rtol=1e-4)
    with pytest.raises(ValueError, match="theta"):
        keras.layers.ThresholdedReLU(theta=-1)


def test_noise_layers_only_while_training():
    xv = np.ones((200, 50), np.float32)
    x = keras.Input(shape=(50,))
    layers = [keras.layers.GaussianNoise(0.5), keras.layers.GaussianDropout(0.2),
              keras.layers.AlphaDropout(0.3)]
    ys = [l(x) for l in layers]
    for v in _run(ys, {x: xv}):
        np.testing.assert_array_equal(v, xv)
    noisy = _run(ys, {x: xv, K.learning_phase(): True})
    assert abs(noisy[0].std() - 0.5) < 0.02 and abs(noisy[0].mean() - 1) < 0.02
    assert abs(noisy[1].std() - np.sqrt(0.2 / 0.8)) < 0.02
    z = np.random.RandomState(0).randn(200, 50).astype(np.float32)
    a = _run(ys[2], {x: z, K.learning_phase(): True})
    assert abs(a.mean() - z.mean()) < 0.05 and abs(a.std() - z.std()) < 0.05
    assert len(np.unique(a[np.abs(a - (-1.7580993 * 0.3)) < 1e-9])) <= 1
    with pytest.raises(ValueError, match="rate"):
        keras.layers.GaussianDropout(1.5)


@pytest.mark.parametrize("cls,shape", [("SpatialDropout1D", (6, 8)),
                                       ("SpatialDropout2D", (3, 4, 8)),
                                       ("SpatialDropout3D", (2, 2, 2, 8))])
def test_spatial_dropout_drops_whole_channels(cls, shape):
    xv = np.ones((16,) + shape, np.float32)
    x = keras.Input(shape=shape)
    y = getattr(keras.layers, cls)(0.5)(x)
    np.testing.assert_array_equal(_run(y, {x: xv}), xv)
    out = _run(y, {x: xv, K.learning_phase(): True})
    per_channel = out.reshape(16, -1, 8)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    # Every channel of every sample is all kept or all dropped.
    assert (per_channel.min(axis=1) == per_channel.max(axis=1)).all()
    assert 0 < (per_channel[:, 0] == 0).mean() < 1


def test_layer_normalization_against_numpy_and_gradient():
    rng = np.random.RandomState(1)
    xv = rng.randn(3, 4, 5).astype(np.float32)
    x = keras.Input(shape=(4, 5))
    ln = keras.layers.LayerNormalization(axis=[1, 2], epsilon=1e-5,
                                         gamma_initializer=keras.initializers.Constant(2.0),
                                         beta_initializer="ones")
    y = ln(x)
    assert [w.name for w in ln.weights] == ["layer_normalization/gamma:0",
                                            "layer_normalization/beta:0"]
    m, v = xv.mean(axis=(1, 2), keepdims=True), xv.var(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(_run(y, {x: xv}), 2 * (xv - m) / np.sqrt(v + 1e-5) + 1,
                               rtol=1e-4, atol=1e-5)
    x2 = tf.placeholder(tf.float64, [2, 3])
    y2 = keras.layers.LayerNormalization(dtype="float64")(x2)
    with K.get_session().as_default():
        err = tf.test.compute_gradient_error(x2, [2, 3], y2, [2, 3],
                                             x_init_value=rng.randn(2, 3))
    assert err < 1e-4


def test_masking_identity_activity_regularization():
    xv = np.array([[[1, 2], [0, 0], [3, 0]]], np.float32)
    x = keras.Input(shape=(3, 2))
    masked = keras.layers.Masking(0.0)(x)
    np.testing.assert_array_equal(_run(masked._keras_mask, {x: xv}), [[True, False, True]])
    ident = keras.layers.Identity()(x)
    reg = keras.layers.ActivityRegularization(l1=0.1, l2=0.2)
    r = reg(x)
    out, loss = _run([ident, reg.losses[0]], {x: xv})
    np.testing.assert_array_equal(out, xv)
    np.testing.assert_allclose(loss, 0.1 * np.abs(xv).sum() + 0.2 * (xv ** 2).sum(),
                               rtol=1e-5)
    assert r is not x


def test_masking_makes_lstm_skip_masked_steps():
    rng = np.random.RandomState(2)
    xv = rng.randn(2, 4, 3).astype(np.float32)
    xv[0, 2:] = 0.0  # sample 0 has two real steps
    x = keras.Input(shape=(4, 3))
    lstm = keras.layers.LSTM(5, return_sequences=True)
    y = lstm(keras.layers.Masking()(x))
    seq = _run(y, {x: xv})
    # Masked steps repeat the last real output; the unmasked sample matches a plain run.
    np.testing.assert_allclose(seq[0, 2], seq[0, 1], rtol=1e-6)
    np.testing.assert_allclose(seq[0, 3], seq[0, 1], rtol=1e-6)
    x2 = keras.Input(shape=(2, 3))
    plain = _run(lstm(x2), {x2: xv[:1, :2]})
    np.testing.assert_allclose(seq[0, :2], plain[0], rtol=1e-5, atol=1e-6)
