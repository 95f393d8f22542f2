"""gather_nd, scatter_nd, tensor_scatter_*, the scatter ops on variables (in a session and
on a ps task of an in-process cluster), unique_with_counts, setdiff1d, bincount."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.cluster import local_cluster
from tensorfleet.testing.gradient_checker import check_gradients

RNG = np.random.RandomState(5)


def run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def test_gather_nd_elements_slices_and_gradient():
    p = np.arange(24.0).reshape(2, 3, 4)
    idx = np.array([[0, 1], [1, 2], [0, 1]])
    out = tf.gather_nd(p, idx)
    assert out.shape.as_list() == [3, 4]
    np.testing.assert_array_equal(run(out), p[idx[:, 0], idx[:, 1]])
    full = np.array([[[1, 2, 3]], [[0, 0, 0]]])
    np.testing.assert_array_equal(run(tf.gather_nd(p, full)), [[23.0], [0.0]])
    check_gradients(lambda a: tf.gather_nd(a, idx), [RNG.randn(2, 3, 4)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not index"):
        run(tf.gather_nd(p, [[2, 0]]))
    with pytest.raises(ValueError, match="innermost"):
        tf.gather_nd(p, [[0, 0, 0, 0]])


def test_scatter_nd_adds_repeats_and_gradient():
    out = tf.scatter_nd([[1], [3], [1]], [1.0, 2.0, 3.0], [5])
    np.testing.assert_array_equal(run(out), [0, 4, 0, 2, 0])
    slices = tf.scatter_nd([[0], [2]], np.ones((2, 3)), tf.constant([4, 3]))
    assert slices.shape.as_list() == [4, 3]
    np.testing.assert_array_equal(run(slices)[:, 0], [1, 0, 1, 0])
    check_gradients(lambda u: tf.scatter_nd([[0, 1], [1, 2], [0, 1]], u, [2, 3, 4]),
                    [RNG.randn(3, 4)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="updates has shape"):
        run(tf.scatter_nd([[0], [1]], np.ones((2, 2)), [4, 3]))


def test_tensor_scatter_ops_and_gradients():
    t = np.arange(12.0).reshape(3, 4)
    upd = -np.ones((2, 4))
    ref = t.copy()
    ref[[0, 2]] = upd
    np.testing.assert_array_equal(run(tf.tensor_scatter_update(t, [[0], [2]], upd)), ref)
    np.testing.assert_array_equal(run(tf.tensor_scatter_add(t, [[0], [0]], upd))[0], t[0] - 2)
    np.testing.assert_array_equal(run(tf.tensor_scatter_sub(t, [[1, 1]], [5.0]))[1, 1], 0.0)
    for fn in (tf.tensor_scatter_update, tf.tensor_scatter_add, tf.tensor_scatter_sub):
        check_gradients(lambda a, u, fn=fn: fn(a, [[0], [2]], u), [RNG.randn(3, 4),
                                                                  RNG.randn(2, 4)])


def _scatter_program(v, kind):
    ops = {
        "update": tf.scatter_update(v, [0, 2], [[1.0, 1.0], [2.0, 2.0]]),
        "add": tf.scatter_add(v, [1, 1], [[1.0, 2.0], [3.0, 4.0]]),
        "sub": tf.scatter_sub(v, [2], [[0.5, 0.5]]),
        "mul": tf.scatter_mul(v, [0, 1], [[2.0, 3.0], [4.0, 5.0]]),
        "div": tf.scatter_div(v, [2], [[2.0, 4.0]]),
        "nd_update": tf.scatter_nd_update(v, [[0, 1], [2, 0]], [9.0, 8.0]),
        "nd_add": tf.scatter_nd_add(v, [[1, 1], [1, 1], [0, 0]], [1.0, 2.0, 3.0]),
        "nd_sub": tf.scatter_nd_sub(v, [[2]], [[1.0, 1.0]]),
    }
    return ops[kind]


def _scatter_ref(x, kind):
    x = x.copy()
    if kind == "update":
        x[[0, 2]] = [[1, 1], [2, 2]]
    elif kind == "add":
        x[1] += [4, 6]
    elif kind == "sub":
        x[2] -= 0.5
    elif kind == "mul":
        x[:2] *= [[2, 3], [4, 5]]
    elif kind == "div":
        x[2] /= [2, 4]
    elif kind == "nd_update":
        x[0, 1], x[2, 0] = 9, 8
    elif kind == "nd_add":
        x[1, 1] += 3
        x[0, 0] += 3
    elif kind == "nd_sub":
        x[2] -= 1
    return x


KINDS = ["update", "add", "sub", "mul", "div", "nd_update", "nd_add", "nd_sub"]
INIT = np.arange(6.0).reshape(3, 2) + 1


@pytest.mark.parametrize("kind", KINDS)
def test_scatter_on_variable_in_a_session(kind):
    v = tf.Variable(INIT)
    op = _scatter_program(v, kind)
    with tf.Session() as sess:
        sess.run(v.initializer)
        got = sess.run(op)
        np.testing.assert_allclose(got, _scatter_ref(INIT, kind))
        np.testing.assert_allclose(sess.run(v), _scatter_ref(INIT, kind))
        sess.run(op)
        np.testing.assert_allclose(sess.run(v), _scatter_ref(_scatter_ref(INIT, kind), kind))


def test_scatter_nd_on_variable_errors_and_refs():
    v = tf.Variable(np.zeros((3, 2)))
    with pytest.raises(TypeError, match="Variable"):
        tf.scatter_nd_update(v.value(), [[0]], [[1.0, 1.0]])
    with pytest.raises(ValueError, match="updates has shape"):
        tf.scatter_nd_add(v, [[0, 0]], [[1.0, 1.0]])
    bad = tf.scatter_nd_add(v, [[3, 0]], [1.0])
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError, match="does not index"):
            sess.run(bad)
        np.testing.assert_array_equal(sess.run(v), np.zeros((3, 2)))


def test_scatter_ops_on_a_ps_variable_in_a_cluster():
    with local_cluster(ps=1, worker=1) as c:
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(INIT, name="table")
        with tf.device("/job:worker/task:0"):
            idx = tf.placeholder(tf.int64, [None, 2])
            upd = tf.placeholder(tf.float64, [None])
            nd_add = tf.scatter_nd_add(v, idx, upd)
            programs = {kind: _scatter_program(v, kind) for kind in KINDS}
        assert nd_add.op.device == v.op.device == "/job:ps/task:0"
        assert all(op.op.device == "/job:ps/task:0" for op in programs.values())
        with tf.Session(c.target("worker", 0)) as sess:
            sess.run(v.initializer)
            sess.run(nd_add, {idx: [[0, 0], [0, 0], [2, 1]], upd: [1.0, 2.0, 3.0]})
            ref = INIT.copy()
            ref[0, 0] += 3
            ref[2, 1] += 3
            np.testing.assert_allclose(sess.run(v), ref)
            for kind in KINDS:
                sess.run(programs[kind])
                ref = _scatter_ref(ref, kind)
                np.testing.assert_allclose(sess.run(v), ref, err_msg=kind)


def test_unique_with_counts_and_setdiff1d():
    y, idx, count = run(tf.unique_with_counts([4, 1, 4, 2, 1, 4]))
    np.testing.assert_array_equal(y, [4, 1, 2])
    np.testing.assert_array_equal(idx, [0, 1, 0, 2, 1, 0])
    np.testing.assert_array_equal(count, [3, 2, 1])
    res = tf.unique_with_counts(np.array([1.5, 1.5]), out_idx=tf.int64)
    assert res.idx.dtype == tf.int64 and res.count.dtype == tf.int64
    out, pos = run(tf.setdiff1d([1, 2, 3, 4, 5, 2], [2, 4]))
    np.testing.assert_array_equal(out, [1, 3, 5])
    np.testing.assert_array_equal(pos, [0, 2, 4])
    with pytest.raises(ValueError, match="vector"):
        tf.unique_with_counts([[1, 2]])


def test_bincount():
    arr = np.array([1, 1, 3, 0, 6], np.int32)
    np.testing.assert_array_equal(run(tf.bincount(arr)), np.bincount(arr))
    np.testing.assert_array_equal(run(tf.bincount(arr, minlength=9)),
                                  np.bincount(arr, minlength=9))
    np.testing.assert_array_equal(run(tf.bincount(arr, maxlength=4)), [1, 2, 0, 1])
    w = np.array([0.5, 1.0, 2.0, 0.25, 4.0], np.float32)
    got = run(tf.bincount(arr, weights=w))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, np.bincount(arr, weights=w))
    assert run(tf.bincount(np.zeros([0], np.int32))).shape == (0,)
    assert run(tf.bincount(arr, dtype=tf.int64)).dtype == np.int64
    with pytest.raises(TypeError, match="int32"):
        tf.bincount(arr.astype(np.int64))
    with pytest.raises(tf.errors.InvalidArgumentError, match="non-negative"):
        run(tf.bincount(np.array([-1, 2], np.int32)))


def test_where_with_one_argument_gives_indices():
    cond = np.array([[True, False], [False, True], [True, True]])
    np.testing.assert_array_equal(run(tf.where(cond)), np.argwhere(cond))
