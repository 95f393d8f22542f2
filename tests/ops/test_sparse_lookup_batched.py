"""The batched combine of many columns' lookups (``SparseLookupCombineMany``) against
the per-column combine op and numpy, its gradients row by row, and the
feature-column layers that build it (``input_layer`` side by side,
``linear_model`` added up); the batched prepare (``SparseLookupPrepareMany``)
against the per-column prepare op and numpy."""

import json

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.feature_column import layers as fc_layers
from tensorfleet.framework.serialization import graph_to_plain, import_graph_def
from tensorfleet.ops.sparse_lookup_ops import (sparse_lookup_combine,
                                               sparse_lookup_combine_many,
                                               sparse_lookup_prepare,
                                               sparse_lookup_prepare_many)
from tensorfleet.testing.gradient_checker import check_gradients

# Three columns over a batch of 4: several entries per row, an empty row (zeroed or
# not), one entry per row; widths 2, 3, 2.
_COLS = [
    dict(rows=(3, 2), idx=[0, 2, 1, 2, 0], seg=[0, 0, 1, 1, 3],
         empty=[False, False, True, False], combiner="mean", zero=True),
    dict(rows=(2, 3), idx=[1, 0, 1, 1], seg=[0, 1, 2, 3],
         empty=[False, False, False, True], combiner="sum", zero=False),
    dict(rows=(4, 2), idx=[3, 0, 1, 2, 3, 0], seg=[0, 0, 0, 1, 2, 3],
         empty=[False, False, False, False], combiner="sqrtn", zero=True),
]


def _rows(seed=0):
    rng = np.random.RandomState(seed)
    return [rng.normal(size=c["rows"]).astype(np.float32) for c in _COLS]


def _numpy_combine(rows, c):
    seg, idx, empty = np.array(c["seg"]), np.array(c["idx"]), np.array(c["empty"])
    counts = np.bincount(seg, minlength=len(empty))
    out = np.zeros((len(empty), rows.shape[1]), np.float64)
    np.add.at(out, seg, rows[idx])
    scale = {"sum": np.ones(len(empty)), "mean": 1.0 / np.maximum(counts, 1),
             "sqrtn": 1.0 / np.sqrt(np.maximum(counts, 1))}[c["combiner"]]
    if c["zero"]:
        scale = scale * ~empty
    return out * scale[:, None]


def _args(cols, rows):
    return (rows, [tf.constant(np.array(c["idx"], np.int32)) for c in cols],
            [tf.constant(np.array(c["seg"], np.int32)) for c in cols],
            [tf.constant(np.array(c["empty"])) for c in cols],
            [c["combiner"] for c in cols], [c["zero"] for c in cols])


