"""tf.bitwise, tf.repeat, tf.ensure_shape and tensor_scatter_nd_max/min against numpy."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

RNG = np.random.RandomState(11)


def run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


@pytest.mark.parametrize("dt", [np.int8, np.int32, np.int64, np.uint8, np.uint16])
def test_bitwise_ops_match_numpy(dt):
    info = np.iinfo(dt)
    x = RNG.randint(info.min, info.max, size=(3, 4), dtype=dt)
    y = RNG.randint(info.min, info.max, size=(4,), dtype=dt)
    bits = np.dtype(dt).itemsize * 8
    s = RNG.randint(0, bits, size=(3, 4)).astype(dt)
    got = run([tf.bitwise.bitwise_and(x, y), tf.bitwise.bitwise_or(x, y),
               tf.bitwise.bitwise_xor(x, y), tf.bitwise.invert(x),
               tf.bitwise.left_shift(x, s), tf.bitwise.right_shift(x, s)])
    want = [x & y, x | y, x ^ y, ~x, np.left_shift(x, s), np.right_shift(x, s)]
    for g, w in zip(got, want):
        assert g.dtype == dt
        np.testing.assert_array_equal(g, w)


def test_bitwise_shift_amounts_are_clamped_and_floats_refused():
    x = np.array([1, -8], np.int32)
    out = run([tf.bitwise.left_shift(x, np.array([40, 40], np.int32)),
               tf.bitwise.right_shift(x, np.array([99, -3], np.int32))])
    np.testing.assert_array_equal(out[0], np.left_shift(x, 31))
    np.testing.assert_array_equal(out[1], [0, -8])
    with pytest.raises(TypeError, match="BitwiseAnd"):
        tf.bitwise.bitwise_and(1.0, 2.0)
    xf = tf.constant([3.0])
    y = tf.cast(tf.bitwise.invert(tf.cast(xf, tf.int32)), tf.float32)
    assert tf.gradients(y, xf) == [None]


def test_repeat_matches_numpy_and_its_gradient_adds_up():
    x = RNG.randn(3, 4)
    reps = np.array([2, 0, 3])
    out = run([tf.repeat(x, reps, axis=0), tf.repeat(x, 2, axis=1), tf.repeat(x, 3),
               tf.repeat(x, [1, 2, 0, 1], axis=-1)])
    np.testing.assert_allclose(out[0], np.repeat(x, reps, axis=0))
    np.testing.assert_allclose(out[1], np.repeat(x, 2, axis=1))
    np.testing.assert_allclose(out[2], np.repeat(x, 3))
    np.testing.assert_allclose(out[3], np.repeat(x, [1, 2, 0, 1], axis=-1))
    check_gradients(lambda a: tf.repeat(a, reps, axis=0), [x])
    check_gradients(lambda a: tf.repeat(a, 2), [x])
    ph = tf.placeholder(tf.int32, [None])
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(tf.repeat(x, ph, axis=0), {ph: [1, 1, 4]}),
                                   np.repeat(x, [1, 1, 4], axis=0))
        with pytest.raises(tf.errors.InvalidArgumentError, match="non-negative"):
            s.run(tf.repeat(x, ph, axis=0), {ph: [1, -1, 4]})
    with pytest.raises(ValueError, match="axis 2"):
        tf.repeat(x, 2, axis=2)
    with pytest.raises(TypeError, match="int32 or int64"):
        tf.repeat(x, 2.0)


def test_ensure_shape_checks_when_run_and_sets_the_static_shape():
    ph = tf.placeholder(tf.float32, [None, None])
    y = tf.ensure_shape(ph, [None, 3])
    assert y.shape.as_list() == [None, 3]
    v = np.ones((2, 3), np.float32)
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(y, {ph: v}), v)
        with pytest.raises(tf.errors.InvalidArgumentError, match="not compatible"):
            s.run(y, {ph: np.ones((2, 4), np.float32)})
    with pytest.raises(ValueError, match="not compatible"):
        tf.ensure_shape(tf.zeros([2, 2]), [3, 2])
    check_gradients(lambda a: tf.ensure_shape(a * 2.0, [2, 3]), [RNG.randn(2, 3)])


@pytest.mark.parametrize("kind", ["max", "min"])
def test_tensor_scatter_nd_max_min(kind):
    fn = {"max": tf.tensor_scatter_nd_max, "min": tf.tensor_scatter_nd_min}[kind]
    ufunc = {"max": np.maximum, "min": np.minimum}[kind]
    t = RNG.randn(5, 3)
    idx = np.array([[1], [3], [1]])
    upd = RNG.randn(3, 3)
    want = t.copy()
    ufunc.at(want, (idx[:, 0],), upd)
    np.testing.assert_allclose(run(fn(t, idx, upd)), want)
    elems = np.array([[0, 0], [4, 2]])
    want2 = t.copy()
    ufunc.at(want2, (elems[:, 0], elems[:, 1]), np.array([9.0, -9.0]))
    np.testing.assert_allclose(run(fn(t, elems, [9.0, -9.0])), want2)
    check_gradients(lambda a, u: fn(a, idx, u), [t, upd])
