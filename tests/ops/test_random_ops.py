"""Random ops: distributions, dtypes, static shapes and TF 1.x seeding rules."""

import numpy as np
import pytest

import tensorfleet as tf


def run(t, feed=None, n=1):
    with tf.Session() as s:
        return [s.run(t, feed) for _ in range(n)]


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.float16])
def test_random_normal_moments_and_dtype(dtype):
    t = tf.random_normal([200, 50], mean=3.0, stddev=2.0, dtype=dtype, seed=1)
    assert t.shape.as_list() == [200, 50] and t.dtype is dtype
    v = run(t)[0]
    assert v.dtype == dtype.np
    assert abs(v.mean() - 3.0) < 0.1 and abs(v.std() - 2.0) < 0.1


def test_truncated_normal_is_within_two_stddev():
    v = run(tf.truncated_normal([100000], mean=1.0, stddev=0.5, seed=3))[0]
    assert v.dtype == np.float32
    assert v.min() >= 0.0 and v.max() <= 2.0
    # A normal truncated at 2 sigma has stddev ~0.88 sigma.
    assert abs(v.std() - 0.88 * 0.5) < 0.01


def test_random_uniform_float_and_int():
    v = run(tf.random_uniform([10000], -2.0, 5.0, seed=4))[0]
    assert v.dtype == np.float32 and v.min() >= -2.0 and v.max() < 5.0
    assert abs(v.mean() - 1.5) < 0.1
    u = run(tf.random_uniform([3, 4], seed=5))[0]
    assert u.shape == (3, 4) and (u >= 0).all() and (u < 1).all()
    i = run(tf.random_uniform([5000], minval=3, maxval=7, dtype=tf.int64, seed=6))[0]
    assert i.dtype == np.int64 and set(np.unique(i)) == {3, 4, 5, 6}
    lo = tf.constant(1.0)
    w = run(tf.random_uniform([1000], lo, lo + 1.0, seed=7))[0]
    assert w.min() >= 1.0 and w.max() < 2.0


def test_random_uniform_errors():
    with pytest.raises(ValueError, match="maxval"):
        tf.random_uniform([2], dtype=tf.int32)
    with pytest.raises(ValueError, match="minval < maxval"):
        tf.random_uniform([2], 5, 5, dtype=tf.int32)
    with pytest.raises(ValueError, match="floating"):
        tf.random_normal([2], dtype=tf.int32)
    hi = tf.placeholder(tf.int32, [])
    t = tf.random_uniform([2], 3, hi, dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="minval < maxval"):
        run(t, {hi: 1})


def test_dynamic_shape_argument():
    p = tf.placeholder(tf.float32, [None, 3])
    t = tf.random_normal(tf.shape(p))
    assert t.shape.as_list() == [None, 3]
    assert run(t, {p: np.zeros((4, 3))})[0].shape == (4, 3)
    m = tf.random_uniform([tf.shape(p)[0], 2])
    assert m.shape.as_list() == [None, 2]


def test_random_shuffle_permutes_rows():
    a = np.arange(20).reshape(10, 2)
    v = run(tf.random_shuffle(a, seed=8))[0]
    assert sorted(map(tuple, v.tolist())) == sorted(map(tuple, a.tolist()))
    assert not np.array_equal(v, a)
    np.testing.assert_array_equal(run(tf.random_shuffle([5]))[0], [5])


def test_multinomial():
    logits = np.log(np.array([[0.1, 0.0, 0.9], [0.5, 0.5, 0.0]]) + 1e-30)
    t = tf.multinomial(logits, 4000, seed=9)
    assert t.shape.as_list() == [2, 4000] and t.dtype is tf.int64
    v = run(t)[0]
    assert 1 not in v[0] and 2 not in v[1]
    assert abs((v[0] == 2).mean() - 0.9) < 0.03
    assert abs((v[1] == 0).mean() - 0.5) < 0.04
    with pytest.raises(ValueError, match="logits"):
        tf.multinomial(np.zeros(3), 2)


