"""tf.random.stateless_*: a seed gives the same values in every run and graph, another
seed others; the distributions' moments match."""

import numpy as np
import pytest

import tensorfleet as tf


def run(t):
    with tf.Session() as s:
        return s.run(t)


def test_same_seed_same_values_across_graphs():
    fns = [lambda s: tf.random.stateless_uniform([1000], s),
           lambda s: tf.random.stateless_normal([1000], s, mean=2.0, stddev=3.0),
           lambda s: tf.random.stateless_truncated_normal([1000], s),
           lambda s: tf.random.stateless_uniform([1000], s, 0, 7, dtype=tf.int64),
           lambda s: tf.random.stateless_categorical([[0.0, np.log(3.0)]], 1000, s)]
    first = run([f([1, 2]) for f in fns])
    with tf.Graph().as_default():
        again = run([f(tf.constant([1, 2], tf.int64)) for f in fns])
        other = run([f([1, 3]) for f in fns])
    for a, b, c in zip(first, again, other):
        np.testing.assert_array_equal(a, b)
        assert not np.array_equal(a, c)
    u, z, t, i, c = first
    assert 0 <= u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 0.05
    assert abs(z.mean() - 2.0) < 0.3 and abs(z.std() - 3.0) < 0.3
    assert np.abs(t).max() <= 2.0
    assert set(i.tolist()) == set(range(7))
    assert abs(c.mean() - 0.75) < 0.05 and c.dtype == np.int64


def test_stateless_errors():
    with pytest.raises(ValueError, match="shape \\[2\\]"):
        tf.random.stateless_uniform([2], [1, 2, 3])
    with pytest.raises(TypeError, match="int32 or int64"):
        tf.random.stateless_normal([2], [1.0, 2.0])
    with pytest.raises(ValueError, match="maxval"):
        tf.random.stateless_uniform([2], [1, 2], dtype=tf.int32)
    with pytest.raises(ValueError, match="float"):
        tf.random.stateless_normal([2], [1, 2], dtype=tf.int32)
