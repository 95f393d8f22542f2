"""embedding_lookup_sparse and safe_embedding_lookup_sparse over single and sharded params."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.ops import nn_ops
from tensorfleet.testing.cluster import local_cluster
from tensorfleet.testing.gradient_checker import check_gradients
from tensorfleet.training.device_setter import replica_device_setter

VOCAB, DIM = 10, 3
# Three rows of ids: row 0 has [7, 2, 7], row 1 is empty, row 2 has [4], row 3 has [9, 0].
SP_IND = np.array([[0, 0], [0, 1], [0, 2], [2, 0], [3, 0], [3, 1]], np.int64)
SP_IDS = np.array([7, 2, 7, 4, 9, 0], np.int64)
SP_W = np.array([0.5, 2.0, 1.5, 3.0, 1.0, 0.25])
SP_SHAPE = np.array([4, 3], np.int64)


def _reference(table, ind, ids, weights, combiner, rows):
    out = np.zeros((rows, table.shape[1]))
    for r in range(rows):
        sel = ind[:, 0] == r
        if not sel.any():
            continue
        w = weights[sel] if weights is not None else np.ones(sel.sum())
        total = (table[ids[sel]] * w[:, None]).sum(0)
        scale = {"sum": 1.0, "mean": w.sum(), "sqrtn": np.sqrt((w ** 2).sum())}[combiner]
        out[r] = total / scale
    return out


def _logical(shards, strategy):
    if strategy == "div":
        return np.concatenate(shards, 0)
    n = len(shards)
    return np.stack([shards[i % n][i // n] for i in range(sum(len(s) for s in shards))])


def _route(ids, shard_rows, strategy):
    """(shard, row) holding each id."""
    n = len(shard_rows)
    if strategy == "mod":
        return [(i % n, i // n) for i in ids]
    starts = np.cumsum([0] + shard_rows)
    return [(int(np.searchsorted(starts, i, side="right")) - 1,
             int(i - starts[np.searchsorted(starts, i, side="right") - 1])) for i in ids]


def _sp_ids():
    return tf.SparseTensor(SP_IND, SP_IDS, SP_SHAPE)


def _sp_weights(values=SP_W):
    return tf.SparseTensor(SP_IND, values, SP_SHAPE)


# -- values ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
@pytest.mark.parametrize("weighted", [False, True])
def test_single_table_matches_numpy(combiner, weighted):
    table = np.random.RandomState(0).randn(VOCAB, DIM)
    out = tf.nn.embedding_lookup_sparse(tf.constant(table), _sp_ids(),
                                        _sp_weights() if weighted else None, combiner=combiner)
    with tf.Session() as sess:
        got = sess.run(out)
    want = _reference(table, SP_IND, SP_IDS, SP_W if weighted else None, combiner, 4)
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("strategy", ["mod", "div"])
@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
def test_partitioned_variable_matches_numpy(strategy, combiner):
    emb = tf.get_variable("emb", [VOCAB, DIM], tf.float64,
                          partitioner=tf.fixed_size_partitioner(3),
                          initializer=tf.random_normal_initializer(seed=3))
    as_list = list(emb)
    outs = [tf.nn.embedding_lookup_sparse(p, _sp_ids(), _sp_weights(), partition_strategy=strategy,
                                          combiner=combiner) for p in (emb, as_list)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        table = _logical(sess.run(as_list), strategy)
        got = sess.run(outs)
    want = _reference(table, SP_IND, SP_IDS, SP_W, combiner, 4)
    for g in got:
        np.testing.assert_allclose(g, want, rtol=1e-12)


def test_max_norm_clips_each_looked_up_row():
    table = np.arange(VOCAB * DIM, dtype=np.float64).reshape(VOCAB, DIM)
    out = tf.nn.embedding_lookup_sparse(tf.constant(table), _sp_ids(), None, combiner="sum",
                                        max_norm=1.0)
    clipped = table / np.maximum(np.linalg.norm(table, axis=1, keepdims=True), 1.0)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(out),
                                   _reference(clipped, SP_IND, SP_IDS, None, "sum", 4))


# -- gradients ------------------------------------------------------------------------------------

@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
def test_numeric_gradients_of_params_and_weights(combiner):
    table = np.random.RandomState(1).randn(VOCAB, DIM)
    check_gradients(lambda p, w: tf.nn.embedding_lookup_sparse(
        p, _sp_ids(), _sp_weights(w), combiner=combiner), [table, SP_W])
    check_gradients(lambda p: tf.nn.embedding_lookup_sparse(
        p, _sp_ids(), None, combiner=combiner), [table])


@pytest.mark.parametrize("strategy", ["mod", "div"])
def test_each_shard_gradient_is_indexed_slices_of_its_own_ids(strategy):
    emb = tf.get_variable("emb", [VOCAB, DIM], tf.float64,
                          partitioner=tf.fixed_size_partitioner(3),
                          initializer=tf.random_normal_initializer(seed=4))
    out = tf.nn.embedding_lookup_sparse(emb, _sp_ids(), _sp_weights(), partition_strategy=strategy,
                                        combiner="sum")
    w_out = np.random.RandomState(5).randn(4, DIM)
    loss = tf.reduce_sum(out * w_out)
    grads = tf.gradients(loss, list(emb))
    assert all(isinstance(g, tf.IndexedSlices) for g in grads)
    shard_rows = [int(v.get_shape()[0]) for v in emb]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run(grads)
    route = _route(SP_IDS, shard_rows, strategy)
    for p, g in enumerate(values):
        want_rows = sorted({row for shard, row in route if shard == p})
        assert sorted(np.asarray(g.indices).tolist()) == want_rows, f"shard {p}"
        # Row by row: d loss / d row = sum over entries with that id of weight * w_out[row].
        dense = np.zeros((shard_rows[p], DIM))
        np.add.at(dense, np.asarray(g.indices), np.asarray(g.values))
        want = np.zeros_like(dense)
        for (shard, row), (r, _), w in zip(route, SP_IND, SP_W):
            if shard == p:
                want[row] += w * w_out[r]
        np.testing.assert_allclose(dense, want, rtol=1e-12)


def test_nn_embedding_lookup_over_several_partitions():
    shards = [np.random.RandomState(i).randn(r, 2) for i, r in enumerate((4, 3, 3))]
    ids = np.array([[9, 0], [4, 4], [5, 1]])
    for strategy in ("mod", "div"):
        out = nn_ops.embedding_lookup([tf.constant(s) for s in shards], ids,
                                      partition_strategy=strategy)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(out), _logical(shards, strategy)[ids])


# -- safe lookups ---------------------------------------------------------------------------------

def test_safe_lookup_drops_invalid_ids_and_fills_empty_rows():
    assert tf.nn.safe_embedding_lookup_sparse is tf.contrib.layers.safe_embedding_lookup_sparse
    table = np.random.RandomState(6).randn(VOCAB, DIM)
    ids = np.array([7, -1, 3, -1, 5], np.int64)
    ind = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [3, 0]], np.int64)
    weights = np.array([1.0, 5.0, 0.0, 2.0, 2.0])
    sp_ids = tf.SparseTensor(ind, ids, [4, 3])
    sp_w = tf.SparseTensor(ind, weights, [4, 3])
    plain = tf.contrib.layers.safe_embedding_lookup_sparse([tf.constant(table)], sp_ids, sp_w)
    with_default = tf.nn.safe_embedding_lookup_sparse(tf.constant(table), sp_ids, None,
                                                      combiner="sum", default_id=2)
    with tf.Session() as sess:
        got, got_default = sess.run([plain, with_default])
    # Mean: id 3 has weight 0 and ids -1 are dropped; rows 1 and 2 end up empty -> zeros.
    np.testing.assert_allclose(got, np.stack([table[7], np.zeros(DIM), np.zeros(DIM),
                                              table[5]]), rtol=1e-12)
    np.testing.assert_allclose(got_default, np.stack([table[7] + table[3], table[2], table[2],
                                                      table[5]]), rtol=1e-12)


@pytest.mark.parametrize("strategy", ["mod", "div"])
def test_safe_lookup_rank3_ids_on_partitioned_variable(strategy):
    emb = tf.get_variable("emb", [VOCAB, DIM], tf.float64,
                          partitioner=tf.fixed_size_partitioner(2),
                          initializer=tf.random_normal_initializer(seed=7))
    ind = np.array([[0, 0, 0], [0, 0, 1], [1, 1, 0], [1, 0, 0]], np.int64)
    ids = np.array([1, 8, 6, 3], np.int64)
    out = tf.nn.safe_embedding_lookup_sparse(emb, tf.SparseTensor(ind, ids, [2, 2, 2]),
                                             combiner="sum", partition_strategy=strategy)
    assert out.get_shape().as_list() == [2, 2, DIM]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        table = _logical(sess.run(list(emb)), strategy)
        got = sess.run(out)
    want = np.zeros((2, 2, DIM))
    for (a, b, _), i in zip(ind, ids):
        want[a, b] += table[i]
    np.testing.assert_allclose(got, want, rtol=1e-12)


# -- bad input ------------------------------------------------------------------------------------

def test_bad_arguments_are_named():
    table = tf.constant(np.zeros([VOCAB, DIM]))
    with pytest.raises(ValueError, match="combiner must be one of"):
        tf.nn.embedding_lookup_sparse(table, _sp_ids(), None, combiner="max")
    with pytest.raises(TypeError, match="sp_ids must be a SparseTensor"):
        tf.nn.embedding_lookup_sparse(table, np.array([[1, 2]]), None)
    with pytest.raises(TypeError, match="sp_ids must hold int32 or int64 ids"):
        tf.nn.embedding_lookup_sparse(table, tf.SparseTensor(SP_IND, SP_W, SP_SHAPE), None)
    with pytest.raises(ValueError, match="sp_weights has"):
        tf.nn.embedding_lookup_sparse(table, _sp_ids(), tf.SparseTensor(
            SP_IND[:2], SP_W[:2], SP_SHAPE))
    with pytest.raises(ValueError, match="unrecognized partition_strategy"):
        tf.nn.embedding_lookup_sparse([table, table], _sp_ids(), None, partition_strategy="x")


@pytest.mark.parametrize("sharded", [False, True])
def test_out_of_range_id_fails_naming_the_gather(sharded):
    table = tf.constant(np.zeros([VOCAB, DIM]))
    params = [table[:5], table[5:]] if sharded else table
    bad = tf.SparseTensor([[0, 0], [1, 0]], np.array([3, 12], np.int64), [2, 1])
    out = tf.nn.embedding_lookup_sparse(params, bad, None, partition_strategy="div")
    match = (r"every id must be in \[0, R\) where R = 10 is the number of rows of all "
             r"shards; got ids from 3 to 12" if sharded
             else r"GatherV2: indices\[1\] = 12 is not in \[0, 10\)")
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match=match):
        sess.run(out)


# -- on a cluster ---------------------------------------------------------------------------------

@pytest.mark.parametrize("strategy", ["mod", "div"])
def test_cluster_training_step_updates_only_looked_up_rows(strategy):
    with local_cluster(ps=2, worker=1) as c:
        with tf.device(replica_device_setter(ps_tasks=2, worker_device="/job:worker/task:0")):
            emb = tf.get_variable("emb", [VOCAB, DIM], tf.float32,
                                  partitioner=tf.fixed_size_partitioner(2),
                                  initializer=tf.random_normal_initializer(seed=8))
            sp_ids = tf.sparse_placeholder(tf.int64, [4, 3])
            out = tf.nn.embedding_lookup_sparse(emb, sp_ids, None, partition_strategy=strategy,
                                                combiner="sum")
            loss = tf.reduce_sum(out)
            opt = tf.train.GradientDescentOptimizer(1.0)
            grads = opt.compute_gradients(loss)
            train = opt.apply_gradients(grads)
        assert [type(g) for g, _ in grads] == [tf.IndexedSlices] * 2
        assert sorted(v.device for v in emb) == ["/job:ps/task:0", "/job:ps/task:1"]
        feed = {sp_ids: tf.SparseTensorValue(SP_IND, SP_IDS, SP_SHAPE)}
        with tf.Session(c.target("worker", 0)) as sess:
            sess.run(tf.global_variables_initializer())
            before = _logical(sess.run(list(emb)), strategy)
            sess.run(train, feed)
            after = _logical(sess.run(list(emb)), strategy)
    expected = before.copy()
    np.add.at(expected, SP_IDS, -1.0)  # each occurrence of an id adds 1 to d loss / d row
    np.testing.assert_allclose(after, expected, rtol=1e-6)
