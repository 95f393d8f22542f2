"""``tf.py_function``, ``tf.vectorized_map``, ``tf.recompute_grad``,
``tf.grad_pass_through``; ``tf.get_static_value``, ``tf.is_symbolic_tensor`` and the
small top-level switches."""

import logging

import numpy as np
import pytest

import tensorfleet as tf


def test_wrappers_compute_and_differentiate():
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0, 3.0])
        doubled = tf.py_function(lambda a: a.numpy() * 2, [x], tf.float32)
        squares = tf.vectorized_map(lambda t: t * t, x)
        rounded = tf.grad_pass_through(tf.round)(x * 1.3)
        (g_round,) = tf.gradients(tf.reduce_sum(rounded), x)
        sines = tf.recompute_grad(tf.sin)(x)
        (g_sin,) = tf.gradients(tf.reduce_sum(sines), x)
        with tf.Session() as sess:
            d, s, r, gr, gs = sess.run([doubled, squares, rounded, g_round, g_sin])
    assert d.tolist() == [2, 4, 6] and s.tolist() == [1, 4, 9] and r.tolist() == [1, 3, 4]
    np.testing.assert_allclose(gr, [1.3, 1.3, 1.3], rtol=1e-6)
    np.testing.assert_allclose(gs, np.cos([1.0, 2.0, 3.0]), rtol=1e-6)
    with pytest.raises(ValueError, match="fallback_to_while_loop=False"):
        tf.vectorized_map(tf.sin, [1.0], fallback_to_while_loop=False)


def test_static_values():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None, 3])
        assert tf.get_static_value(tf.constant([1, 2])).tolist() == [1, 2]
        assert tf.get_static_value(tf.shape(tf.zeros([2, 3]))).tolist() == [2, 3]
        assert tf.get_static_value(tf.shape(p)) is None
        assert tf.get_static_value(tf.shape(p), partial=True).tolist() == [-1, 3]
        assert tf.get_static_value(tf.rank(p)) == 2 and tf.get_static_value(tf.size(p)) is None
        stacked = tf.stack([tf.cast(tf.constant(2), tf.float32), 5.0])
        assert tf.get_static_value(stacked).tolist() == [2.0, 5.0]
        assert tf.get_static_value(p * 2) is None
        assert tf.get_static_value([3, 4]).tolist() == [3, 4]
        assert tf.is_symbolic_tensor(p) and not tf.is_symbolic_tensor(np.ones(2))


def test_switches_and_logger(caplog):
    assert not tf.executing_eagerly_outside_functions()
    tf.disable_tensor_equality()
    with pytest.raises(RuntimeError, match="tf.equal"):
        tf.enable_tensor_equality()
    # tf.logging writes through the logger get_logger returns.
    with caplog.at_level(logging.ERROR):
        tf.logging.error("through tf.logging")
    assert [r.name for r in caplog.records if "through tf.logging" in r.getMessage()] == \
        [tf.get_logger().name]
    assert tf.get_logger() is logging.getLogger(tf.get_logger().name)
    assert tf.TensorInfo is tf.saved_model.TensorInfo
