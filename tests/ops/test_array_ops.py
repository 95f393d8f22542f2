"""Array ops: forward values against numpy, static shapes, gradients and errors."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

R = np.random.RandomState(0)
X = np.arange(60).reshape(3, 4, 5)


def run(t, feed=None):
    with tf.Session() as s:
        return s.run(t, feed)


def check(t, expected, dtype=None):
    """Runs ``t``, compares with numpy and checks the static shape agrees."""
    v = run(t)
    np.testing.assert_allclose(v, expected)
    assert np.shape(v) == np.shape(expected)
    assert t.shape.is_compatible_with(np.shape(expected)), (t.shape, np.shape(expected))
    if dtype is not None:
        assert t.dtype is dtype and np.asarray(v).dtype == dtype.np


def hide(t):
    """``t`` with an unknown static shape, to exercise the run-time shape paths."""
    return tf.placeholder_with_default(t, shape=None)


# -- filled tensors, shapes, casts -------------------------------------------------------------

@pytest.mark.parametrize("dtype", [tf.float32, tf.int32, tf.int64, tf.float64])
def test_zeros_ones_fill(dtype):
    check(tf.zeros([2, 3], dtype), np.zeros((2, 3)), dtype)
    check(tf.ones((4,), dtype), np.ones(4), dtype)
    check(tf.zeros_like(tf.constant([[1, 2]], dtype=dtype)), [[0, 0]], dtype)
    check(tf.ones_like(tf.constant([[1, 2]], dtype=dtype)), [[1, 1]], dtype)
    check(tf.fill([2, 2], tf.constant(7, dtype=dtype)), np.full((2, 2), 7), dtype)
    check(tf.zeros_like(tf.constant([1.5]), dtype=dtype), [0], dtype)
    check(tf.ones(tf.shape(tf.zeros([3, 1])), dtype), np.ones((3, 1)), dtype)


def test_shape_size_rank():
    x = tf.constant(np.zeros((2, 3, 4), np.float32))
    check(tf.shape(x), [2, 3, 4], tf.int32)
    check(tf.shape(x, out_type=tf.int64), [2, 3, 4], tf.int64)
    check(tf.size(x), 24, tf.int32)
    check(tf.rank(x), 3, tf.int32)
    p = tf.placeholder(tf.float32, [None, 2])
    assert run(tf.shape(p), {p: np.zeros((5, 2))}).tolist() == [5, 2]
    assert tf.shape(p).shape.as_list() == [2]


def test_cast_and_helpers():
    x = tf.constant([-1.7, 0.5, 2.9])
    check(tf.cast(x, tf.int32), [-1, 0, 2], tf.int32)
    check(tf.to_int64(x), [-1, 0, 2], tf.int64)
    check(tf.to_float(tf.constant([1, 2])), [1.0, 2.0], tf.float32)
    check(tf.to_double(x), [-1.7, 0.5, 2.9], tf.float64)
    check(tf.cast(tf.constant([0.0, 2.0]), tf.bool), [False, True], tf.bool)
    assert tf.cast(x, tf.float32) is x
    with pytest.raises(TypeError, match="Cast"):
        tf.cast(tf.constant("a"), tf.float32)


# -- reshaping ----------------------------------------------------------------------------------

@pytest.mark.parametrize("src,shape", [((6,), [2, 3]), ((2, 3, 4), [4, -1]), ((2, 3), [-1]),
                                       ((1,), []), ((2, 3, 4), [-1, 2, 3])])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_reshape(src, shape, dtype):
    a = np.arange(np.prod(src)).reshape(src).astype(dtype)
    t = tf.reshape(tf.constant(a), shape)
    check(t, a.reshape(shape), tf.as_dtype(dtype))
    assert t.shape.is_fully_defined()


def test_reshape_partial_static_shape_and_runtime_error():
    p = tf.placeholder(tf.float32, [None, 6])
    t = tf.reshape(p, [tf.shape(p)[0], 3, -1])
    assert t.shape.as_list() == [None, 3, 2]  # shape(p)[0] is p's only unknown dim
    assert tf.reshape(p, [tf.placeholder(tf.int32, []), -1]).shape.as_list() == [None, None]
    assert run(t, {p: np.zeros((2, 6))}).shape == (2, 3, 2)
    q = tf.placeholder(tf.float32, None)
    r = tf.reshape(q, [4])
    with pytest.raises(tf.errors.InvalidArgumentError, match="6 values"):
        run(r, {q: np.zeros(6)})


def test_reshape_build_errors_name_the_op():
    with pytest.raises(ValueError, match=r"Cannot reshape a tensor with 6 elements.*'Reshape'"):
        tf.reshape(tf.zeros([2, 3]), [4])
    with pytest.raises(ValueError, match="multiple unknown"):
        tf.reshape(tf.zeros([2, 3]), [-1, -1])


def test_expand_dims_and_squeeze():
    a = np.zeros((2, 1, 3, 1), np.float32)
    x = tf.constant(a)
    check(tf.expand_dims(x, 0), a[None])
    check(tf.expand_dims(x, -1), a[..., None])
    check(tf.expand_dims(x, axis=2), np.expand_dims(a, 2))
    check(tf.squeeze(x), a.squeeze())
    check(tf.squeeze(x, [1]), a.squeeze(1))
    check(tf.squeeze(x, axis=[-1, 1]), a.squeeze((1, 3)))
    with pytest.raises(ValueError, match=r"Can not squeeze dim\[0\].*Squeeze"):
        tf.squeeze(x, [0])
    with pytest.raises(ValueError, match="out of range"):
        tf.expand_dims(x, 6)


@pytest.mark.parametrize("perm", [None, [0, 2, 1], [2, 0, 1], [1, 2, 0]])
def test_transpose(perm):
    a = X.astype(np.float32)
    check(tf.transpose(tf.constant(a), perm), np.transpose(a, perm), tf.float32)


def test_transpose_unknown_rank_and_errors():
    p = tf.placeholder(tf.float32, None)
    assert run(tf.transpose(p), {p: np.zeros((2, 3, 4))}).shape == (4, 3, 2)
    with pytest.raises(ValueError, match="Transpose"):
        tf.transpose(tf.zeros([2, 3]), [0, 1, 2])
    check(tf.invert_permutation([2, 0, 1]), [1, 2, 0])


# -- joining and splitting --------------------------------------------------------------------

@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_concat(axis):
    a, b = X, X * 2
    check(tf.concat([tf.constant(a), b], axis), np.concatenate([a, b], axis))


def test_concat_single_and_errors():
    x = tf.constant([[1, 2]])
    check(tf.concat([x], 0), [[1, 2]])
    check(tf.concat(x, -1), [[1, 2]])
    with pytest.raises(ValueError, match=r"Dimension 1 in both shapes.*ConcatV2"):
        tf.concat([tf.zeros([2, 3]), tf.zeros([2, 4])], 0)
    with pytest.raises(ValueError, match="out of range"):
        tf.concat([tf.zeros([2, 3]), tf.zeros([2, 4])], 2)
    p = tf.placeholder(tf.float32, None)
    with pytest.raises(tf.errors.InvalidArgumentError, match="ConcatV2"):
        run(tf.concat([p, tf.zeros([2, 3])], 0), {p: np.zeros((2, 4))})


@pytest.mark.parametrize("axis", [0, 1, -1, 3, -4])
def test_stack_unstack(axis):
    a, b = X.astype(np.float32), -X.astype(np.float32)
    check(tf.stack([a, tf.constant(b)], axis=axis), np.stack([a, b], axis))
    parts = tf.unstack(tf.constant(a), axis=axis if axis in (0, 1, -1) else 0)
    ax = axis if axis in (0, 1, -1) else 0
    for t, e in zip(parts, np.moveaxis(a, ax, 0)):
        check(t, e)


def test_auto_pack_mixes_tensors_and_numbers():
    t = tf.constant(3.0)
    check(tf.convert_to_tensor([t, 1, 2.5]), [3.0, 1.0, 2.5], tf.float32)
    n = tf.constant(4, dtype=tf.int64)
    check(tf.convert_to_tensor([[n, 1], [2, 3]]), [[4, 1], [2, 3]], tf.int64)
    with pytest.raises(TypeError, match="Pack"):
        tf.stack([tf.constant(1), tf.constant(1.0)])
    with pytest.raises(ValueError, match="Shapes must be equal rank.*Pack"):
        tf.stack([tf.zeros([2]), tf.zeros([3])])
    with pytest.raises(ValueError, match="Cannot infer num"):
        tf.unstack(tf.placeholder(tf.float32, [None, 2]))


def test_split():
    a = np.arange(24.0).reshape(4, 6)
    x = tf.constant(a)
    for t, e in zip(tf.split(x, 3, axis=1), np.split(a, 3, 1)):
        check(t, e)
    for t, e in zip(tf.split(x, [1, -1, 2], -1), np.split(a, [1, 4], 1)):
        check(t, e)
    outs = tf.split(x, tf.constant([3, 1]), 0)
    assert [o.shape.as_list() for o in outs] == [[3, 6], [1, 6]]
    with pytest.raises(ValueError, match=r"evenly divisible by 4.*Split"):
        tf.split(x, 4, axis=1)
    with pytest.raises(ValueError, match="SplitV"):
        tf.split(x, [2, 2], 1)


# -- slicing --------------------------------------------------------------------------------

def test_slice():
    x = tf.constant(X)
    check(tf.slice(x, [1, 0, 2], [2, -1, 2]), X[1:3, :, 2:4])
    check(tf.slice(x, [0, 3, 0], [-1, 1, -1]), X[:, 3:4, :])
    with pytest.raises(ValueError, match="Slice"):
        tf.slice(x, [0, 3, 0], [1, 2, 1])
    p = tf.placeholder(tf.int64, None)
    with pytest.raises(tf.errors.InvalidArgumentError, match="size"):
        run(tf.slice(p, [1], [5]), {p: np.arange(3)})


@pytest.mark.parametrize("spec", [
    (1,), (-1,), (slice(1, 3),), (slice(None, None, -1),), (slice(None), 1), (Ellipsis, 2),
    (None, 1, Ellipsis, slice(None, None, 2)), (None,),
    (slice(None), slice(-3, -1), slice(1, None, 2)),
    (2, -1, 0), (slice(5, 0, -2), slice(None), None), (slice(10, 20),), (Ellipsis,),
    (1, Ellipsis, None), (slice(None, None, -2), Ellipsis, -2),
])
def test_getitem_matches_numpy(spec):
    t = tf.constant(X)[spec]
    check(t, X[spec])
    assert t.shape.is_fully_defined()


def test_getitem_with_tensor_indices_and_unknown_shapes():
    x = tf.constant(X)
    i = tf.constant(2)
    check(x[i], X[2])
    check(x[1:i, -i:], X[1:2, -2:])
    check(x[:, i, ::i], X[:, 2, ::2])
    check(hide(x)[1, ..., 1:4], X[1, ..., 1:4])
    assert hide(x)[1].shape.ndims is None
    assert x[:, i:].shape.as_list() == [3, 2, 5]
    j = hide(tf.constant(1))
    assert x[:, j:].shape.as_list() == [3, None, 5]
    check(x[:, j:], X[:, 1:])


def test_getitem_errors():
    x = tf.constant(X)
    with pytest.raises(TypeError, match="valid indices"):
        x[1.5]
    with pytest.raises(TypeError, match="valid indices"):
        x[tf.constant([1, 2])]
    with pytest.raises(ValueError, match="Multiple ellipses"):
        x[..., ...]
    with pytest.raises(ValueError, match=r"out of bounds.*StridedSlice"):
        x[3]
    with pytest.raises(ValueError, match="strided_slice"):
        x[1, 2, 3, 4]
    with pytest.raises(tf.errors.InvalidArgumentError, match="strided_slice"):
        run(hide(x)[5])


def test_strided_slice_function():
    x = tf.constant(X)
    check(tf.strided_slice(x, [0, 1], [3, 4], [2, 2]), X[0:3:2, 1:4:2])
    check(tf.strided_slice(x, [1, 0], [0, 0], shrink_axis_mask=1, end_mask=2), X[1, :])


# -- gathering --------------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [0, 1, 2, -1])
@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_gather(axis, itype):
    idx = np.array([[1, 0], [2, 2]], dtype=itype)
    check(tf.gather(tf.constant(X), idx, axis=axis), np.take(X, idx, axis=axis))
    check(tf.gather(tf.constant(X.astype(np.float32)), [2, 0]), X[[2, 0]].astype(np.float32))


def test_gather_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 7 is not in"):
        run(tf.gather(tf.constant(X), [0, 7]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="not in"):
        run(tf.gather(tf.constant(X), [-1]))
    with pytest.raises(ValueError, match="GatherV2"):
        tf.gather(tf.constant(X), [0], axis=3)
    with pytest.raises(TypeError, match="int32 or int64"):
        tf.gather(tf.constant(X), [0.5])


def test_gather_gradient_is_indexed_slices():
    params = tf.placeholder(tf.float32, [4, 3])
    idx = tf.constant([3, 1, 3])
    w = tf.constant(np.arange(9.0, dtype=np.float32).reshape(3, 3))
    loss = tf.reduce_sum(tf.gather(params, idx) * w)
    g = tf.gradients(loss, params)[0]
    assert isinstance(g, tf.IndexedSlices)
    dense = tf.convert_to_tensor(g)
    assert dense.shape.as_list() == [4, 3]
    with tf.Session() as s:
        gv, dv = s.run([g, dense], {params: np.ones((4, 3))})
    np.testing.assert_allclose(gv.values, np.arange(9.0).reshape(3, 3))
    np.testing.assert_array_equal(gv.indices, [3, 1, 3])
    np.testing.assert_array_equal(gv.dense_shape, [4, 3])
    expected = np.zeros((4, 3))
    np.add.at(expected, [3, 1, 3], np.arange(9.0).reshape(3, 3))
    np.testing.assert_allclose(dv, expected)


def test_unsorted_segment_sum():
    data = R.randn(6, 4).astype(np.float32)
    ids = np.array([0, 2, -1, 2, 4, 0])
    exp = np.zeros((5, 4), np.float32)
    keep = ids >= 0
    np.add.at(exp, ids[keep], data[keep])
    check(tf.unsorted_segment_sum(data, ids, 5), exp, tf.float32)
    check(tf.unsorted_segment_sum(data[:, 0], ids, 5), exp[:, 0], tf.float32)
    check(tf.unsorted_segment_sum(np.arange(6), ids, 5), np.bincount(ids[keep], np.arange(6)[keep],
                                                                     5))
    big = R.randn(300, 3)
    bids = R.randint(0, 7, 300)
    bexp = np.zeros((7, 3))
    np.add.at(bexp, bids, big)
    check(tf.unsorted_segment_sum(big, bids, 7), bexp)
    check(tf.unsorted_segment_sum(data.reshape(2, 3, 4), ids.reshape(2, 3), 5), exp)
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
        run(tf.unsorted_segment_sum(data, ids, 3))


def test_dynamic_partition_and_stitch():
    data = np.arange(12.0).reshape(6, 2)
    parts = np.array([1, 0, 2, 1, 1, 0])
    outs = tf.dynamic_partition(data, parts, 4)
    for p, t in enumerate(outs):
        check(t, data[parts == p])
    merged = tf.dynamic_stitch([[0, 2], [1, 3], [2]], [[[1.0], [2.0]], [[3.0], [4.0]], [[9.0]]])
    check(merged, [[1.0], [3.0], [9.0], [4.0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="partitions"):
        run(tf.dynamic_partition(data, [0, 1, 5, 0, 0, 0], 2))


# -- building tensors -------------------------------------------------------------------------

def test_one_hot():
    ind = np.array([[0, 2], [-1, 3]])
    eye = np.eye(3)
    exp = np.stack([np.stack([eye[0], eye[2]]), np.zeros((2, 3))])
    check(tf.one_hot(ind, 3), exp, tf.float32)
    check(tf.one_hot(ind, 3, axis=0), np.moveaxis(exp, -1, 0))
    check(tf.one_hot(ind, 3, axis=1), np.moveaxis(exp, -1, 1))
    check(tf.one_hot([1], 2, on_value=5, off_value=-1), [[-1, 5]], tf.int32)
    check(tf.one_hot([1], 2, dtype=tf.float64), [[0.0, 1.0]], tf.float64)


@pytest.mark.parametrize("mult", [[1, 1, 1], [2, 1, 3], [1, 0, 2]])
def test_tile(mult):
    check(tf.tile(tf.constant(X), mult), np.tile(X, mult))
    with pytest.raises(ValueError, match="Tile"):
        tf.tile(tf.constant(X), [1, 2])


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC", "reflect"])
def test_pad(mode):
    pads = [[1, 2], [0, 3], [2, 1]]
    a = X.astype(np.float32)
    check(tf.pad(a, pads, mode=mode), np.pad(a, pads, mode=mode.lower()), tf.float32)
    check(tf.pad(a, pads, constant_values=-2.0), np.pad(a, pads, constant_values=-2.0))
    with pytest.raises(ValueError, match="Pad"):
        tf.pad(a, [[1, 1]])


def test_pad_reflect_limits():
    with pytest.raises(ValueError, match="REFLECT"):
        tf.pad(tf.zeros([2, 2]), [[2, 0], [0, 0]], "REFLECT")
    with pytest.raises(ValueError, match="Unknown padding mode"):
        tf.pad(tf.zeros([2, 2]), [[0, 0], [0, 0]], "WRAP")


def test_range():
    check(tf.range(5), np.arange(5), tf.int32)
    check(tf.range(2, 11, 3), np.arange(2, 11, 3), tf.int32)
    check(tf.range(10, 2, -2), np.arange(10, 2, -2))
    check(tf.range(1.0, 2.0, 0.25), np.arange(1.0, 2.0, 0.25), tf.float32)
    check(tf.range(3, dtype=tf.int64), [0, 1, 2], tf.int64)
    check(tf.range(tf.constant(4)), np.arange(4))
    check(tf.range(0.5, tf.constant(3, tf.int64)), [0.5, 1.5, 2.5], tf.float32)
    with pytest.raises(ValueError, match="start <= limit"):
        tf.range(5, 2)
    with pytest.raises(ValueError, match="delta != 0"):
        tf.range(0, 5, 0)


def test_where():
    c = np.array([[True, False], [False, True], [True, True]])
    check(tf.where(c), np.argwhere(c), tf.int64)
    a, b = np.arange(6.0).reshape(3, 2), -np.arange(6.0).reshape(3, 2)
    check(tf.where(c, a, b), np.where(c, a, b))
    check(tf.where([True, False, True], a, b), np.where(np.array([1, 0, 1], bool)[:, None], a, b))
    with pytest.raises(ValueError, match="both be non-None"):
        tf.where(c, a)
    with pytest.raises(ValueError, match="Select"):
        tf.where([True, False], a, b)


@pytest.mark.parametrize("axis", [None, 1])
def test_boolean_mask(axis):
    a = X.astype(np.float32)
    if axis is None:
        m = R.rand(3, 4) > 0.5
        check(tf.boolean_mask(a, m), a[m])
        p = tf.placeholder(tf.float32, [None, 4, None])
        out = tf.boolean_mask(p, m)
        assert run(out, {p: a}).shape == a[m].shape
    else:
        m = np.array([True, False, True, True])
        check(tf.boolean_mask(a, m, axis=axis), a[:, m])
    with pytest.raises(ValueError):
        tf.boolean_mask(a, np.ones((3, 5), bool))


# -- gradients --------------------------------------------------------------------------------

GRAD_CASES = {
    "reshape": lambda a: tf.reshape(a, [4, -1]),
    "reshape_dyn": lambda a: tf.reshape(hide(a), [-1]),
    "transpose": lambda a: tf.transpose(a, [1, 2, 0]),
    "transpose_default": lambda a: tf.transpose(a),
    "transpose_dyn_perm": lambda a: tf.transpose(a, hide(tf.constant([2, 0, 1]))),
    "concat": lambda a: tf.concat([a, a * 2.0], -2),
    "concat_dyn": lambda a: tf.concat([hide(a), a[:, :1]], 1),
    "stack": lambda a: tf.stack([a, a], 1),
    "unstack": lambda a: tf.unstack(a, axis=1)[2],
    "split": lambda a: tf.split(a, 2)[1],
    "split_v": lambda a: tf.split(a, [1, -1], 2)[1],
    "slice": lambda a: tf.slice(a, [0, 1, 1], [-1, 1, 2]),
    "slice_dyn": lambda a: tf.slice(hide(a), [1, 0, 1], [1, -1, 2]),
    "getitem": lambda a: a[1, ::-1, tf.newaxis, ..., 1:],
    "getitem_dyn": lambda a: hide(a)[:, 1:, -1],
    "gather0": lambda a: tf.gather(a, [1, 0, 1]),
    "gather0_2d": lambda a: tf.gather(a, [[1, 0], [1, 1]]),
    "gather0_dyn": lambda a: tf.gather(hide(a), [[1, 0], [1, 1]]),
    "gather2": lambda a: tf.gather(a, [[2, 0], [3, 3]], axis=2),
    "gather_neg": lambda a: tf.gather(a, [2, 0, 2], axis=-2),
    "expand_dims": lambda a: tf.expand_dims(a, -1),
    "squeeze": lambda a: tf.squeeze(tf.expand_dims(a, 1)),
    "tile": lambda a: tf.tile(a, [2, 1, 3]),
    "tile_dyn": lambda a: tf.tile(hide(a), [1, 2, 2]),
    "pad": lambda a: tf.pad(a, [[0, 1], [1, 0], [2, 2]]),
    "pad_dyn": lambda a: tf.pad(hide(a), hide(tf.constant([[0, 1], [1, 0], [2, 2]]))),
    "pad_value": lambda a: tf.pad(a, [[0, 1], [1, 0], [2, 2]], constant_values=2.0),
    "reflect": lambda a: tf.pad(a, [[1, 1], [2, 1], [0, 3]], "REFLECT"),
    "symmetric": lambda a: tf.pad(a, [[1, 2], [3, 1], [0, 4]], "SYMMETRIC"),
    "where_vector": lambda a: tf.where(tf.constant([True, False]), a, a * 3.0),
    "where_full": lambda a: tf.where(tf.constant(R.rand(2, 3, 4) > 0.5), a, a * 3.0),
    "boolean_mask": lambda a: tf.boolean_mask(a, np.array([[1, 0, 1], [0, 0, 1]], bool)),
    "segment_sum": lambda a: tf.unsorted_segment_sum(a, [1, -1], 3),
    "segment_sum_2d": lambda a: tf.unsorted_segment_sum(a, [[1, 0, 1], [0, 2, -1]], 3),
    "dynamic_partition": lambda a: tf.dynamic_partition(a, [1, 0], 3)[1],
    "dynamic_stitch": lambda a: tf.dynamic_stitch([[0, 2], [1, 3]], [a[0, :2], a[1, 1:]]),
    "cast": lambda a: tf.cast(tf.cast(a, tf.float32), tf.float64),
    "fill": lambda a: tf.fill([2, 3], tf.reduce_sum(a)),
    "identity": lambda a: tf.identity(a),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_match_numeric(name):
    check_gradients(GRAD_CASES[name], [R.randn(2, 3, 4)])


def test_second_order_through_strided_slice_and_mirror_pad():
    def build(a):
        g = tf.gradients(tf.reduce_sum(a[1:] * a[1:]), a)[0]
        return g * a
    check_gradients(build, [R.randn(3, 2)])

    def build_pad(a):
        g = tf.gradients(tf.reduce_sum(tf.pad(a, [[1, 1]], "REFLECT") ** 2.0), a)[0]
        return g
    check_gradients(build_pad, [R.randn(4)])


def test_stop_gradient_blocks():
    x = tf.placeholder(tf.float32, [2])
    y = tf.reduce_sum(tf.stop_gradient(x) * x)
    g = tf.gradients(y, x)[0]
    np.testing.assert_allclose(run(g, {x: [3.0, 4.0]}), [3.0, 4.0])
    assert tf.gradients(tf.reduce_sum(tf.stop_gradient(x)), x) == [None]


def test_graph_with_array_ops_serializes():
    x = tf.constant(X)
    y = tf.boolean_mask(tf.pad(x[1:, ::2], [[0, 1], [1, 1], [0, 0]]), [True, False, True])
    expected = run(y)
    gd = tf.get_default_graph().as_graph_def()
    with tf.Graph().as_default() as g2:
        tf.import_graph_def(gd, name="")
    with tf.Session(graph=g2) as s:
        np.testing.assert_array_equal(s.run(y.name), expected)


def test_gradients_aggregation_methods_give_the_same_sum_and_bad_ones_are_refused():
    x = tf.constant([1.0, 2.0])
    y = x * x + 3.0 * x  # two paths into x
    for method in (None, tf.AggregationMethod.ADD_N, tf.AggregationMethod.EXPERIMENTAL_TREE,
                   tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N):
        (g,) = tf.gradients(y, x, aggregation_method=method)
        with tf.Session() as s:
            np.testing.assert_allclose(s.run(g), [5.0, 7.0])
    with pytest.raises(ValueError, match="aggregation_method"):
        tf.gradients(y, x, aggregation_method="pairwise")