def test_concat_and_sum_match_per_column_ops_and_numpy():
    vals = _rows()
    with tf.Graph().as_default() as g:
        rows = [tf.constant(v) for v in vals]
        cat = sparse_lookup_combine_many(*_args(_COLS, rows), reduce="concat")
        assert cat.shape.as_list() == [4, 7]
        two = [_COLS[0], _COLS[2]]
        summed = sparse_lookup_combine_many(*_args(two, [rows[0], rows[2]]), reduce="sum")
        assert summed.shape.as_list() == [4, 2]
        singles = [sparse_lookup_combine(r, i, s, e, c, zero_empty=z)
                   for r, i, s, e, c, z in zip(*_args(_COLS, rows))]
        with tf.Session(graph=g) as sess:
            got_cat, got_sum, ref = sess.run([cat, summed, singles])
    np.testing.assert_array_equal(got_cat, np.concatenate(ref, axis=1))
    np.testing.assert_array_equal(got_sum, ref[0] + ref[2])
    want = np.concatenate([_numpy_combine(v, c) for v, c in zip(vals, _COLS)], axis=1)
    np.testing.assert_allclose(got_cat, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reduce", ["concat", "sum"])
def test_gradients_match_per_column_ops(reduce):
    cols = _COLS if reduce == "concat" else [_COLS[0], _COLS[2]]
    vals = _rows(1) if reduce == "concat" else [_rows(1)[0], _rows(1)[2]]
    with tf.Graph().as_default() as g:
        rows = [tf.constant(v) for v in vals]
        out = sparse_lookup_combine_many(*_args(cols, rows), reduce=reduce)
        singles = [sparse_lookup_combine(r, i, s, e, c, zero_empty=z)
                   for r, i, s, e, c, z in zip(*_args(cols, rows))]
        ref = tf.concat(singles, 1) if reduce == "concat" else tf.add_n(singles)
        w = tf.constant(np.random.RandomState(2).uniform(0.5, 1.5, (4, ref.shape[1]))
                        .astype(np.float32))
        g_many = tf.gradients(tf.reduce_sum(out * w), rows)
        g_ref = tf.gradients(tf.reduce_sum(ref * w), rows)
        assert [op.type for op in g.get_operations()].count("SparseLookupCombineManyGrad") == 1
        with tf.Session(graph=g) as sess:
            got, want = sess.run([g_many, g_ref])
    for a, b, v in zip(got, want, vals):
        assert a.shape == v.shape
        np.testing.assert_array_equal(a, b)


def test_gradient_numerically_row_by_row():
    cols = _COLS

    def build(r0, r1, r2):
        return sparse_lookup_combine_many(*_args(cols, [r0, r1, r2]), reduce="concat")

    vals = [v.astype(np.float64) for v in _rows(3)]
    symbolic, _ = check_gradients(build, vals)
    w = np.random.RandomState(0).uniform(0.5, 1.5, (4, 7))  # the checker's weights
    offset = 0
    for k, c in enumerate(cols):
        width = c["rows"][1]
        wk = w[:, offset:offset + width]
        offset += width
        seg, idx, empty = np.array(c["seg"]), np.array(c["idx"]), np.array(c["empty"])
        counts = np.bincount(seg, minlength=4)
        scale = {"sum": np.ones(4), "mean": 1.0 / np.maximum(counts, 1),
                 "sqrtn": 1.0 / np.sqrt(np.maximum(counts, 1))}[c["combiner"]]
        if c["zero"]:
            scale = scale * ~empty
        for r in range(c["rows"][0]):
            want = sum((wk[seg[j]] * scale[seg[j]] for j in range(len(idx)) if idx[j] == r),
                       np.zeros(width))
            np.testing.assert_allclose(symbolic[k][r], want, rtol=1e-6)


def test_bad_arguments_raise():
    with tf.Graph().as_default():
        rows, idx, seg, empty, comb, zero = _args(_COLS[:2], [tf.zeros([3, 2]),
                                                              tf.zeros([2, 3])])
        with pytest.raises(ValueError, match="combiners\\[1\\]"):
            sparse_lookup_combine_many(rows, idx, seg, empty, ["mean", "max"], zero)
        with pytest.raises(ValueError, match="reduce"):
            sparse_lookup_combine_many(rows, idx, seg, empty, comb, zero, reduce="stack")
        with pytest.raises(ValueError, match="2 rows but"):
            sparse_lookup_combine_many(rows, idx[:1], seg, empty, comb, zero)
        with pytest.raises(ValueError, match="at least one"):
            sparse_lookup_combine_many([], [], [], [], [], [])
        with pytest.raises(ValueError, match="matrix"):
            sparse_lookup_combine_many([tf.zeros([3])], idx[:1], seg[:1], empty[:1],
                                       comb[:1], zero[:1])
        with pytest.raises(TypeError, match="one floating point dtype"):
            sparse_lookup_combine_many([rows[0], tf.zeros([2, 3], tf.float64)], idx, seg,
                                       empty, comb, zero)
        # Run time: columns of different batch sizes, and summed columns of two widths.
        longer = tf.constant(np.zeros(5, bool))
        bad = sparse_lookup_combine_many(rows, idx, seg, [empty[0], longer], comb, zero)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="examples"):
                sess.run(bad)
            widths = sparse_lookup_combine_many(rows, idx, seg, empty, comb, zero,
                                                reduce="sum")
            with pytest.raises(tf.errors.InvalidArgumentError, match="one width"):
                sess.run(widths)


