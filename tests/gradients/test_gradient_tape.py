"""tf.GradientTape in graph mode: only recorded ops are differentiated, only watched
sources get gradients; values as TensorFlow 2.21's tf.compat.v1 graph mode gives them."""

import numpy as np
import pytest

import tensorfleet as tf


def _run(fetches, feed=None):
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        return s.run(fetches, feed)


def test_recorded_ops_only_and_watched_sources():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])
        v = tf.Variable([1., 2., 3.])
        w = tf.Variable(2.0, trainable=False)
        pre = x * 2.          # before the tape: a constant to it
        with tf.GradientTape(persistent=True) as t:
            t.watch(x)
            y = tf.reduce_sum(pre * x * v) + w * w
            with t.stop_recording():
                z = x * x
            y2 = tf.reduce_sum(z * x)
        assert [a.name for a in t.watched_variables()] == ["Variable:0"]
        gx, gv, gw, gpre = t.gradient(y, [x, v, w, pre])
        assert gw is None and gpre is None  # not trainable / not watched
        g2 = t.gradient(y2, x)
        zeros = t.gradient(y2, v, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        out = _run([gx, gv, g2, zeros], {x: [1., 2., 3.]})
    np.testing.assert_allclose(out[0], [2., 8., 18.])   # tf.gradients would give 4x*v
    np.testing.assert_allclose(out[1], [2., 8., 18.])
    np.testing.assert_allclose(out[2], [1., 4., 9.])    # z = x*x counts as a constant
    np.testing.assert_allclose(out[3], [0., 0., 0.])


def test_jacobians_and_structures():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])
        pre = x * 2.
        with tf.GradientTape(persistent=True) as t:
            t.watch(x)
            y3 = pre * x * x
            total = tf.reduce_sum(y3)
            m = tf.reshape(x, [1, 3]) * tf.constant([[1.], [2.]])
        j = t.jacobian(y3, x)
        jm = t.jacobian(m, x)
        grads = t.gradient({"a": total}, {"x": x, "also": [x]})
        # A target computed after the tape is not on it: no gradient.
        assert t.gradient(tf.reduce_sum(y3), x) is None
        bx = tf.reshape(x, [3, 1])
        with tf.GradientTape() as t2:
            t2.watch(bx)
            bb = bx * tf.constant([[1., 2.]])
        bj = t2.batch_jacobian(bb, bx)
        out = _run([j, jm, grads, bj], {x: [1., 2., 3.]})
    np.testing.assert_allclose(out[0], np.diag([4., 16., 36.]))
    assert out[1].shape == (2, 3, 3)
    np.testing.assert_allclose(out[1][1], 2 * np.eye(3))
    np.testing.assert_allclose(out[2]["x"], [4., 16., 36.])
    np.testing.assert_allclose(out[2]["also"][0], [4., 16., 36.])
    np.testing.assert_allclose(out[3], np.tile([[[1.], [2.]]], (3, 1, 1)))


def test_non_persistent_tape_is_used_once_and_bad_arguments_fail():
    with tf.Graph().as_default():
        x = tf.constant([1., 2.])
        with tf.GradientTape() as t:
            t.watch(x)
            y = x * x
        t.gradient(y, x)
        with pytest.raises(RuntimeError, match="non-persistent"):
            t.gradient(y, x)
        with tf.GradientTape(persistent=True) as t:
            t.watch(x)
            y = x * x
        with pytest.raises(ValueError, match="unconnected_gradients"):
            t.gradient(y, x, unconnected_gradients="bad")
        with pytest.raises(ValueError, match="not tf.Tensor"):
            t.watch("x")
        c = tf.constant(3.0)
        with tf.GradientTape() as t:
            q = c * c
        assert t.gradient(q, c) is None


def test_nested_tapes_give_second_derivatives():
    with tf.Graph().as_default():
        x = tf.constant(3.0)
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = x * x * x
            dy = inner.gradient(y, x)
        d2y = outer.gradient(dy, x)
        assert _run([dy, d2y]) == [27.0, 18.0]
