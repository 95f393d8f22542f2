"""Keras layer helpers: InputSpec checks, Wrapper, DenseFeatures over feature columns,
the v2 dtype switch, RandomFourierFeatures and the short class aliases."""

import numpy as np
import pytest

import tensorfleet as tf

keras = tf.keras
K = keras.backend
L = keras.layers


@pytest.fixture(autouse=True)
def _keras_session():
    yield
    L.disable_v2_dtype_behavior()
    K.clear_session()


def test_input_spec_is_checked_on_call():
    class Needs3D(L.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.input_spec = L.InputSpec(ndim=3, axes={-1: 4})

        def call(self, inputs):
            return inputs

    layer = Needs3D()
    layer(keras.Input(shape=(2, 4)))
    with pytest.raises(ValueError, match="expected ndim=3"):
        Needs3D()(keras.Input(shape=(4,)))
    with pytest.raises(ValueError, match="expected axis -1 of size 4"):
        Needs3D()(keras.Input(shape=(2, 5)))
    spec = L.InputSpec(dtype="float32", min_ndim=2)
    assert L.InputSpec.from_config(spec.get_config()).min_ndim == 2
    assert "min_ndim=2" in repr(spec)


def test_wrapper_applies_and_owns_the_wrapped_weights():
    inner = L.Dense(2)
    w = L.Wrapper(inner)
    x = keras.Input(shape=(3,))
    y = w(x)
    assert w.weights == inner.weights and len(w.trainable_weights) == 2
    xv = np.ones((1, 3), np.float32)
    k, b = K.batch_get_value(inner.weights)
    np.testing.assert_allclose(K.get_session().run(y, {x: xv}), xv @ k + b, rtol=1e-6)
    with pytest.raises(ValueError, match="Keras layer"):
        L.Wrapper("dense")


def test_dense_features_matches_input_layer():
    cols = [tf.feature_column.numeric_column("a", shape=(2,)),
            tf.feature_column.numeric_column("b")]
    feats = {"a": tf.constant([[1.0, 2.0], [3.0, 4.0]]), "b": tf.constant([[5.0], [6.0]])}
    out = L.DenseFeatures(cols)(feats)
    np.testing.assert_array_equal(K.eval(out), [[1, 2, 5], [3, 4, 6]])
    with pytest.raises(ValueError, match="dict"):
        L.DenseFeatures(cols)(tf.constant([1.0]))


def test_v2_dtype_behavior_casts_inputs():
    x = tf.placeholder(tf.float64, [None, 2])
    L.enable_v2_dtype_behavior()
    y = L.Dense(1)(x)
    assert y.dtype == tf.float32
    L.disable_v2_dtype_behavior()
    with pytest.raises(TypeError):
        L.Dense(1)(x)


def test_random_fourier_features_approximate_the_gaussian_kernel():
    rng = np.random.RandomState(0)
    xv = rng.randn(4, 3).astype(np.float32) * 0.5
    x = keras.Input(shape=(3,))
    rff = L.experimental.RandomFourierFeatures(4000, scale=1.0)
    y = rff(x)
    assert [w.trainable for w in [rff.unscaled_kernel, rff.bias, rff.kernel_scale]] == \
        [False, False, False]
    z = K.get_session().run(y, {x: xv})
    approx = z @ z.T
    exact = np.exp(-((xv[:, None] - xv[None]) ** 2).sum(-1) / 2)
    np.testing.assert_allclose(approx, exact, atol=0.06)
    with pytest.raises(ValueError, match="kernel_initializer"):
        L.experimental.RandomFourierFeatures(4, kernel_initializer="cauchy")


def test_short_aliases_are_the_same_classes():
    assert L.Convolution3D is L.Conv3D and L.AvgPool3D is L.AveragePooling3D
    assert L.SeparableConvolution1D is L.SeparableConv1D
    assert L.GlobalMaxPool3D is L.GlobalMaxPooling3D
    assert L.experimental.preprocessing.Normalization is L.Normalization