def _model(batched, monkeypatch):
    """A small wide & deep graph; ``batched=False`` builds every lookup's own combine."""
    if not batched:
        monkeypatch.setattr(fc_layers, "prefetch_prepared", lambda ids, name=None: 0)
        monkeypatch.setattr(fc_layers, "_batchable_embedding", lambda col: False)
        monkeypatch.setattr(fc_layers, "_sum_lookups",
                            lambda terms, units: [t.combine() if isinstance(
                                t, fc_layers.LookupParts) else t for t in terms])
    fc = tf.feature_column
    cats = [fc.categorical_column_with_hash_bucket(k, 20) for k in ("a", "b", "d")]
    num = fc.numeric_column("c")
    deep_cols = [fc.embedding_column(cats[0], 2), fc.embedding_column(cats[1], 3), num,
                 fc.embedding_column(cats[2], 2, combiner="sqrtn")]
    data = {"a": np.array([b"x", b"", b"y", b"x"], dtype=object),
            "b": np.array([[b"u", b"v"], [b"v", b""], [b"", b""], [b"w", b"u"]], dtype=object),
            "c": np.array([[1.0], [2.0], [3.0], [4.0]], np.float32),
            "d": np.array([b"p", b"q", b"p", b""], dtype=object)}
    g = tf.Graph()
    with g.as_default():
        feats = {k: tf.constant(v) for k, v in data.items()}
        deep = fc.input_layer(feats, deep_cols)
        wide = fc.linear_model(feats, cats + [num], units=2)
        variables = sorted(tf.global_variables(), key=lambda v: v.op.name)
        rng = np.random.RandomState(5)
        values = [rng.normal(size=v.shape.as_list()).astype(np.float32) for v in variables]
        assigns = [tf.assign(v, x) for v, x in zip(variables, values)]
        w_deep = np.random.RandomState(6).uniform(0.5, 1.5, (4, 8)).astype(np.float32)
        loss = tf.reduce_sum(deep * w_deep) + tf.reduce_sum(wide * wide)
        grads = tf.gradients(loss, variables)
        with tf.Session(graph=g) as sess:
            sess.run(assigns)
            out = sess.run([deep, wide] + [tf.convert_to_tensor(gr) for gr in grads])
    return g, [v.op.name for v in variables], grads, out


def test_feature_column_layers_build_batched_form_with_same_results(monkeypatch):
    g, names, grads, got = _model(True, monkeypatch)
    types = [op.type for op in g.get_operations()]
    many = [op for op in g.get_operations() if op.type == "SparseLookupCombineMany"]
    # input_layer: the run a, b before the numeric column is batched, d alone after it;
    # linear_model: all three categorical columns added up in one op.
    assert sorted(op.attrs["reduce"] for op in many) == ["concat", "sum"]
    assert [op.attrs["N"] for op in many if op.attrs["reduce"] == "concat"] == [2]
    assert [op.attrs["N"] for op in many if op.attrs["reduce"] == "sum"] == [3]
    assert types.count("SparseLookupCombine") == 1
    assert types.count("GatherV2") == 6
    # The ids of a, b and d are prepared once, by one op, for both layers.
    prep = [op for op in g.get_operations() if op.type == "SparseLookupPrepareMany"]
    assert [op.attrs["N"] for op in prep] == [3]
    assert "SparseLookupPrepare" not in types
    # Every variable keeps its name and gets an IndexedSlices of the rows it used.
    assert "input_layer/b_embedding/embedding_weights" in names
    assert "linear_model/d/weights" in names
    sparse = {n for n, gr in zip(names, grads) if isinstance(gr, tf.IndexedSlices)}
    assert sparse == {n for n in names if "embedding_weights" in n or
                      n in ("linear_model/a/weights", "linear_model/b/weights",
                            "linear_model/d/weights")}
    g_ref, names_ref, _, want = _model(False, monkeypatch)
    ref_types = [op.type for op in g_ref.get_operations()]
    assert "SparseLookupPrepareMany" not in ref_types
    assert ref_types.count("SparseLookupPrepare") == 3
    assert names_ref == names
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_shared_embeddings_keep_their_own_combine():
    fc = tf.feature_column
    cats = [fc.categorical_column_with_hash_bucket(k, 20) for k in ("a", "b")]
    shared = fc.shared_embedding_columns(cats, 2)
    feats = {"a": np.array([b"x", b"y"], dtype=object),
             "b": np.array([b"y", b""], dtype=object)}
    with tf.Graph().as_default() as g:
        out = fc.input_layer({k: tf.constant(v) for k, v in feats.items()}, shared)
        types = [op.type for op in g.get_operations()]
        assert "SparseLookupCombineMany" not in types
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, table = sess.run([out, tf.global_variables()[0]])
    assert got.shape == (2, 4)
    np.testing.assert_allclose(got[1, 2:], 0.0)
    assert np.isin(got[0, :2], table).all()


