"""End-to-end checks of the core path: build a graph, run it in a local session."""

import collections

import numpy as np
import pytest

import tensorfleet as tf


def test_hello_constant_string():
    c = tf.constant("Hello, distributed TensorFlow!")
    with tf.Session() as sess:
        assert sess.run(c) == b"Hello, distributed TensorFlow!"


def test_nested_fetches_and_feeds():
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.add(x, x)
    Pair = collections.namedtuple("Pair", "a b")
    with tf.Session() as sess:
        out = sess.run({"y": [y, (x,)], "p": Pair(y, x)}, {x: [1, 2]})
    np.testing.assert_allclose(out["y"][0], [2, 4])
    np.testing.assert_allclose(out["y"][1][0], [1, 2])
    assert isinstance(out["p"], Pair)


def test_wrong_feed_shape_names_tensor():
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.Session() as sess:
        with pytest.raises(ValueError, match=r"shape \(3,\).*'x:0'"):
            sess.run(x, {x: [1, 2, 3]})


def test_unfed_placeholder_is_invalid_argument():
    x = tf.placeholder(tf.float32, [2], name="needs_feed")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="needs_feed"):
            sess.run(x)


def test_fetch_from_other_graph_rejected():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1.0)
    with tf.Session() as sess:
        with pytest.raises(ValueError):
            sess.run(c)


def test_closed_session_raises():
    sess = tf.Session()
    sess.close()
    with pytest.raises(RuntimeError, match="closed"):
        sess.run(tf.constant(1))
