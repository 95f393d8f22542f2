"""tf.nn.quantized_avg_pool / quantized_max_pool / quantized_conv2d; values and output
ranges from TensorFlow 2.21's tf.compat.v1."""

import numpy as np
import pytest

import tensorfleet as tf

X = np.array([[0, 10, 200, 255], [1, 2, 3, 4], [50, 60, 70, 80], [90, 100, 110, 120]],
             np.uint8).reshape(1, 4, 4, 1)


def _run(make):
    with tf.Graph().as_default():
        x = tf.constant(X, tf.quint8)
        out = make(x, tf.constant(-1.0), tf.constant(3.0))
        with tf.Session() as s:
            return s.run(out)


def test_quantized_pools_keep_the_range():
    avg = _run(lambda x, lo, hi: tf.nn.quantized_avg_pool(x, lo, hi, [1, 2, 2, 1],
                                                          [1, 2, 2, 1], "VALID"))
    assert avg[0].dtype == np.uint8
    assert avg[0].reshape(-1).tolist() == [3, 116, 75, 95] and list(avg[1:]) == [-1.0, 3.0]
    same = _run(lambda x, lo, hi: tf.nn.quantized_avg_pool(x, lo, hi, [1, 3, 3, 1],
                                                           [1, 2, 2, 1], "SAME"))
    assert same[0].reshape(-1).tolist() == [44, 102, 80, 95]
    mx = _run(lambda x, lo, hi: tf.nn.quantized_max_pool(x, lo, hi, [1, 2, 2, 1],
                                                         [1, 1, 1, 1], "SAME"))
    assert mx[0].reshape(-1).tolist() == [10, 200, 255, 255, 60, 70, 80, 80, 100, 110, 120,
                                          120, 100, 110, 120, 120]


def test_quantized_conv2d_offsets_and_range():
    f1 = np.arange(8, dtype=np.uint8).reshape(2, 2, 1, 2) * 30
    out = _run(lambda x, lo, hi: tf.nn.quantized_conv2d(
        x, tf.constant(f1, tf.quint8), lo, hi, tf.constant(0.0), tf.constant(2.0),
        [1, 1, 1, 1], "VALID"))
    assert out[0].dtype == np.int32
    assert out[0].reshape(-1).tolist() == [-21960, -29250, -10260, -11490, -6660, -480,
                                           -6120, -10410, -3060, -6690, 0, -2970, 9360,
                                           10680, 12960, 15480, 16560, 20280]
    assert list(out[1:]) == [np.float32(-264204.09375), np.float32(264204.09375)]
    f2 = np.arange(18, dtype=np.uint8).reshape(3, 3, 1, 2) * 10
    out = _run(lambda x, lo, hi: tf.nn.quantized_conv2d(
        x, tf.constant(f2, tf.quint8), lo, hi, tf.constant(-0.5), tf.constant(2.0),
        [1, 2, 2, 1], "SAME"))
    assert out[0].reshape(-1).tolist() == [-2580, -4380, -13308, -11028, 4304, 5264, 1236,
                                           2476]
    assert list(out[1:]) == [np.float32(-330255.125), np.float32(330255.125)]
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="dilations"):
            tf.nn.quantized_conv2d(tf.constant(X, tf.quint8), tf.constant(f1, tf.quint8),
                                   -1., 3., 0., 2., [1, 1, 1, 1], "VALID",
                                   dilations=[1, 2, 2, 1])
        with pytest.raises(TypeError, match="quint8 or qint8"):
            tf.nn.quantized_max_pool(tf.constant(X.astype(np.float32)), -1., 3.,
                                     [1, 2, 2, 1], [1, 1, 1, 1], "SAME")
