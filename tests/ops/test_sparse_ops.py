"""SparseTensor, sparse feeds and fetches, the sparse ops and their gradients."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.cluster import local_cluster
from tensorfleet.testing.gradient_checker import check_gradients

IND = np.array([[0, 1], [1, 0], [1, 3], [3, 2]], np.int64)
VAL = np.array([1.5, -2.0, 3.0, 4.0])
SHAPE = np.array([4, 5], np.int64)


def _dense(ind, val, shape, default=0.0):
    out = np.zeros(tuple(shape), dtype=np.asarray(val).dtype)
    stored = np.zeros(tuple(shape), bool)
    for i, v in zip(np.asarray(ind).reshape(len(val), -1), val):
        out[tuple(i)] += v
        stored[tuple(i)] = True
    return np.where(stored, out, default).astype(out.dtype)


def _run(x, feed=None):
    with tf.Session() as sess:
        return sess.run(x, feed)


def _sp(val=VAL, ind=IND, shape=SHAPE):
    return tf.SparseTensor(ind, val, shape)


# -- the SparseTensor class -----------------------------------------------------------------------

def test_sparse_tensor_properties_and_static_checks():
    sp = _sp()
    assert sp.dtype is tf.float64 and sp.indices.dtype is tf.int64
    assert sp.dense_shape.dtype is tf.int64
    assert sp.shape.as_list() == [4, 5] and sp.get_shape().as_list() == [4, 5]
    assert sp.graph is tf.get_default_graph() and sp.op is sp.values.op
    with tf.Session():
        value = sp.eval()
    assert isinstance(value, tf.SparseTensorValue)
    np.testing.assert_array_equal(value.indices, IND)
    np.testing.assert_array_equal(value.values, VAL)
    np.testing.assert_array_equal(value.dense_shape, SHAPE)
    back = tf.SparseTensor.from_value(value)
    np.testing.assert_array_equal(_run(tf.sparse_tensor_to_dense(back)), _dense(IND, VAL, SHAPE))
    assert tf.SparseTensor.from_value(sp) is sp
    unknown = tf.SparseTensor(tf.placeholder(tf.int64, [None, 3]), tf.placeholder(tf.float32),
                              tf.placeholder(tf.int64, [3]))
    assert unknown.shape.as_list() == [None, None, None]


def test_sparse_tensor_rejects_bad_components():
    with pytest.raises(ValueError, match="indices has 4 rows but values has 3"):
        tf.SparseTensor(IND, VAL[:3], SHAPE)
    with pytest.raises(ValueError, match="indices has 2 columns but dense_shape has rank 3"):
        tf.SparseTensor(IND, VAL, [4, 5, 6])
    with pytest.raises(ValueError, match="must have rank 2"):
        tf.SparseTensor([0, 1], [1.0, 2.0], [3])
    with pytest.raises(TypeError, match="indices must be int64, got int32"):
        tf.SparseTensor(tf.constant(IND.astype(np.int32)), VAL, SHAPE)
    with pytest.raises(TypeError, match="sparse_tensor_to_dense"):
        tf.convert_to_tensor(_sp())
    with pytest.raises(TypeError, match="needs a SparseTensorValue"):
        tf.SparseTensor.from_value((IND, VAL, SHAPE))
    with pytest.raises(TypeError, match="sp_input must be a SparseTensor"):
        tf.sparse_tensor_to_dense(np.zeros([2, 2]))


# -- feeding and fetching -------------------------------------------------------------------------

def test_sparse_placeholder_feeds_and_nested_fetches():
    sp = tf.sparse_placeholder(tf.float32, shape=[4, 5], name="sp")
    assert sp.shape.as_list() == [4, 5]
    assert sp.values.name == "sp/values:0" and sp.indices.name == "sp/indices:0"
    doubled = tf.SparseTensor(sp.indices, sp.values * 2, sp.dense_shape)
    dense = tf.sparse_tensor_to_dense(sp)
    feed_value = tf.SparseTensorValue(IND, VAL.astype(np.float32), SHAPE)
    with tf.Session() as sess:
        out = sess.run({"d": dense, "s": [doubled, sp]}, {sp: feed_value})
        np.testing.assert_array_equal(out["d"], _dense(IND, VAL, SHAPE).astype(np.float32))
        twice, same = out["s"]
        assert isinstance(twice, tf.SparseTensorValue)
        np.testing.assert_array_equal(twice.values, 2 * VAL.astype(np.float32))
        np.testing.assert_array_equal(same.indices, IND)
        # A plain tuple feeds too, and the default dense shape can be overridden.
        small = sess.run(dense, {sp: ([[0, 0]], [7.0], [1, 2])})
        np.testing.assert_array_equal(small, [[7.0, 0.0]])
        single = sess.run(sp, {sp: feed_value})
        np.testing.assert_array_equal(single.dense_shape, SHAPE)
        with pytest.raises(TypeError, match="SparseTensorValue"):
            sess.run(dense, {sp: np.zeros([3, 3])})
        with pytest.raises(ValueError, match="sp/indices"):
            sess.run(dense, {sp: ([0, 0], [7.0], [1, 2])})
        # Hostile feeds: an index outside dense_shape, components of different lengths.
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"SparseToDense: indices\[0\] = \[9, 0\] is out of bounds"):
            sess.run(dense, {sp: ([[9, 0]], [1.0], [4, 5])})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="sparse_values must be a scalar or a vector of 2 entries"):
            sess.run(dense, {sp: ([[0, 0], [1, 1]], [1.0], [4, 5])})


def test_sparse_placeholder_with_unknown_shape_needs_dense_shape():
    sp = tf.sparse_placeholder(tf.float64)
    assert sp.shape.ndims is None
    total = tf.sparse_reduce_sum(sp)
    value = tf.SparseTensorValue(np.array([[0, 0, 1], [2, 1, 0]]), [1.0, 2.5], [3, 2, 2])
    assert _run(total, {sp: value}) == pytest.approx(3.5)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError):
        sess.run(total, {sp.indices: value.indices, sp.values: value.values})


# -- densifying -----------------------------------------------------------------------------------

def test_sparse_tensor_to_dense_and_sparse_to_dense():
    np.testing.assert_array_equal(_run(tf.sparse_tensor_to_dense(_sp(), default_value=-1.0)),
                                  _dense(IND, VAL, SHAPE, default=-1.0))
    np.testing.assert_array_equal(_run(tf.sparse.to_dense(_sp())), _dense(IND, VAL, SHAPE))
    np.testing.assert_array_equal(_run(tf.sparse_to_dense([1, 3], [5], 2.0)), [0, 2, 0, 2, 0])
    np.testing.assert_array_equal(_run(tf.sparse_to_dense(2, [4], 7, default_value=1)),
                                  [1, 1, 7, 1])
    np.testing.assert_array_equal(_run(tf.sparse_to_dense(IND, [4, 5], VAL)),
                                  _dense(IND, VAL, SHAPE))
    check_gradients(lambda v, d: tf.sparse_to_dense(IND, [4, 5], v, default_value=d),
                    [VAL, np.array(0.5)])


def test_to_dense_errors_name_the_op_and_entry():
    unsorted = tf.SparseTensor(IND[::-1].copy(), VAL, SHAPE)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"SparseToDense: indices\[1\] = \[1, 3\] is out of order"):
        _run(tf.sparse_tensor_to_dense(unsorted))
    np.testing.assert_array_equal(
        _run(tf.sparse_tensor_to_dense(unsorted, validate_indices=False)),
        _dense(IND[::-1], VAL, SHAPE))
    outside = tf.SparseTensor([[0, 1], [4, 0]], [1.0, 2.0], [4, 5])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"SparseToDense: indices\[1\] = \[4, 0\] is out of bounds"):
        _run(tf.sparse_tensor_to_dense(outside))
    with pytest.raises(tf.errors.InvalidArgumentError, match="is repeated"):
        _run(tf.sparse_to_dense([1, 1], [3], 1.0))


# -- matmul, reduce_sum ---------------------------------------------------------------------------

@pytest.mark.parametrize("adjoint_a,adjoint_b", [(False, False), (True, False), (False, True),
                                                 (True, True)])
def test_sparse_dense_matmul_matches_numpy_with_gradients(adjoint_a, adjoint_b):
    a = _dense(IND, VAL, SHAPE)
    op_a = a.T if adjoint_a else a
    rng = np.random.RandomState(1)
    b = rng.randn(op_a.shape[1], 3)
    b_in = b.T.copy() if adjoint_b else b
    out = tf.sparse_tensor_dense_matmul(_sp(), b_in, adjoint_a=adjoint_a, adjoint_b=adjoint_b)
    assert out.shape.as_list() == [op_a.shape[0], 3]
    np.testing.assert_allclose(_run(out), op_a @ b, rtol=1e-12)
    check_gradients(lambda v, m: tf.sparse_tensor_dense_matmul(
        tf.SparseTensor(IND, v, SHAPE), m, adjoint_a=adjoint_a, adjoint_b=adjoint_b),
        [VAL, b_in])


def test_sparse_dense_matmul_bad_shapes():
    with pytest.raises(ValueError, match="inner dimensions differ"):
        tf.sparse_tensor_dense_matmul(_sp(), np.zeros([4, 2]))
    b = tf.placeholder(tf.float64, [None, 2])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="SparseTensorDenseMatMul: cannot multiply"):
        _run(tf.sparse_tensor_dense_matmul(_sp(), b), {b: np.zeros([3, 2])})


@pytest.mark.parametrize("axis,keepdims", [(None, False), (0, False), (1, True), (-1, False),
                                           ([0, 1], True)])
def test_sparse_reduce_sum_matches_numpy(axis, keepdims):
    dense = _dense(IND, VAL, SHAPE)
    want = np.sum(dense, axis=None if axis is None else tuple(np.atleast_1d(axis)),
                  keepdims=keepdims)
    out = tf.sparse_reduce_sum(_sp(), axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(_run(out), want)
    if axis is not None:
        assert out.shape.as_list() == list(want.shape)
    check_gradients(lambda v: tf.sparse_reduce_sum(tf.SparseTensor(IND, v, SHAPE), axis=axis,
                                                   keepdims=keepdims), [VAL])


def test_sparse_reduce_sum_axis_out_of_range():
    with pytest.raises(ValueError, match="axis 2 is out of range for a tensor of rank 2"):
        tf.sparse_reduce_sum(_sp(), axis=2)
    axis = tf.placeholder(tf.int32, [])
    with pytest.raises(tf.errors.InvalidArgumentError, match="SparseReduceSum: axis -3"):
        _run(tf.sparse_reduce_sum(_sp(), axis=axis), {axis: -3})


# -- reordering, concatenating, adding, retaining, filling ----------------------------------------

def test_sparse_reorder_sorts_and_routes_gradients():
    perm = [3, 0, 2, 1]
    shuffled = tf.SparseTensor(IND[perm], VAL[perm], SHAPE)
    out = _run(tf.sparse_reorder(shuffled))
    np.testing.assert_array_equal(out.indices, IND)
    np.testing.assert_array_equal(out.values, VAL)
    check_gradients(lambda v: tf.sparse_reorder(tf.SparseTensor(IND[perm], v, SHAPE)).values
                    * np.arange(1.0, 5.0), [VAL[perm]])


def test_sparse_concat_both_axes_and_errors():
    other_ind = np.array([[0, 0], [2, 4]], np.int64)
    other_val = np.array([9.0, 8.0])
    for axis in (0, 1, -1):
        out = _run(tf.sparse_concat(axis, [_sp(), tf.SparseTensor(other_ind, other_val,
                                                                  SHAPE)]))
        want = np.concatenate([_dense(IND, VAL, SHAPE), _dense(other_ind, other_val, SHAPE)],
                              axis)
        np.testing.assert_array_equal(_dense(out.indices, out.values, out.dense_shape), want)
        order = np.lexsort(out.indices.T[::-1])
        np.testing.assert_array_equal(order, np.arange(len(order)))  # row-major order
    narrow = tf.SparseTensor([[0, 0]], np.array([1.0]), [4, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="outside the concat axis 0"):
        _run(tf.sparse_concat(0, [_sp(), narrow]))
    wide = _run(tf.sparse_concat(0, [_sp(), narrow], expand_nonconcat_dim=True))
    np.testing.assert_array_equal(wide.dense_shape, [8, 5])
    check_gradients(lambda a, b: tf.sparse_concat(1, [tf.SparseTensor(IND, a, SHAPE),
                                                      tf.SparseTensor(other_ind, b, SHAPE)]
                                                  ).values * np.arange(1.0, 7.0),
                    [VAL, other_val])


def test_sparse_add_dense_and_sparse():
    dense = np.arange(20.0).reshape(4, 5)
    np.testing.assert_array_equal(_run(tf.sparse_add(_sp(), dense)),
                                  dense + _dense(IND, VAL, SHAPE))
    np.testing.assert_array_equal(_run(tf.sparse_add(dense, _sp())),
                                  dense + _dense(IND, VAL, SHAPE))
    check_gradients(lambda v, d: tf.sparse_add(tf.SparseTensor(IND, v, SHAPE), d), [VAL, dense])
    b_ind = np.array([[1, 0], [2, 2]], np.int64)
    b_val = np.array([2.0, 0.05])
    total = _run(tf.sparse.add(_sp(), tf.SparseTensor(b_ind, b_val, SHAPE), thresh=0.1))
    # [1, 0] cancels to 0 and [2, 2] is below thresh: both dropped.
    np.testing.assert_array_equal(total.indices, [[0, 1], [1, 3], [3, 2]])
    np.testing.assert_array_equal(total.values, [1.5, 3.0, 4.0])
    check_gradients(lambda a, b: tf.sparse_add(tf.SparseTensor(IND, a, SHAPE),
                                               tf.SparseTensor(b_ind, b, SHAPE)).values,
                    [VAL, np.array([2.5, 1.0])])
    with pytest.raises(tf.errors.InvalidArgumentError, match="same dense shape"):
        _run(tf.sparse_add(_sp(), tf.SparseTensor(b_ind, b_val, [4, 6])))
    with pytest.raises(tf.errors.InvalidArgumentError, match="SparseTensorDenseAdd"):
        _run(tf.sparse_add(_sp(), tf.placeholder_with_default(np.zeros([4, 4]), [None, None])))
    with pytest.raises(TypeError, match="at least one operand"):
        tf.sparse_add(dense, dense)


def test_sparse_retain_and_fill_empty_rows():
    kept = _run(tf.sparse_retain(_sp(), [True, False, True, False]))
    np.testing.assert_array_equal(kept.indices, IND[[0, 2]])
    np.testing.assert_array_equal(kept.values, VAL[[0, 2]])
    with pytest.raises(ValueError, match="to_retain has 3 entries but sp_input has 4"):
        tf.sparse_retain(_sp(), [True, False, True])
    check_gradients(lambda v: tf.sparse_retain(tf.SparseTensor(IND, v, SHAPE),
                                               [True, False, True, True]).values, [VAL])
    filled, empty = _run(tf.sparse_fill_empty_rows(_sp(), -1.0))
    np.testing.assert_array_equal(empty, [False, False, True, False])
    np.testing.assert_array_equal(filled.indices, [[0, 1], [1, 0], [1, 3], [2, 0], [3, 2]])
    np.testing.assert_array_equal(filled.values, [1.5, -2.0, 3.0, -1.0, 4.0])
    check_gradients(lambda v, d: tf.sparse_fill_empty_rows(tf.SparseTensor(IND, v, SHAPE), d)[0]
                    .values, [VAL, np.array(0.25)])


# -- segment reductions ---------------------------------------------------------------------------

def _segment_ref(data, idx, seg, kind, rows=None):
    rows = rows if rows is not None else seg[-1] + 1
    out = np.zeros((rows,) + data.shape[1:])
    counts = np.zeros(rows)
    for i, s in zip(idx, seg):
        out[s] += data[i]
        counts[s] += 1
    scale = {"sum": np.ones(rows), "mean": np.maximum(counts, 1),
             "sqrt_n": np.sqrt(np.maximum(counts, 1))}[kind]
    return out / scale.reshape((-1,) + (1,) * (data.ndim - 1))


@pytest.mark.parametrize("kind", ["sum", "mean", "sqrt_n"])
def test_sparse_segment_reductions_and_gradients(kind):
    fn = getattr(tf, f"sparse_segment_{kind}")
    assert getattr(tf.sparse, f"segment_{kind}") is fn
    data = np.random.RandomState(2).randn(5, 3)
    idx, seg = np.array([0, 4, 4, 1, 2]), np.array([0, 0, 2, 2, 3])
    np.testing.assert_allclose(_run(fn(data, idx, seg)), _segment_ref(data, idx, seg, kind))
    np.testing.assert_allclose(_run(fn(data, idx, seg, num_segments=6)),
                               _segment_ref(data, idx, seg, kind, rows=6))
    x = tf.placeholder(tf.float64, [5, 3])
    grad = tf.gradients(tf.reduce_sum(fn(x, idx, seg)), x)[0]
    assert isinstance(grad, tf.IndexedSlices)  # only the rows read are updated
    check_gradients(lambda d: fn(d, idx, seg), [data])


def test_sparse_segment_bad_input():
    data = np.ones([3, 2])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"SparseSegmentSum: indices\[1\] = 3 is out of range \[0, 3\)"):
        _run(tf.sparse_segment_sum(data, [0, 3], [0, 1]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be non-negative and sorted"):
        _run(tf.sparse_segment_mean(data, [0, 1], [1, 0]))
    with pytest.raises(ValueError, match="same length"):
        tf.sparse_segment_sum(data, [0, 1, 2], [0, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_segments"):
        _run(tf.sparse_segment_sum(data, [0, 1], [0, 4], num_segments=2))


def test_unique():
    y, idx = _run(tf.unique([4, 1, 4, 7, 1, 1]))
    np.testing.assert_array_equal(y, [4, 1, 7])
    np.testing.assert_array_equal(idx, [0, 1, 0, 2, 1, 1])
    assert tf.unique([1], out_idx=tf.int64)[1].dtype is tf.int64


def test_tf_sparse_aliases():
    assert tf.sparse.to_dense is tf.sparse_tensor_to_dense
    assert tf.sparse.sparse_dense_matmul is tf.sparse_tensor_dense_matmul
    assert tf.sparse.reduce_sum is tf.sparse_reduce_sum
    assert tf.sparse.concat is tf.sparse_concat and tf.sparse.reorder is tf.sparse_reorder
    assert tf.sparse.retain is tf.sparse_retain
    assert tf.sparse.fill_empty_rows is tf.sparse_fill_empty_rows
    assert tf.sparse.placeholder is tf.sparse_placeholder
    assert tf.sparse.SparseTensor is tf.SparseTensor


# -- across tasks ---------------------------------------------------------------------------------

def test_sparse_tensor_computed_on_one_task_used_on_another():
    with local_cluster(worker=2) as c:
        with tf.device("/job:worker/task:1"):
            dense_in = tf.placeholder(tf.float32, [3, 4])
            coords = tf.where(tf.not_equal(dense_in, 0.0))
            nonzero = tf.boolean_mask(dense_in, tf.not_equal(dense_in, 0.0))
            sp = tf.SparseTensor(coords, nonzero, tf.shape(dense_in, out_type=tf.int64))
        with tf.device("/job:worker/task:0"):
            back = tf.sparse_tensor_to_dense(sp)
            row_sums = tf.sparse_reduce_sum(sp, axis=1)
        value = np.array([[0, 1, 0, 2], [0, 0, 0, 0], [3, 0, 0, 4]], np.float32)
        with tf.Session(c.target("worker", 0)) as sess:
            got, sums, fetched = sess.run([back, row_sums, sp], {dense_in: value})
    np.testing.assert_array_equal(got, value)
    np.testing.assert_array_equal(sums, value.sum(1))
    assert isinstance(fetched, tf.SparseTensorValue)
    np.testing.assert_array_equal(fetched.indices, np.argwhere(value))
    np.testing.assert_array_equal(fetched.values, value[value != 0])
