"""``tf.RaggedTensor`` and ``tf.ragged``: the factories, conversions (dense, sparse,
nested lists), feeding and fetching, and the ragged functions, checked against nested
Python lists; gradients through ``to_tensor`` numerically."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

R = tf.RaggedTensor
r = tf.ragged


def _lists(*ts, feed=None):
    with tf.Session() as s:
        out = s.run(list(ts), feed)
    return [o.to_list() if hasattr(o, "to_list") else o.tolist() for o in out]


def test_factories_and_accessors():
    vals = [1, 2, 3, 4, 5]
    a = R.from_row_splits(vals, [0, 2, 2, 5])
    out = _lists(a, R.from_row_lengths(vals, [2, 0, 3]), R.from_value_rowids(vals, [0, 0, 2, 2, 2],
                                                                           nrows=4),
                 R.from_row_starts(vals, [0, 2, 2]), R.from_row_limits(vals, [2, 2, 5]),
                 R.from_tensor([[1, 2, 0], [3, 0, 0]], padding=0),
                 R.from_tensor([[1, 2, 9], [3, 4, 5]], lengths=[1, 3]),
                 R.from_nested_row_splits([1, 2, 3, 4], [[0, 1, 3], [0, 2, 3, 4]]),
                 a.row_lengths(), a.value_rowids(), a.nrows(), a.bounding_shape(),
                 a.to_tensor(), a.to_tensor(default_value=-1))
    want = [[[1, 2], [], [3, 4, 5]]] * 2 + [[[1, 2], [], [3, 4, 5], []]] + \
        [[[1, 2], [], [3, 4, 5]]] * 2 + [[[1, 2], [3]], [[1], [3, 4, 5]],
                                         [[[1, 2]], [[3], [4]]], [2, 0, 3], [0, 0, 2, 2, 2], 3,
                                         [3, 3], [[1, 2, 0], [0, 0, 0], [3, 4, 5]],
                                         [[1, 2, -1], [-1, -1, -1], [3, 4, 5]]]
    assert out == want
    assert a.ragged_rank == 1 and a.dtype is tf.int32 and a.shape.as_list() == [3, None]
    with pytest.raises(ValueError, match="from_row_splits"):
        R([1], [0, 1])


def test_validation_and_sparse_round_trip():
    bad = R.from_row_splits([1, 2, 3], [0, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="end with"):
        _lists(bad)
    a = r.constant([[1, 2], [], [3]])
    st = a.to_sparse()
    out = _lists(R.from_sparse(st))
    assert out == [[[1, 2], [], [3]]]


def test_constants_placeholders_and_map_flat_values():
    c2 = r.constant([[[1, 2], [3]], [[4]]])
    c3 = r.constant([[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0]]], ragged_rank=1)
    assert c2.ragged_rank == 2 and c3.ragged_rank == 1
    assert c3.shape.as_list() == [2, None, 2]
    v = r.constant_value([[1, 2], [3]], dtype=tf.int32)
    assert v.to_list() == [[1, 2], [3]] and v.dtype == np.int32
    p = r.placeholder(tf.int32, 1)
    doubled = r.map_flat_values(tf.multiply, p, 2)
    out = _lists(c2, c3, doubled, feed={p: v})
    assert out == [[[[1, 2], [3]], [[4]]], [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0]]],
                   [[2, 4], [6]]]
    with pytest.raises(ValueError, match="ragged_rank"):
        r.constant([[1, 2]], ragged_rank=3)


def test_range_mask_stack_partitions_and_segments():
    c = r.constant([[1, 2], [], [3, 4, 5]])
    out = _lists(r.range([3, 0, 5], [5, 2, 8]), r.range(4), r.range(0, 10, [3, 4]),
                 r.boolean_mask(c, [True, False, True]),
                 r.boolean_mask(c, r.constant([[True, False], [], [False, True, True]])),
                 r.boolean_mask(np.array([[1, 2], [3, 4]]), np.array([[True, False],
                                                                     [True, True]])),
                 r.stack([c, r.constant([[7]])]),
                 r.stack_dynamic_partitions([10, 20, 30, 40], [1, 0, 1, 1], 3),
                 r.row_splits_to_segment_ids([0, 2, 2, 3]),
                 r.segment_ids_to_row_splits([0, 0, 2], 4))
    assert out == [[[3, 4], [0, 1], [5, 6, 7]], [[0, 1, 2, 3]], [[0, 3, 6, 9], [0, 4, 8]],
                   [[1, 2], [3, 4, 5]], [[1], [], [4, 5]], [[1], [3, 4]],
                   [[[1, 2], [], [3, 4, 5]], [[7]]], [[20], [10, 30, 40], []], [0, 0, 2],
                   [0, 2, 2, 3, 3]]
    with pytest.raises(ValueError, match="axis 0"):
        r.stack([c], axis=1)


def test_crosses():
    a, b = r.constant([["a", "b"], ["c"]]), r.constant([["x"], ["y", "z"]])
    crossed, hashed = _lists(r.cross([a, b]), r.cross_hashed([a, b], num_buckets=100))
    assert crossed == [[b"a_X_x", b"b_X_x"], [b"c_X_y", b"c_X_z"]]
    assert [len(row) for row in hashed] == [2, 2]
    assert all(0 <= v < 100 for row in hashed for v in row)


def test_gradients_through_ragged_values():
    def build(v):
        rt = R.from_row_splits(v, [0, 2, 2, 5], validate=False)
        return rt.to_tensor() * 2.0 + tf.reduce_sum(rt.to_tensor(default_value=1.0))
    check_gradients(build, [np.arange(5.0)])
