"""Session.partial_run_setup / partial_run: a step in pieces, each op run once."""

import numpy as np
import pytest

import tensorfleet as tf


def test_partial_run_feeds_and_fetches_in_pieces():
    a = tf.placeholder(tf.float32, shape=[])
    b = tf.placeholder(tf.float32, shape=[])
    c = tf.placeholder(tf.float32, shape=[])
    r1 = tf.add(a, b)
    r2 = tf.multiply(r1, c)
    with tf.Session() as sess:
        h = sess.partial_run_setup([r1, r2], [a, b, c])
        assert sess.partial_run(h, r1, feed_dict={a: 1, b: 2}) == 3.0
        assert sess.partial_run(h, r2, feed_dict={c: 4.0}) == 12.0
        h2 = sess.partial_run_setup([r1, r2], [a, b, c])
        out = sess.partial_run(h2, {"sum": r1}, feed_dict={a: 5, b: 6})
        assert out == {"sum": 11.0}
        assert sess.partial_run(h2, [r2], feed_dict={c: 2.0}) == [22.0]


def test_partial_run_runs_a_stateful_op_once():
    v = tf.Variable(0.0)
    inc = tf.assign_add(v, 1.0)
    x = tf.placeholder(tf.float32, [])
    first = inc * 2.0
    second = inc * x
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        h = sess.partial_run_setup([first, second], [x])
        assert sess.partial_run(h, first) == 2.0
        assert sess.partial_run(h, second, feed_dict={x: 10.0}) == 10.0
        assert sess.run(v) == 1.0


def test_partial_run_errors():
    a = tf.placeholder(tf.float32, [])
    b = tf.placeholder(tf.float32, [])
    s = a + b
    other = a * 2.0
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="setup"):
            sess.partial_run("nope", s)
        h = sess.partial_run_setup([s], [a, b])
        with pytest.raises(tf.errors.InvalidArgumentError, match="not specified"):
            sess.partial_run(h, other, feed_dict={a: 1.0})
        with pytest.raises(tf.errors.InvalidArgumentError, match="must feed"):
            sess.partial_run(h, s, feed_dict={a: 1.0})
        assert sess.partial_run(h, s, feed_dict={a: 1.0, b: 2.0}) == 3.0
        with pytest.raises(tf.errors.InvalidArgumentError, match="already"):
            sess.partial_run(h, s)
        h2 = sess.partial_run_setup([s], [a])
        with pytest.raises(tf.errors.InvalidArgumentError, match="not specified"):
            sess.partial_run(h2, s, feed_dict={b: 1.0})
        np.testing.assert_equal(sess.run(s, {a: 1.0, b: 1.0}), 2.0)
