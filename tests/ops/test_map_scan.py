"""tf.map_fn, tf.scan, tf.foldl and tf.foldr: loops over the first axis."""

import collections

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

X = np.arange(6, dtype=np.float32).reshape(3, 2)
Pair = collections.namedtuple("Pair", "a b")


def _run(fetches, feed=None):
    with tf.Session() as s:
        return s.run(fetches, feed)


def test_map_fn_single_and_nested():
    x = tf.constant(X)
    m = tf.map_fn(lambda r: r * 2.0 + 1.0, x)
    assert m.shape.as_list() == [3, 2] and m.op.name.startswith("map/")
    m2 = tf.map_fn(lambda t: (t[0] + 1.0, tf.reduce_sum(t[1])), (x, x),
                   dtype=(tf.float32, tf.float32))
    m3 = tf.map_fn(lambda r: tf.cast(tf.reduce_sum(r), tf.int32), x, dtype=tf.int32)
    nt = tf.map_fn(lambda p: Pair(p.a * 2.0, p.b), Pair(x, tf.constant([1, 2, 3])))
    out = _run([m, m2, m3, nt])
    np.testing.assert_array_equal(out[0], X * 2 + 1)
    np.testing.assert_array_equal(out[1][0], X + 1)
    np.testing.assert_array_equal(out[1][1], X.sum(1))
    np.testing.assert_array_equal(out[2], X.sum(1).astype(np.int32))
    assert isinstance(out[3], Pair)
    np.testing.assert_array_equal(out[3].a, X * 2)
    np.testing.assert_array_equal(out[3].b, [1, 2, 3])


def test_map_fn_with_unknown_length():
    p = tf.placeholder(tf.float32, [None, 2])
    m = tf.map_fn(lambda r: tf.reduce_sum(r * r), p)
    assert m.shape.as_list() == [None]
    data = np.random.RandomState(0).randn(7, 2).astype(np.float32)
    np.testing.assert_allclose(_run(m, {p: data}), (data ** 2).sum(1), rtol=1e-5)
    np.testing.assert_array_equal(_run(m, {p: np.zeros((0, 2), np.float32)}), [])


def test_map_fn_errors():
    with pytest.raises(TypeError, match="callable"):
        tf.map_fn(3, tf.constant(X))
    with pytest.raises(ValueError, match="1\\+ dimensional"):
        tf.map_fn(lambda r: r, tf.constant(1.0))
    with pytest.raises(ValueError, match="same first dimension"):
        tf.map_fn(lambda t: t[0], (tf.zeros([3]), tf.zeros([4])))
    with pytest.raises(ValueError, match="structure"):
        tf.map_fn(lambda r: (r, r), tf.constant(X))
    with pytest.raises(TypeError, match="positive integer"):
        tf.map_fn(lambda r: r, tf.constant(X), parallel_iterations=0)


def test_scan_against_numpy():
    x = tf.constant(X)
    s1 = tf.scan(lambda a, r: a + r, x)
    s2 = tf.scan(lambda a, r: a * 0.5 + r, x, initializer=tf.constant([10.0, 0.0]))
    s3 = tf.scan(lambda a, r: a + r, x, initializer=tf.constant([10.0, 0.0]), reverse=True)
    s4 = tf.scan(lambda a, r: a + r, x, reverse=True)
    s5 = tf.scan(lambda a, r: (a[0] + r, a[1] * 2), x,
                 initializer=(tf.zeros([2]), tf.constant(1)))
    out = _run([s1, s2, s3, s4, s5])
    np.testing.assert_array_equal(out[0], np.cumsum(X, 0))
    ref, a = [], np.array([10.0, 0.0])
    for r in X:
        a = a * 0.5 + r
        ref.append(a)
    np.testing.assert_allclose(out[1], ref)
    np.testing.assert_array_equal(out[2], np.cumsum(X[::-1], 0)[::-1] + [10.0, 0.0])
    np.testing.assert_array_equal(out[3], np.cumsum(X[::-1], 0)[::-1])
    np.testing.assert_array_equal(out[4][0], np.cumsum(X, 0))
    np.testing.assert_array_equal(out[4][1], [2, 4, 8])


