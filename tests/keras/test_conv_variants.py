"""Keras convolution variants, 3-D pooling, cropping/padding/upsampling and locally
connected layers against numpy; one training step for a trainable one."""

import numpy as np
import pytest

import tensorfleet as tf
from tests.keras.numpy_reference import conv_nd, conv_transpose_nd, depthwise_nd

keras = tf.keras
K = keras.backend


@pytest.fixture(autouse=True)
def _keras_session():
    yield
    K.clear_session()


def _apply(layer, xv):
    x = keras.Input(shape=xv.shape[1:])
    y = layer(x)
    return K.get_session().run(y, {x: xv}), K.batch_get_value(layer.weights)


@pytest.mark.parametrize("padding,strides", [("valid", 1), ("same", 2)])
def test_conv3d_and_1d_transpose_and_3d_transpose(padding, strides):
    rng = np.random.RandomState(0)
    x3 = rng.randn(2, 4, 5, 4, 2).astype(np.float32)
    out, (k, b) = _apply(keras.layers.Conv3D(3, 2, strides=strides, padding=padding,
                                             bias_initializer="ones"), x3)
    np.testing.assert_allclose(out, conv_nd(x3, k, (strides,) * 3, padding) + b, atol=1e-4)
    x1 = rng.randn(2, 5, 3).astype(np.float32)
    out, (k, b) = _apply(keras.layers.Conv1DTranspose(2, 3, strides=strides, padding=padding),
                         x1)
    assert k.shape == (3, 2, 3)
    np.testing.assert_allclose(out, conv_transpose_nd(x1, k, (strides,), padding) + b,
                               atol=1e-4)
    x3 = rng.randn(1, 2, 3, 2, 2).astype(np.float32)
    out, (k, b) = _apply(keras.layers.Conv3DTranspose(2, 2, strides=strides, padding=padding),
                         x3)
    np.testing.assert_allclose(out, conv_transpose_nd(x3, k, (strides,) * 3, padding) + b,
                               atol=1e-4)


def test_depthwise_and_separable_against_numpy():
    rng = np.random.RandomState(1)
    x2 = rng.randn(2, 5, 5, 3).astype(np.float32)
    layer = keras.layers.DepthwiseConv2D(3, depth_multiplier=2, padding="same")
    out, (k, b) = _apply(layer, x2)
    assert [w.name for w in layer.weights] == ["depthwise_conv2d/depthwise_kernel:0",
                                               "depthwise_conv2d/bias:0"]
    np.testing.assert_allclose(out, depthwise_nd(x2, k, (1, 1), "same") + b, atol=1e-4)
    x1 = rng.randn(2, 6, 2).astype(np.float32)
    out, (k, b) = _apply(keras.layers.DepthwiseConv1D(3, strides=1), x1)
    np.testing.assert_allclose(out, depthwise_nd(x1, k, (1,), "valid") + b, atol=1e-4)
    out, (dk, pk, b) = _apply(keras.layers.SeparableConv1D(4, 3, depth_multiplier=2), x1)
    ref = conv_nd(depthwise_nd(x1, dk, (1,), "valid"), pk, (1,), "valid") + b
    np.testing.assert_allclose(out, ref, atol=1e-4)


def test_conv3d_trains_one_step():
    rng = np.random.RandomState(2)
    model = keras.Sequential([keras.layers.Conv3D(2, 2, input_shape=(3, 3, 3, 1)),
                              keras.layers.GlobalAveragePooling3D()])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    xv, yv = rng.randn(4, 3, 3, 3, 1).astype(np.float32), rng.randn(4, 2).astype(np.float32)
    before = model.get_weights()
    loss0 = model.train_on_batch(xv, yv)
    assert not np.allclose(before[0], model.get_weights()[0])
    assert model.test_on_batch(xv, yv) < loss0