@pytest.mark.parametrize("reduce", ["concat", "sum"])
def test_one_width_columns_match_per_column_ops_exactly(reduce):
    # Columns of one width take the stacked kernels; the results and gradients must be
    # bit for bit those of the per-column ops.
    cols = [dict(c, rows=(c["rows"][0], 2)) for c in _COLS]
    rng = np.random.RandomState(4)
    vals = [rng.normal(size=c["rows"]).astype(np.float32) for c in cols]
    with tf.Graph().as_default() as g:
        rows = [tf.constant(v) for v in vals]
        out = sparse_lookup_combine_many(*_args(cols, rows), reduce=reduce)
        singles = [sparse_lookup_combine(r, i, s, e, c, zero_empty=z)
                   for r, i, s, e, c, z in zip(*_args(cols, rows))]
        ref = tf.concat(singles, 1) if reduce == "concat" else tf.add_n(singles)
        w = tf.constant(rng.uniform(0.5, 1.5, (4, 6 if reduce == "concat" else 2))
                        .astype(np.float32))
        g_many = tf.gradients(tf.reduce_sum(out * w), rows)
        g_ref = tf.gradients(tf.reduce_sum(ref * w), rows)
        with tf.Session(graph=g) as sess:
            got, want, got_g, want_g = sess.run([out, ref, g_many, g_ref])
    np.testing.assert_array_equal(got, want)
    want_np = [_numpy_combine(v, c) for v, c in zip(vals, cols)]
    want_np = np.concatenate(want_np, 1) if reduce == "concat" else sum(want_np)
    np.testing.assert_allclose(got, want_np, rtol=1e-5, atol=1e-6)
    for a, b in zip(got_g, want_g):
        np.testing.assert_array_equal(a, b)


def test_one_width_columns_reject_bad_entries():
    with tf.Graph().as_default():
        rows = [tf.zeros([2, 2]), tf.zeros([3, 2])]
        idx = [tf.constant([0], tf.int32), tf.constant([3], tf.int32)]
        seg = [tf.constant([0], tf.int32), tf.constant([0], tf.int32)]
        empty = [tf.constant([False]), tf.constant([False])]
        bad_idx = sparse_lookup_combine_many(rows, idx, seg, empty, ["sum"] * 2, [True] * 2)
        unsorted = sparse_lookup_combine_many(
            rows, [tf.constant([0, 1], tf.int32)] * 2, [tf.constant([1, 0], tf.int32)] * 2,
            [tf.constant([False, False])] * 2, ["sum"] * 2, [True] * 2)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="idx must index"):
                sess.run(bad_idx)
            with pytest.raises(tf.errors.InvalidArgumentError, match="sorted"):
                sess.run(unsorted)


