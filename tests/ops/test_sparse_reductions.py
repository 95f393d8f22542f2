"""``tf.sparse.reduce_sum_sparse`` / ``reduce_max_sparse``, ``tf.sparse.bincount`` and
``tf.sparse.merge`` against dense numpy computations."""

import numpy as np
import pytest

import tensorfleet as tf


def _run(*ts):
    with tf.Session() as s:
        return s.run(list(ts))


def _sp():
    return tf.SparseTensor(indices=[[0, 0, 1], [0, 2, 0], [1, 1, 1], [1, 1, 0]],
                           values=[1.0, -2.0, 3.0, 4.0], dense_shape=[2, 3, 2])


DENSE = np.zeros((2, 3, 2))
DENSE[0, 0, 1], DENSE[0, 2, 0], DENSE[1, 1, 1], DENSE[1, 1, 0] = 1.0, -2.0, 3.0, 4.0


def _dense(v):
    out = np.zeros(v.dense_shape)
    out[tuple(v.indices.T)] = v.values
    return out


def test_reductions_keep_only_present_indices():
    SP = _sp()
    s1, s2, m1, all_, keep = _run(tf.sparse.reduce_sum_sparse(SP, 2),
                                  tf.sparse_reduce_sum_sparse(SP, [0, 2]),
                                  tf.sparse.reduce_max_sparse(SP, 1),
                                  tf.sparse.reduce_sum_sparse(SP),
                                  tf.sparse.reduce_sum_sparse(SP, 1, keepdims=True))
    np.testing.assert_allclose(_dense(s1), DENSE.sum(2))
    assert len(s1.values) == 3  # the groups that hold an entry
    np.testing.assert_allclose(_dense(s2), DENSE.sum((0, 2)))
    present = np.zeros((2, 2), bool)
    present[0, 1] = present[0, 0] = present[1, 1] = present[1, 0] = True
    np.testing.assert_allclose(_dense(m1)[present], np.where(DENSE == 0, -np.inf,
                                                             DENSE).max(1)[present])
    np.testing.assert_allclose(all_.values, [6.0])
    np.testing.assert_allclose(_dense(keep), DENSE.sum(1, keepdims=True))


def test_bincount_and_merge():
    v = np.array([[1, 1, 4], [0, 4, 4]])
    flat, rows, weighted, binary = _run(
        tf.sparse.bincount(v), tf.sparse.bincount(v, axis=-1, minlength=6),
        tf.sparse.bincount(v, weights=np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
                           maxlength=4),
        tf.sparse.bincount(v, axis=-1, binary_output=True))
    np.testing.assert_array_equal(_dense(flat), np.bincount(v.ravel()))
    np.testing.assert_array_equal(_dense(rows), [np.bincount(r, minlength=6) for r in v])
    np.testing.assert_allclose(_dense(weighted), [4.0, 3.0, 0.0, 0.0])
    np.testing.assert_array_equal(_dense(binary), [[0, 1, 0, 0, 1], [1, 0, 0, 0, 1]])
    ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], np.array([3, 1, 2], np.int64), [2, 2])
    vals = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [0.5, 1.5, 2.5], [2, 2])
    merged, = _run(tf.sparse.merge(ids, vals, 4))
    np.testing.assert_allclose(_dense(merged), [[0, 1.5, 0, 0.5], [0, 0, 2.5, 0]])
    np.testing.assert_array_equal(merged.indices, [[0, 1], [0, 3], [1, 2]])
    with pytest.raises(ValueError, match="axis"):
        tf.sparse.bincount(v, axis=1)