def test_pooling3d_and_global_pools():
    rng = np.random.RandomState(3)
    xv = rng.randn(2, 4, 4, 4, 3).astype(np.float32)
    x = keras.Input(shape=(4, 4, 4, 3))
    ys = [keras.layers.MaxPooling3D()(x), keras.layers.AveragePooling3D()(x),
          keras.layers.GlobalMaxPooling3D()(x), keras.layers.GlobalAvgPool3D()(x)]
    mx, av, gm, ga = K.get_session().run(ys, {x: xv})
    blocks = xv.reshape(2, 2, 2, 2, 2, 2, 2, 3)
    np.testing.assert_allclose(mx, blocks.max(axis=(2, 4, 6)), rtol=1e-6)
    np.testing.assert_allclose(av, blocks.mean(axis=(2, 4, 6)), rtol=1e-5)
    np.testing.assert_allclose(gm, xv.max(axis=(1, 2, 3)), rtol=1e-6)
    np.testing.assert_allclose(ga, xv.mean(axis=(1, 2, 3)), rtol=1e-5)


def test_cropping_padding_upsampling():
    rng = np.random.RandomState(4)
    x1 = rng.randn(2, 6, 3).astype(np.float32)
    x2 = rng.randn(2, 5, 6, 2).astype(np.float32)
    x3 = rng.randn(1, 3, 4, 5, 2).astype(np.float32)
    run = lambda layer, xv: _apply(layer, xv)[0]  # noqa: E731
    np.testing.assert_array_equal(run(keras.layers.Cropping1D((1, 2)), x1), x1[:, 1:4])
    np.testing.assert_array_equal(run(keras.layers.Cropping2D(((1, 0), (2, 1))), x2),
                                  x2[:, 1:, 2:5])
    np.testing.assert_array_equal(run(keras.layers.Cropping3D(1), x3), x3[:, 1:2, 1:3, 1:4])
    np.testing.assert_array_equal(run(keras.layers.ZeroPadding1D(2), x1),
                                  np.pad(x1, [(0, 0), (2, 2), (0, 0)]))
    np.testing.assert_array_equal(run(keras.layers.ZeroPadding3D(((1, 0), (0, 2), (1, 1))), x3),
                                  np.pad(x3, [(0, 0), (1, 0), (0, 2), (1, 1), (0, 0)]))
    np.testing.assert_array_equal(run(keras.layers.UpSampling1D(3), x1), x1.repeat(3, axis=1))
    np.testing.assert_array_equal(run(keras.layers.UpSampling3D((1, 2, 2)), x3),
                                  x3.repeat(2, axis=2).repeat(2, axis=3))
    with pytest.raises(ValueError, match="removes all"):
        run(keras.layers.Cropping1D((3, 3)), x1)
    with pytest.raises(ValueError, match="pairs"):
        keras.layers.ZeroPadding3D((1, 2))


def test_locally_connected_against_numpy():
    rng = np.random.RandomState(5)
    x1 = rng.randn(2, 5, 3).astype(np.float32)
    out, (k, b) = _apply(keras.layers.LocallyConnected1D(2, 3, strides=1), x1)
    assert k.shape == (3, 9, 2) and b.shape == (3, 2)
    ref = np.stack([x1[:, i:i + 3].reshape(2, -1) @ k[i] for i in range(3)], 1) + b
    np.testing.assert_allclose(out, ref, atol=1e-5)
    x2 = rng.randn(2, 4, 4, 2).astype(np.float32)
    out, (k, b) = _apply(keras.layers.LocallyConnected2D(3, 2, strides=2), x2)
    assert k.shape == (4, 8, 3)
    ref = np.zeros((2, 2, 2, 3))
    for i in range(2):
        for j in range(2):
            ref[:, i, j] = x2[:, 2 * i:2 * i + 2, 2 * j:2 * j + 2].reshape(2, -1) @ k[i * 2 + j]
    np.testing.assert_allclose(out, ref + b, atol=1e-5)


def test_unsupported_arguments_raise():
    with pytest.raises(ValueError, match="output_padding"):
        keras.layers.Conv3DTranspose(2, 2, output_padding=1)
    with pytest.raises(ValueError, match="groups"):
        keras.layers.Conv3D(2, 2, groups=2)
    with pytest.raises(ValueError, match="channels_last"):
        keras.layers.DepthwiseConv2D(3, data_format="channels_first")
    with pytest.raises(ValueError, match="padding='valid'"):
        keras.layers.LocallyConnected1D(2, 3, padding="same")