def test_batched_ops_cross_as_plain_data():
    # The graph runs partitioned across tasks: every attribute must survive JSON.
    vals = _rows()
    with tf.Graph().as_default() as g:
        rows = [tf.constant(v) for v in vals]
        out = sparse_lookup_combine_many(*_args(_COLS, rows), reduce="concat", name="many")
        grads = tf.gradients(tf.reduce_sum(out), rows)
        with tf.Session(graph=g) as sess:
            want = sess.run([out] + grads)
        names = [t.name for t in [out] + grads]
    g2 = import_graph_def(json.loads(json.dumps(graph_to_plain(g))))
    op = g2.get_operation_by_name("many")
    assert op.attrs["combiners"] == ["mean", "sum", "sqrtn"]
    assert op.attrs["zero_empty"] == [True, False, True]
    with tf.Session(graph=g2) as sess:
        got = sess.run([g2.get_tensor_by_name(n) for n in names])
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


# Ids of four columns: unsorted rows with duplicates, negative ids and empty rows; a
# column without any entry; int32 ids; another batch size. Each with a default id.
_PREP = [
    dict(ind=[[2, 0], [0, 1], [0, 0], [2, 1], [3, 0]], val=[7, 5, 7, -1, 5], shape=[5, 2],
         dtype=np.int64, default=None),
    dict(ind=np.zeros((0, 2)), val=[], shape=[3, 4], dtype=np.int64, default=4),
    dict(ind=[[0, 0], [1, 0], [1, 1], [1, 2]], val=[3, 9, 3, 9], shape=[3, 3],
         dtype=np.int32, default=2),
    dict(ind=[[1, 0], [0, 0]], val=[-2, 6], shape=[2, 1], dtype=np.int64, default=0),
]


def _sparse(c):
    return tf.SparseTensor(tf.constant(np.array(c["ind"], np.int64).reshape(-1, 2)),
                           tf.constant(np.array(c["val"], c["dtype"])),
                           tf.constant(np.array(c["shape"], np.int64)))


def _numpy_prepare(c):
    """``[unique, idx, segment_ids, empty]`` of one column, entry by entry."""
    rows = c["shape"][0]
    entries = sorted(((int(i[0]), k, int(v)) for k, (i, v) in
                      enumerate(zip(np.array(c["ind"]).reshape(-1, 2), c["val"])) if v >= 0))
    empty = np.array([not any(e[0] == r for e in entries) for r in range(rows)])
    fill = 0 if c["default"] is None else c["default"]
    entries = sorted(entries + [(r, -1, fill) for r in range(rows) if empty[r]])
    vals = np.array([e[2] for e in entries], c["dtype"])
    unique = np.unique(vals)
    return [unique, np.searchsorted(unique, vals), np.array([e[0] for e in entries]), empty]


def test_prepare_many_matches_per_column_ops_and_numpy():
    with tf.Graph().as_default() as g:
        many = sparse_lookup_prepare_many([_sparse(c) for c in _PREP],
                                          [c["default"] for c in _PREP])
        assert [op.type for op in g.get_operations()].count("SparseLookupPrepareMany") == 1
        singles = [sparse_lookup_prepare(_sparse(c), c["default"]) for c in _PREP]
        for outs, c in zip(many, _PREP):
            assert [t.dtype for t in outs] == [tf.as_dtype(c["dtype"]), tf.int32, tf.int32,
                                               tf.bool]
            assert outs[3].shape.as_list() == [c["shape"][0]]
        with tf.Session(graph=g) as sess:
            got, want = sess.run([many, singles])
    for got_c, want_c, c in zip(got, want, _PREP):
        for a, b, ref in zip(got_c, want_c, _numpy_prepare(c)):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(a, ref)


