"""tf.layers.SeparableConv1D / separable_conv1d and tf.layers.InputSpec checks; values
from TensorFlow 2.21's tf.compat.v1.layers (tf_keras)."""

import numpy as np
import pytest

import tensorfleet as tf


def test_separable_conv1d_matches_tensorflow():
    x = np.arange(2 * 7 * 3, dtype=np.float32).reshape(2, 7, 3) / 10
    with tf.Graph().as_default():
        y = tf.layers.separable_conv1d(
            tf.constant(x), 4, 3, strides=2, padding="same", depth_multiplier=2,
            depthwise_initializer=tf.constant_initializer(np.arange(18).reshape(3, 3, 2) / 10.),
            pointwise_initializer=tf.constant_initializer(np.arange(24).reshape(1, 6, 4) / 10.),
            bias_initializer=tf.constant_initializer(0.5), activation=tf.nn.relu)
        layer = tf.layers.SeparableConv1D(2, 2, dilation_rate=2,
                                          depthwise_initializer=tf.ones_initializer(),
                                          pointwise_initializer=tf.ones_initializer())
        z = layer(tf.constant(x))
        assert [(v.name, v.shape.as_list()) for v in tf.global_variables()] == [
            ("separable_conv1d/depthwise_kernel:0", [3, 3, 2]),
            ("separable_conv1d/pointwise_kernel:0", [1, 6, 4]),
            ("separable_conv1d/bias:0", [4]),
            ("separable_conv1d_1/depthwise_kernel:0", [2, 3, 1]),
            ("separable_conv1d_1/pointwise_kernel:0", [1, 3, 2]),
            ("separable_conv1d_1/bias:0", [2])]
        assert y.shape.as_list() == [2, 4, 4] and z.shape.as_list() == [2, 5, 2]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            a, b = s.run([y, z])
    assert a.sum() == pytest.approx(1121.78, rel=1e-5)
    np.testing.assert_allclose(a.reshape(-1)[:5], [5.736, 6.151, 6.566, 6.981, 15.896],
                               rtol=1e-5)
    assert b.sum() == pytest.approx(246.0, rel=1e-5)
    np.testing.assert_allclose(b.reshape(-1)[:4], [2.4, 2.4, 4.2, 4.2], rtol=1e-5)


def test_input_spec_is_checked_on_call():
    with tf.Graph().as_default():
        layer = tf.layers.Dense(2)
        layer.input_spec = tf.layers.InputSpec(ndim=2, axes={-1: 3})
        layer(tf.zeros([4, 3]))
        with pytest.raises(ValueError, match="axis -1 of size 3"):
            layer(tf.zeros([4, 2]))
        with pytest.raises(ValueError, match="ndim=2"):
            layer(tf.zeros([4, 1, 3]))