def test_scan_structure_mismatch():
    with pytest.raises(ValueError, match="structure"):
        tf.scan(lambda a, r: (a, a), tf.constant(X))


def test_folds_against_python():
    x = tf.constant(X)
    fl = tf.foldl(lambda a, r: a * 2.0 + r, x)
    fr = tf.foldr(lambda a, r: a * 2.0 + r, x, initializer=tf.zeros([2]))
    fr2 = tf.foldr(lambda a, r: a - r, x)
    nested = tf.foldl(lambda a, r: (a[0] + r, a[1] + 1), x, initializer=(tf.zeros([2]), 0))
    out = _run([fl, fr, fr2, nested])
    np.testing.assert_array_equal(out[0], (X[0] * 2 + X[1]) * 2 + X[2])
    np.testing.assert_array_equal(out[1], ((X[2] * 2) + X[1]) * 2 + X[0])
    np.testing.assert_array_equal(out[2], X[2] - X[1] - X[0])
    np.testing.assert_array_equal(out[3][0], X.sum(0))
    assert out[3][1] == 3


def test_back_prop_false():
    x = tf.constant(X)
    m = tf.map_fn(lambda r: r * 2.0, x, back_prop=False)
    assert tf.gradients(m, x) == [None]


# -- gradients ----------------------------------------------------------------------------

def test_map_fn_gradient():
    check_gradients(lambda a: tf.map_fn(lambda r: tf.sin(r) * r, a),
                    [np.random.RandomState(0).randn(3, 2)])


def test_map_fn_gradient_with_capture():
    def f(a, w):
        return tf.map_fn(lambda r: tf.tanh(r * w), a)
    check_gradients(f, [np.random.RandomState(1).randn(4, 2), np.array([0.5, -1.5])])


def test_scan_gradients():
    rs = np.random.RandomState(2)
    check_gradients(lambda a: tf.scan(lambda c, r: c * r + 1.0, a), [rs.randn(3, 2)])
    check_gradients(lambda a: tf.scan(lambda c, r: tf.sin(c) + r, a,
                                      initializer=tf.constant([0.1, 0.2], tf.float64),
                                      reverse=True), [rs.randn(4, 2)])


def test_fold_gradients():
    rs = np.random.RandomState(3)
    init = lambda: tf.constant([1.0, 2.0], tf.float64)  # noqa: E731
    check_gradients(lambda a: tf.foldl(lambda c, r: c * r + 1.0, a, initializer=init()),
                    [rs.randn(3, 2)])
    check_gradients(lambda a: tf.foldr(lambda c, r: tf.tanh(c * r), a), [rs.randn(3, 2)])


def test_map_fn_trains_a_variable():
    w = tf.Variable([1.0, -1.0], name="w")
    x = tf.constant(X)
    loss = tf.reduce_sum(tf.square(tf.map_fn(lambda r: tf.reduce_sum(r * w), x) - 1.0))
    train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        first = s.run(loss)
        for _ in range(30):
            s.run(train)
        assert s.run(loss) < first / 4


def test_nested_map_fn_and_map_inside_scan_gradients():
    rs = np.random.RandomState(4)
    check_gradients(lambda a: tf.map_fn(lambda row: tf.map_fn(lambda e: tf.sin(e) * e, row), a),
                    [rs.randn(3, 2)])

    def g(a, b):
        return tf.scan(lambda c, r: c * tf.reduce_sum(tf.map_fn(lambda e: e * b, r)), a,
                       initializer=tf.constant(1.0, tf.float64))
    check_gradients(g, [rs.randn(3, 2), np.array(0.7)])
