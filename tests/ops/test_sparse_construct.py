"""tf.sparse.from_dense, eye, expand_dims and mask (tf.sparse_mask)."""

import numpy as np
import pytest

import tensorfleet as tf


def run(t):
    with tf.Session() as s:
        return s.run(t)


def test_from_dense_and_eye_round_trip():
    x = np.array([[0, 2, 0], [3, 0, 4]], np.int32)
    sp = run(tf.sparse.from_dense(x))
    np.testing.assert_array_equal(sp.indices, [[0, 1], [1, 0], [1, 2]])
    np.testing.assert_array_equal(sp.values, [2, 3, 4])
    np.testing.assert_array_equal(run(tf.sparse.to_dense(tf.sparse.from_dense(x))), x)
    words = run(tf.sparse.from_dense(tf.constant([["a", ""], ["", "b"]])))
    assert list(words.values) == [b"a", b"b"]
    np.testing.assert_array_equal(run(tf.sparse.to_dense(tf.sparse.eye(2, 3))),
                                  np.eye(2, 3))
    np.testing.assert_array_equal(run(tf.sparse.to_dense(tf.sparse.eye(3, dtype=tf.int32))),
                                  np.eye(3, dtype=np.int32))


def test_expand_dims_and_mask():
    st = tf.SparseTensor([[0, 1], [2, 0]], [5.0, 6.0], [3, 2])
    for axis, want in ((0, [1, 3, 2]), (1, [3, 1, 2]), (-1, [3, 2, 1])):
        dense = run(tf.sparse.to_dense(tf.sparse.expand_dims(st, axis)))
        np.testing.assert_array_equal(dense, np.expand_dims(
            [[0, 5.0], [0, 0], [6.0, 0]], axis))
        assert list(dense.shape) == want
    with pytest.raises(ValueError, match="out of range"):
        tf.sparse.expand_dims(st, 3)
    a = tf.IndexedSlices(tf.constant([[1.0], [2.0], [3.0]]), tf.constant([4, 7, 9]))
    kept = tf.sparse_mask(a, [7])
    vals, idx = run([kept.values, kept.indices])
    np.testing.assert_array_equal(idx, [4, 9])
    np.testing.assert_array_equal(vals, [[1.0], [3.0]])
    with pytest.raises(TypeError, match="IndexedSlices"):
        tf.sparse.mask(tf.constant([1]), [1])