def _build(graph_seed, op_seed):
    g = tf.Graph()
    with g.as_default():
        if graph_seed is not None:
            tf.set_random_seed(graph_seed)
        a = tf.random_normal([4], seed=op_seed)
        b = tf.random_uniform([4], seed=op_seed)
    return g, a, b


@pytest.mark.parametrize("graph_seed,op_seed", [(7, None), (7, 3), (None, 3)])
def test_seeded_graphs_repeat_across_sessions(graph_seed, op_seed):
    g1, a1, b1 = _build(graph_seed, op_seed)
    g2, a2, b2 = _build(graph_seed, op_seed)
    with tf.Session(graph=g1) as s:
        first = [s.run([a1, b1]) for _ in range(2)]
    with tf.Session(graph=g2) as s:
        second = [s.run([a2, b2]) for _ in range(2)]
    for (x1, y1), (x2, y2) in zip(first, second):
        np.testing.assert_array_equal(x1, x2)
        np.testing.assert_array_equal(y1, y2)
    # Successive runs of one op draw new values.
    assert not np.array_equal(first[0][0], first[1][0])


def test_different_seeds_differ_and_unseeded_is_nondeterministic():
    _, a1, _ = _build(1, None)
    g, a2, _ = _build(2, None)
    with tf.Session(graph=a1.graph) as s:
        v1 = s.run(a1)
    with tf.Session(graph=g) as s:
        v2 = s.run(a2)
    assert not np.array_equal(v1, v2)
    g3, a3, _ = _build(None, None)
    assert a3.op.get_attr("seed") is None and a3.op.get_attr("seed2") is None
    with tf.Session(graph=g3) as s:
        u1 = s.run(a3)
    with tf.Session(graph=g3) as s:
        u2 = s.run(a3)
    assert not np.array_equal(u1, u2)


def test_two_ops_under_one_graph_seed_differ():
    tf.set_random_seed(11)
    a = tf.random_normal([5])
    b = tf.random_normal([5])
    va, vb = run([a, b])[0]
    assert not np.array_equal(va, vb)


def test_random_ops_are_stateful_and_not_differentiable():
    x = tf.placeholder(tf.float32, [3])
    r = tf.random_normal(tf.shape(x), seed=1)
    assert r.op.inputs[0].op.type != "RandomStandardNormal"
    g = tf.gradients(tf.reduce_sum(r * x), x)[0]
    assert run(g, {x: np.ones(3)})[0].shape == (3,)
    from tensorfleet.framework.op_registry import get_op_def
    assert get_op_def("RandomStandardNormal").stateful
    assert get_op_def("RandomShuffle").stateful


def test_random_poisson_moments_dtypes_and_seed():
    tf.set_random_seed(5)
    lam = np.array([0.5, 4.0, 30.0])
    draws = tf.random_poisson(lam, [4000], seed=3)
    ints = tf.random.poisson([2.0], [3, 2], dtype=tf.int64, seed=1)
    assert draws.shape.as_list() == [4000, 3] and ints.shape.as_list() == [3, 2, 1]
    with tf.Session() as s:
        d, i = s.run([draws, ints])
    np.testing.assert_allclose(d.mean(axis=0), lam, rtol=0.06)
    np.testing.assert_allclose(d.var(axis=0), lam, rtol=0.15)
    assert np.all(d == np.round(d)) and i.dtype == np.int64
    g2 = tf.Graph()
    with g2.as_default():
        tf.set_random_seed(5)
        again = tf.random_poisson(lam, [4000], seed=3)
        with tf.Session() as s:
            np.testing.assert_array_equal(s.run(again), d)
    with pytest.raises(ValueError, match="Invalid dtype"):
        tf.random_poisson(1.0, [2], dtype=tf.string)
    assert tf.gradients(tf.random_poisson(tf.constant(1.0), [2]), []) == []
