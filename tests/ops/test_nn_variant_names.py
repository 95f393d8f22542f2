"""``tf.conv2d_backprop_*_v2``, ``tf.nn.depthwise_conv2d_backprop_*``,
``tf.nn.atrous_conv2d_transpose``, ``tf.nn.conv3d_backprop_filter_v2`` (each the adjoint or
gradient of its forward convolution, checked through the gradient it equals or the inner
product it preserves) and ``tf.nn.experimental.stateless_dropout`` / ``general_dropout``."""

import numpy as np
import pytest

import tensorfleet as tf

RNG = np.random.RandomState(0)


def _run(*ts):
    with tf.Session() as s:
        return s.run(list(ts))


def test_conv2d_backprops_v2_equal_the_gradients():
    x = tf.constant(RNG.randn(1, 5, 5, 2))
    f = tf.constant(RNG.randn(3, 3, 2, 4))
    y = tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME")
    dy = tf.constant(RNG.randn(1, 5, 5, 4))
    gx, gf = tf.gradients(y, [x, f], dy)
    out = _run(gx, gf, tf.conv2d_backprop_input_v2(x, f, dy, [1, 1, 1, 1], "SAME"),
               tf.conv2d_backprop_filter_v2(x, f, dy, [1, 1, 1, 1], "SAME"))
    np.testing.assert_allclose(out[2], out[0], rtol=1e-10)
    np.testing.assert_allclose(out[3], out[1], rtol=1e-10)


def test_depthwise_backprops_and_conv3d_filter_v2():
    x = tf.constant(RNG.randn(1, 4, 4, 2))
    f = tf.constant(RNG.randn(2, 2, 2, 3))
    y = tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "VALID")
    dy = tf.constant(RNG.randn(1, 3, 3, 6))
    gx, gf = tf.gradients(y, [x, f], dy)
    out = _run(gx, gf, tf.nn.depthwise_conv2d_backprop_input([1, 4, 4, 2], f, dy, [1, 1, 1, 1],
                                                             "VALID"),
               tf.nn.depthwise_conv2d_backprop_filter(x, [2, 2, 2, 3], dy, [1, 1, 1, 1],
                                                      "VALID"))
    np.testing.assert_allclose(out[2], out[0], rtol=1e-10)
    np.testing.assert_allclose(out[3], out[1], rtol=1e-10)
    assert tf.nn.depthwise_conv2d_native_backprop_input is \
        tf.nn.depthwise_conv2d_backprop_input
    v = tf.constant(RNG.randn(1, 3, 3, 3, 1))
    k = tf.constant(RNG.randn(2, 2, 2, 1, 2))
    y3 = tf.nn.conv3d(v, k, [1, 1, 1, 1, 1], "VALID")
    d3 = tf.constant(RNG.randn(1, 2, 2, 2, 2))
    g3, = tf.gradients(y3, [k], d3)
    want, got = _run(g3, tf.nn.conv3d_backprop_filter_v2(v, [2, 2, 2, 1, 2], d3,
                                                         [1, 1, 1, 1, 1], "VALID"))
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_atrous_conv2d_transpose_is_the_adjoint():
    # One filter [h, w, 2, 3]: the forward map takes 2 channels to 3, the transpose 3 to 2.
    f = RNG.randn(3, 3, 2, 3)
    y = RNG.randn(1, 7, 7, 2)
    fwd = tf.nn.atrous_conv2d(tf.constant(y), tf.constant(f), 2, "SAME")
    back = tf.nn.atrous_conv2d_transpose(tf.constant(RNG.randn(1, 7, 7, 3)), tf.constant(f),
                                         [1, 7, 7, 2], 2, "SAME")
    z = RNG.randn(1, 7, 7, 3)
    back_z = tf.nn.atrous_conv2d_transpose(tf.constant(z), tf.constant(f), [1, 7, 7, 2], 2,
                                           "SAME")
    a, b, _ = _run(fwd, back_z, back)
    np.testing.assert_allclose(np.sum(a * z), np.sum(y * b), rtol=1e-10)
    with pytest.raises(ValueError, match="rate"):
        tf.nn.atrous_conv2d_transpose(tf.constant(z), tf.constant(f), [1, 7, 7, 2], 0, "SAME")


def test_dropout_variants():
    x = tf.ones([4000])
    a = tf.nn.experimental.stateless_dropout(x, 0.25, seed=[1, 2])
    b = tf.nn.experimental.stateless_dropout(x, 0.25, seed=[1, 2])
    c = tf.nn.experimental.general_dropout(
        x, 0.5, uniform_sampler=lambda shape, dtype: tf.random_uniform(shape, dtype=dtype,
                                                                       seed=3))
    va, vb, vc = _run(a, b, c)
    np.testing.assert_array_equal(va, vb)
    assert set(np.unique(va)) <= {0.0, np.float32(1 / 0.75)}
    assert abs((va == 0).mean() - 0.25) < 0.03 and abs((vc == 0).mean() - 0.5) < 0.03
    with pytest.raises(ValueError, match="rate"):
        tf.nn.experimental.stateless_dropout(x, 1.0, seed=[1, 2])
