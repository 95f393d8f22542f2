"""Sorted and unsorted segment reductions against numpy loops, with numerical gradients."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

R = np.random.RandomState(8)
SORTED = {"sum": tf.segment_sum, "mean": tf.segment_mean, "max": tf.segment_max,
          "min": tf.segment_min, "prod": tf.segment_prod}
UNSORTED = {"max": tf.unsorted_segment_max, "min": tf.unsorted_segment_min,
            "prod": tf.unsorted_segment_prod, "mean": tf.unsorted_segment_mean,
            "sqrt_n": tf.unsorted_segment_sqrt_n}
NUMPY = {"sum": lambda r: r.sum(0), "mean": lambda r: r.mean(0), "max": lambda r: r.max(0),
         "min": lambda r: r.min(0), "prod": lambda r: r.prod(0),
         "sqrt_n": lambda r: r.sum(0) / np.sqrt(len(r))}


def run(t):
    with tf.Session() as s:
        return s.run(t)


def ref(kind, data, ids, num, empty):
    out = np.full((num,) + data.shape[ids.ndim:], empty, dtype=np.float64)
    rows = data.reshape((-1,) + data.shape[ids.ndim:])
    flat = ids.reshape(-1)
    for i in range(num):
        if (flat == i).any():
            out[i] = NUMPY[kind](rows[flat == i])
    return out


@pytest.mark.parametrize("kind", sorted(SORTED))
def test_sorted_segments(kind):
    data = R.randn(7, 3)
    ids = np.array([0, 0, 2, 2, 2, 3, 5])
    got = run(SORTED[kind](data, ids))
    empty = 1.0 if kind == "prod" else 0.0
    np.testing.assert_allclose(got, ref(kind, data, ids, 6, empty), rtol=1e-12)
    assert tf.math.__dict__[f"segment_{kind}"] is SORTED[kind]
    check_gradients(lambda x: SORTED[kind](x, ids), [data])


def test_sorted_segments_static_shape_ints_and_ties():
    ids = tf.constant([0, 1, 1], tf.int64)
    out = tf.segment_sum(tf.zeros([3, 4]), ids)
    assert out.shape.as_list()[1:] == [4]
    assert run(out).shape == (2, 4)
    np.testing.assert_array_equal(run(tf.segment_mean(np.array([5, -4, 1]), [0, 1, 1])),
                                  [5, -1])
    # ties split the gradient of a max evenly
    x = tf.constant([[1.0], [3.0], [3.0], [2.0]])
    g = run(tf.gradients(tf.reduce_sum(tf.segment_max(x, [0, 0, 0, 1])), x)[0])
    np.testing.assert_allclose(g[:, 0], [0, 0.5, 0.5, 1])


def test_segment_prod_gradient_with_zeros():
    data = np.array([[2.0, 0.0], [3.0, 0.0], [0.0, 5.0], [4.0, 6.0], [0.5, 1.5]])
    ids = np.array([0, 0, 0, 1, 1])
    sym, _ = check_gradients(lambda x: tf.segment_prod(x, ids), [data])
    # one zero: only it gets a gradient; two zeros: none does
    w = np.random.RandomState(0).uniform(0.5, 1.5, (2, 2))
    np.testing.assert_allclose(sym[0][:3, 0], [0, 0, 6 * w[0, 0]])
    np.testing.assert_allclose(sym[0][:3, 1], [0, 0, 0])


@pytest.mark.parametrize("kind", sorted(UNSORTED))
def test_unsorted_segments(kind):
    data = R.randn(3, 2, 2)
    ids = np.array([[2, -1], [0, 2], [1, 0]])
    got = run(UNSORTED[kind](data, ids, 4))
    rows, flat = data.reshape(6, 2), ids.reshape(-1)
    keep = flat >= 0
    lo, hi = np.finfo(np.float64).min, np.finfo(np.float64).max
    empty = {"max": lo, "min": hi, "prod": 1.0, "mean": 0.0, "sqrt_n": 0.0}[kind]
    np.testing.assert_allclose(got, ref(kind, rows[keep], flat[keep], 4, empty), rtol=1e-12)
    check_gradients(lambda x: UNSORTED[kind](x, ids, 3), [data])


def test_segment_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="not increasing"):
        run(tf.segment_sum(np.ones(3), [0, 2, 1]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="same size"):
        run(tf.segment_max(np.ones(3), tf.placeholder_with_default([0, 1], [None])))
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
        run(tf.unsorted_segment_max(np.ones(3), [0, 5, 1], 3))
    with pytest.raises(TypeError, match="int32 or int64"):
        tf.segment_sum(np.ones(3), [0.0, 1.0, 1.0])
    with pytest.raises(ValueError):
        tf.segment_sum(np.ones((2, 2)), [[0, 1], [1, 1]])
