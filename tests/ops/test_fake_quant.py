"""``tf.fake_quant_with_min_max_*``: values against TensorFlow's nudged quantization
(figures from TensorFlow 2.21 for the same inputs) and the straight-through gradients."""

import numpy as np
import pytest

import tensorfleet as tf

X = np.array([-7.0, -6, -3.3, -0.01, 0, 0.02, 2.9, 5.99, 6, 8], np.float32)


def _run(*ts):
    with tf.Session() as s:
        return s.run(list(ts))


def test_quantized_values_match_tensorflow():
    a, narrow, vars_ = _run(
        tf.fake_quant_with_min_max_args(X, -6.0, 6.0, 8),
        tf.fake_quant_with_min_max_args(X, -6.0, 6.0, 4, narrow_range=True),
        tf.fake_quant_with_min_max_vars(X, tf.constant(-0.3), tf.constant(5.1)))
    np.testing.assert_allclose(a, [-6.0235295, -5.9764705, -3.2941177, 0, 0, 0, 2.9176471,
                                   5.9764705, 5.9764705, 5.9764705], rtol=1e-6)
    np.testing.assert_allclose(narrow, [-6, -6, -3.4285715, 0, 0, 0, 2.5714285, 6, 6, 6],
                               rtol=1e-6)
    np.testing.assert_allclose(vars_, [-0.29647058, -0.29647058, -0.29647058, 0, 0,
                                       0.02117647, 2.9011765, 5.1035295, 5.1035295,
                                       5.1035295], rtol=1e-6)


def test_straight_through_gradients():
    x = tf.constant(X)
    lo, hi = tf.constant(-0.3), tf.constant(5.1)
    y = tf.fake_quant_with_min_max_vars(x, lo, hi)
    loss = tf.reduce_sum(y * np.arange(10, dtype=np.float32))
    gx, glo, ghi = _run(*tf.gradients(loss, [x, lo, hi]))
    np.testing.assert_array_equal(gx, [0, 0, 0, 3, 4, 5, 6, 0, 0, 0])
    assert glo == 3.0 and ghi == 24.0
    g_args, = _run(tf.gradients(tf.reduce_sum(tf.fake_quant_with_min_max_args(x)), x)[0])
    # The nudged range of [-6, 6] at 8 bits is [-6.0235, 5.9765].
    np.testing.assert_array_equal(g_args, [0, 1, 1, 1, 1, 1, 1, 0, 0, 0])


def test_per_channel():
    x = np.array([[-1.0, 0.5], [2.0, 3.0]], np.float32)
    lo, hi = np.array([-1.0, 0.0], np.float32), np.array([1.0, 2.0], np.float32)
    y, (dx, dlo, dhi) = _run(tf.fake_quant_with_min_max_vars_per_channel(x, lo, hi),
                             tf.fake_quant_with_min_max_vars_per_channel_gradient(
                                 np.ones_like(x), x, lo, hi))
    for c in range(2):
        col, = _run(tf.fake_quant_with_min_max_vars(x[:, c], lo[c], hi[c]))
        np.testing.assert_allclose(y[:, c], col)
    # As TensorFlow 2.21 gives: channel 0's nudged minimum lies just above -1.
    np.testing.assert_array_equal(dx, [[0, 1], [0, 0]])
    np.testing.assert_array_equal(dhi, [1.0, 1.0])
    np.testing.assert_array_equal(dlo, [1.0, 0.0])
    with pytest.raises(ValueError, match="num_bits"):
        tf.fake_quant_with_min_max_args(X, num_bits=1)
