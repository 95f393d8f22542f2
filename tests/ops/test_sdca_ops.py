"""tf.train.sdca_fprint and sdca_shrink_l1 against TensorFlow 2.21's values."""

import numpy as np
import pytest

import tensorfleet as tf


def test_sdca_fprint_is_tensorflows_fingerprint128():
    with tf.Graph().as_default():
        fp = tf.train.sdca_fprint(tf.constant(["a", "hello", ""]))
        assert fp.shape.as_list() == [3, 2]
        with tf.Session() as sess:
            got = sess.run(fp)
    # tf.compat.v1.train.sdca_fprint(["a", "hello", ""]) in TensorFlow 2.21.
    np.testing.assert_array_equal(got, [[7969074168056553668, 5955762262185338209],
                                        [8030732511675000650, 7283604105673962311],
                                        [4463240938071824939, 4374473821787594281]])
    assert got.dtype == np.int64


def test_sdca_shrink_l1_in_place():
    with tf.Graph().as_default():
        w = tf.Variable([3.0, -0.5, 1.0, -2.0])
        w2 = tf.Variable([[0.2, -4.0]])
        op = tf.train.sdca_shrink_l1([w, w2], l1=1.0, l2=2.0)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(op)
            got, got2 = sess.run([w, w2])
    # TensorFlow 2.21 (reference variables, graph mode).
    np.testing.assert_allclose(got, [2.5, 0.0, 0.5, -1.5])
    np.testing.assert_allclose(got2, [[0.0, -3.5]])


def test_errors():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="mutable tensor"):
            tf.train.sdca_shrink_l1([tf.constant(1.0)], 1.0, 1.0)
        with pytest.raises(ValueError, match="l2 must be positive"):
            tf.train.sdca_shrink_l1([tf.Variable(1.0)], 1.0, 0.0)
        with pytest.raises(TypeError, match="type int32"):
            tf.train.sdca_fprint(tf.constant([1, 2]))
        with pytest.raises(ValueError, match="vector of strings"):
            tf.train.sdca_fprint(tf.constant([["a"]]))