def test_prepare_many_bad_input_raises():
    with tf.Graph().as_default():
        good = _sparse(_PREP[0])
        with pytest.raises(ValueError, match="at least one column"):
            sparse_lookup_prepare_many([], [])
        with pytest.raises(ValueError, match="2 sp_ids but 1 default_ids"):
            sparse_lookup_prepare_many([good, good], [None])
        with pytest.raises(TypeError, match="column 1: sp_ids must be a SparseTensor"):
            sparse_lookup_prepare_many([good, tf.constant([1, 2])], [None, None])
        floats = tf.SparseTensor([[0, 0]], tf.constant([1.0]), [1, 1])
        with pytest.raises(TypeError, match="column 0: ids must be integers"):
            sparse_lookup_prepare_many([floats, good], [None, None])
        with pytest.raises(ValueError, match="column 1: sp_ids must have rank 2"):
            sparse_lookup_prepare_many([good, tf.SparseTensor([[0, 0, 0]], [1], [1, 1, 1])],
                                       [None, None])
        ind = tf.placeholder(tf.int64, [None, 2])
        outside = tf.SparseTensor(ind, tf.constant([1, 2], tf.int64),
                                  tf.constant([2, 3], tf.int64))
        prep = sparse_lookup_prepare_many([good, outside], [None, None])
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="column 1: indices must lie in dense_shape"):
                sess.run(prep[1], {ind: np.array([[0, 0], [2, 0]], np.int64)})


def test_prepare_many_crosses_as_plain_data():
    with tf.Graph().as_default() as g:
        many = sparse_lookup_prepare_many([_sparse(c) for c in _PREP],
                                          [c["default"] for c in _PREP], name="prep")
        flat = [t for outs in many for t in outs]
        with tf.Session(graph=g) as sess:
            want = sess.run(flat)
        names = [t.name for t in flat]
    g2 = import_graph_def(json.loads(json.dumps(graph_to_plain(g))))
    assert g2.get_operation_by_name("prep").attrs["default_ids"] == [-1, 4, 2, 0]
    with tf.Session(graph=g2) as sess:
        got = sess.run([g2.get_tensor_by_name(n) for n in names])
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtypes", [(np.int64, np.int32), (np.uint8, np.int64)])
def test_prepare_many_random_columns_match_per_column_ops(dtypes):
    # Many columns of random ids (shuffled entries, repeats, negatives where signed,
    # empty rows): the stacked kernel, or the one-by-one path for unsigned ids, must
    # give each column exactly its own prepare op's outputs.
    rng = np.random.RandomState(7)
    cols = []
    for k in range(6):
        batch, width = int(rng.randint(1, 9)), int(rng.randint(1, 4))
        cells = np.argwhere(rng.rand(batch, width) < 0.6)
        cells = cells[rng.permutation(len(cells))]
        dtype = dtypes[k % 2]
        low = -3 if np.issubdtype(dtype, np.signedinteger) else 0
        cols.append(dict(ind=cells, val=rng.randint(low, 6, len(cells)), shape=[batch, width],
                         dtype=dtype, default=[None, 1, 5][k % 3]))
    with tf.Graph().as_default() as g:
        many = sparse_lookup_prepare_many([_sparse(c) for c in cols],
                                          [c["default"] for c in cols])
        singles = [sparse_lookup_prepare(_sparse(c), c["default"]) for c in cols]
        with tf.Session(graph=g) as sess:
            got, want = sess.run([many, singles])
    for got_c, want_c, c in zip(got, want, cols):
        for a, b, ref in zip(got_c, want_c, _numpy_prepare(c)):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(a, ref)


def test_prepare_many_large_ids_match_per_column_ops():
    # Ids too large for one (column, id) sort key take the two-key sort.
    big = [dict(ind=[[0, 0], [1, 0], [0, 1]], val=[2 ** 62, 3, 2 ** 62], shape=[3, 2],
                dtype=np.int64, default=None),
           dict(ind=[[1, 0], [0, 0]], val=[2 ** 61, 2 ** 63 - 1], shape=[2, 1],
                dtype=np.int64, default=7)]
    with tf.Graph().as_default() as g:
        many = sparse_lookup_prepare_many([_sparse(c) for c in big],
                                          [c["default"] for c in big])
        singles = [sparse_lookup_prepare(_sparse(c), c["default"]) for c in big]
        with tf.Session(graph=g) as sess:
            got, want = sess.run([many, singles])
    for got_c, want_c, c in zip(got, want, big):
        for a, b, ref in zip(got_c, want_c, _numpy_prepare(c)):
            np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(a, ref)
