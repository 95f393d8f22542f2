"""The fused categorical ops: hashed ids of many features in one op, and the
prepare / combine ops of a weightless ``safe_embedding_lookup_sparse``, against
numpy references, the unfused ops, and numerical gradients row by row."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.kernels.numpy.hash_kernels import fingerprint64
from tensorfleet.ops.sparse_lookup_ops import (fused_safe_embedding_lookup,
                                               sparse_lookup_combine, sparse_lookup_prepare,
                                               string_to_hash_bucket_sparse)
from tensorfleet.testing.gradient_checker import check_gradients


def _run(fetches, feed=None, init=False):
    with tf.Session() as sess:
        if init:
            sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


def _strings(rows):
    out = np.empty((len(rows), len(rows[0])), dtype=object)
    for i, r in enumerate(rows):
        for j, v in enumerate(r):
            out[i, j] = v.encode()
    return out


def test_hash_bucket_sparse_matches_numpy_and_unfused_ops():
    a = _strings([["x", ""], ["", ""], ["hello", "x"]])
    b = np.array([b"q", b"", b"zz"], dtype=object)       # a vector: one value per row
    with tf.Graph().as_default():
        sa, sb = string_to_hash_bucket_sparse([tf.constant(a), tf.constant(b)], [7, 100000])
        ref = tf.string_to_hash_bucket_fast(tf.constant(a), 7)
        got_a, got_b, ref_a = _run([sa, sb, ref])
    np.testing.assert_array_equal(got_a.indices, [[0, 0], [2, 0], [2, 1]])
    want = (fingerprint64(np.array([b"x", b"hello", b"x"], dtype=object))
            % np.uint64(7)).astype(np.int64)
    np.testing.assert_array_equal(got_a.values, want)
    np.testing.assert_array_equal(got_a.values, ref_a[[0, 2, 2], [0, 0, 1]])
    np.testing.assert_array_equal(got_a.dense_shape, [3, 2])
    np.testing.assert_array_equal(got_b.indices, [[0, 0], [2, 0]])
    np.testing.assert_array_equal(got_b.dense_shape, [3, 1])
    np.testing.assert_array_equal(
        got_b.values, (fingerprint64(np.array([b"q", b"zz"], dtype=object))
                       % np.uint64(100000)).astype(np.int64))


def test_hash_bucket_sparse_str_values_and_errors():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.string, [None, 1])
        (sp,) = string_to_hash_bucket_sparse([x], [1000])
        got = _run(sp, {x: np.array([["é"], [""], ["abc"]], dtype=object)})
        np.testing.assert_array_equal(got.indices, [[0, 0], [2, 0]])
        want = fingerprint64(np.array(["é".encode(), b"abc"], dtype=object)) % np.uint64(1000)
        np.testing.assert_array_equal(got.values, want.astype(np.int64))
        with pytest.raises(ValueError, match="num_buckets"):
            string_to_hash_bucket_sparse([x], [0])
        with pytest.raises(ValueError, match="2 num_buckets"):
            string_to_hash_bucket_sparse([x], [3, 4])
        with pytest.raises(TypeError, match="strings"):
            string_to_hash_bucket_sparse([tf.constant([[1]])], [3])


def _reference_lookup(table, ind, val, shape, combiner, default_id):
    """numpy safe_embedding_lookup_sparse without weights."""
    out = np.zeros((shape[0], table.shape[1]))
    for r in range(shape[0]):
        ids = [v for (row, _), v in zip(ind, val) if row == r and v >= 0]
        if not ids:
            if default_id is not None:
                out[r] = table[default_id]
            continue
        s = table[ids].sum(0)
        n = len(ids)
        out[r] = s if combiner == "sum" else s / n if combiner == "mean" else s / np.sqrt(n)
    return out


# Row 1 has only a negative id (dropped), row 3 has nothing; row 2's entries come
# before row 0's in the input.
_IND = np.array([[2, 0], [2, 1], [0, 0], [0, 1], [0, 2], [1, 0]], np.int64)
_VAL = np.array([4, 1, 4, 4, 0, -3], np.int64)
_SHAPE = np.array([4, 3], np.int64)


def test_prepare_orders_by_row_fills_empty_rows_and_dedups():
    with tf.Graph().as_default():
        sp = tf.SparseTensor(_IND, _VAL, _SHAPE)
        uniq, idx, seg, empty = _run(sparse_lookup_prepare(sp, default_id=2))
    np.testing.assert_array_equal(empty, [False, True, False, True])
    np.testing.assert_array_equal(seg, [0, 0, 0, 1, 2, 2, 3])
    np.testing.assert_array_equal(uniq[idx], [4, 4, 0, 2, 4, 1, 2])
    assert len(set(uniq.tolist())) == len(uniq) and idx.dtype == np.int32


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
@pytest.mark.parametrize("default_id", [None, 3])
def test_fused_lookup_matches_numpy_and_unfused(combiner, default_id):
    table = np.random.RandomState(0).normal(size=(6, 3)).astype(np.float32)
    with tf.Graph().as_default():
        w = tf.Variable(table)
        sp = tf.SparseTensor(_IND, _VAL, _SHAPE)
        fused = fused_safe_embedding_lookup(w, sp, combiner=combiner, default_id=default_id)
        ref = tf.nn.safe_embedding_lookup_sparse(w, sp, combiner=combiner,
                                                 default_id=default_id)
        out_w = np.arange(12.0, dtype=np.float32).reshape(4, 3)
        g_f = tf.gradients(tf.reduce_sum(fused * out_w), w)[0]
        g_r = tf.gradients(tf.reduce_sum(ref * out_w), w)[0]
        assert fused.shape.as_list() == [4, 3]
        got, want, gf, gr = _run([fused, ref, g_f, g_r], init=True)
    np.testing.assert_allclose(got, _reference_lookup(table, _IND, _VAL, _SHAPE, combiner,
                                                      default_id), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    # Sparse gradients: only the rows looked up, equal to the unfused op's.
    def dense(g):
        z = np.zeros_like(table)
        np.add.at(z, g.indices, g.values)
        return z
    np.testing.assert_allclose(dense(gf), dense(gr), rtol=1e-6, atol=1e-6)
    assert set(gf.indices.tolist()) <= {0, 1, 4, 3}


@pytest.mark.parametrize("strategy", ["div", "mod"])
def test_fused_lookup_over_shards_matches_unfused(strategy):
    table = np.random.RandomState(2).normal(size=(6, 2)).astype(np.float32)
    with tf.Graph().as_default():
        shards = [tf.Variable(table[:3]), tf.Variable(table[3:])] if strategy == "div" else \
            [tf.Variable(table[0::2]), tf.Variable(table[1::2])]
        sp = tf.SparseTensor(_IND, _VAL, _SHAPE)
        fused = fused_safe_embedding_lookup(shards, sp, combiner="mean",
                                            partition_strategy=strategy)
        ref = tf.nn.safe_embedding_lookup_sparse(shards, sp, combiner="mean",
                                                 partition_strategy=strategy)
        w = np.arange(8, dtype=np.float32).reshape(4, 2)
        g_f = tf.gradients(tf.reduce_sum(fused * w), shards)
        g_r = tf.gradients(tf.reduce_sum(ref * w), shards)
        got, want, gf, gr = _run([fused, ref, g_f, g_r], init=True)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(got, _reference_lookup(table, _IND, _VAL, _SHAPE, "mean",
                                                      None), rtol=1e-6, atol=1e-6)
    for a, b in zip(gf, gr):
        da, db = np.zeros((3, 2)), np.zeros((3, 2))
        np.add.at(da, a.indices, a.values)
        np.add.at(db, b.indices, b.values)
        np.testing.assert_allclose(da, db, rtol=1e-6, atol=1e-6)


def test_fused_lookup_declines_what_it_does_not_cover():
    with tf.Graph().as_default():
        w = tf.Variable(np.zeros((6, 2), np.float32))
        sp3 = tf.SparseTensor([[0, 0, 0]], [1], [1, 1, 1])
        assert fused_safe_embedding_lookup(w, sp3) is None
        assert fused_safe_embedding_lookup([], tf.SparseTensor(_IND, _VAL, _SHAPE)) is None
        assert fused_safe_embedding_lookup(w, tf.SparseTensor(_IND, _VAL.astype(np.float32),
                                                              _SHAPE)) is None
        with pytest.raises(ValueError, match="combiner"):
            sparse_lookup_combine(tf.zeros([2, 2]), tf.constant([0], tf.int32),
                                  tf.constant([0], tf.int32), tf.constant([True]), "max")


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
def test_combine_gradient_numerically(combiner):
    idx = np.array([0, 2, 1, 2, 0], np.int32)
    seg = np.array([0, 0, 1, 1, 3], np.int32)
    empty = np.array([False, False, True, False])

    def build(rows):
        return sparse_lookup_combine(rows, tf.constant(idx), tf.constant(seg),
                                     tf.constant(empty), combiner, zero_empty=True)

    rows = np.random.RandomState(1).normal(size=(3, 2))
    symbolic, _ = check_gradients(build, [rows])
    # Row by row against numpy: row k gets, from every entry that used it, its
    # example's output gradient times the combiner's factor for that example.
    w = np.random.RandomState(0).uniform(0.5, 1.5, (4, 2))  # the checker's weights
    counts = np.bincount(seg, minlength=4)
    scale = {"sum": np.ones(4), "mean": 1.0 / np.maximum(counts, 1),
             "sqrtn": 1.0 / np.sqrt(np.maximum(counts, 1))}[combiner] * ~empty
    for k in range(3):
        want = sum(w[seg[j]] * scale[seg[j]] for j in range(len(idx)) if idx[j] == k)
        np.testing.assert_allclose(symbolic[0][k], want, rtol=1e-6)


def test_combine_and_prepare_reject_bad_entries():
    with tf.Graph().as_default():
        out = sparse_lookup_combine(tf.zeros([2, 2]), tf.constant([5], tf.int32),
                                    tf.constant([0], tf.int32), tf.constant([False]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="idx must be in"):
            _run(out)
        unsorted = sparse_lookup_combine(tf.zeros([2, 2]), tf.constant([0, 1], tf.int32),
                                         tf.constant([1, 0], tf.int32),
                                         tf.constant([False, False]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="sorted"):
            _run(unsorted)
        ind = tf.placeholder(tf.int64, [None, 2])
        prep = sparse_lookup_prepare(tf.SparseTensor(ind, tf.constant([1, 2], tf.int64),
                                                     tf.constant([2, 3], tf.int64)))
        with pytest.raises(tf.errors.InvalidArgumentError, match="dense_shape"):
            _run(prep, {ind: np.array([[0, 0], [2, 0]], np.int64)})
        with pytest.raises(ValueError, match="rank 2"):
            sparse_lookup_prepare(tf.SparseTensor([[0, 0, 0]], [1], [1, 1, 1]))


def test_columns_share_one_hash_op_and_one_prepare_op():
    fc = tf.feature_column
    cols = [fc.categorical_column_with_hash_bucket(k, 50) for k in ("a", "b")]
    data = {"a": np.array([b"x", b"", b"y"], dtype=object),
            "b": np.array([b"u", b"v", b"u"], dtype=object)}
    with tf.Graph().as_default() as g:
        feats = {k: tf.constant(v) for k, v in data.items()}
        deep = fc.input_layer(feats, [fc.embedding_column(c, 2) for c in cols])
        wide = fc.linear_model(feats, cols)
        types = [op.type for op in g.get_operations()]
        assert types.count("StringToHashBucketSparse") == 1
        assert types.count("SparseLookupPrepareMany") == 1
        assert types.count("SparseLookupPrepare") == 0
        assert "DenseToSparseDrop" not in types and "Unique" not in types
        names = sorted(v.op.name for v in tf.global_variables())
        assert names == ["input_layer/a_embedding/embedding_weights",
                         "input_layer/b_embedding/embedding_weights",
                         "linear_model/a/weights", "linear_model/b/weights",
                         "linear_model/bias_weights"]
        d, w, emb_a = _run([deep, wide, tf.global_variables()[0]], init=True)
    ids_a = (fingerprint64(np.array([b"x", b"y"], dtype=object)) % np.uint64(50)).astype(int)
    np.testing.assert_allclose(d[[0, 2], :2], emb_a[ids_a], rtol=1e-6)
    np.testing.assert_allclose(d[1, :2], 0.0)
    np.testing.assert_allclose(w, 0.0)


def test_linear_model_with_fused_lookups_trains_like_numpy():
    fc = tf.feature_column
    col = fc.categorical_column_with_hash_bucket("a", 10)
    vals = np.array([[b"p"], [b""], [b"q"]], dtype=object)
    with tf.Graph().as_default():
        out = fc.linear_model({"a": tf.constant(vals)}, [col])
        loss = tf.reduce_sum(out * np.array([[1.0], [2.0], [3.0]], np.float32))
        step = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        weights = [v for v in tf.global_variables() if v.op.name == "linear_model/a/weights"][0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(step)
            w = sess.run(weights)
    ids = (fingerprint64(np.array([b"p", b"q"], dtype=object)) % np.uint64(10)).astype(int)
    want = np.zeros((10, 1), np.float32)
    np.add.at(want, ids, np.array([[-0.5], [-1.5]], np.float32))
    np.testing.assert_allclose(w, want, rtol=1e-6)
