"""Partitioners, partitioned variables and embedding lookups over shards."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.distributed.placement import place
from tensorfleet.distributed.cluster import ClusterSpec
from tensorfleet.ops.embedding_ops import embedding_lookup
from tensorfleet.runtime.executor import prune
from tensorfleet.testing.cluster import local_cluster
from tensorfleet.training.device_setter import replica_device_setter


def _parts(partitioner, shape, dtype=tf.float32):
    return partitioner(shape=tf.TensorShape(shape), dtype=dtype)


# -- partitioners ------------------------------------------------------------------------------

def test_fixed_size_partitioner():
    assert _parts(tf.fixed_size_partitioner(3), [10, 3]) == [3, 1]
    assert _parts(tf.fixed_size_partitioner(5), [2, 7]) == [2, 1]  # no more shards than rows
    assert _parts(tf.fixed_size_partitioner(4, axis=1), [6, 8, 2]) == [1, 4, 1]
    assert _parts(tf.fixed_size_partitioner(2, axis=-1), [6, 8]) == [1, 2]
    with pytest.raises(ValueError, match="num_shards must be positive"):
        tf.fixed_size_partitioner(0)
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        _parts(tf.fixed_size_partitioner(2, axis=2), [6, 8])


def test_min_max_variable_partitioner():
    kb256 = 256 << 10
    mm = tf.min_max_variable_partitioner
    # 1 MiB of float32 in slices of at least 256 KiB: 4 shards.
    assert _parts(mm(max_partitions=8), [1024, 256]) == [4, 1]
    assert _parts(mm(max_partitions=3), [1024, 256]) == [3, 1]
    assert _parts(mm(max_partitions=8), [1025, 256]) == [5, 1]  # rounds up
    assert _parts(mm(max_partitions=8), [10, 10]) == [1, 1]
    assert _parts(mm(max_partitions=100, min_slice_size=4), [3, 2]) == [3, 1]
    assert _parts(mm(max_partitions=8, min_slice_size=kb256 // 2), [1024, 256]) == [8, 1]
    assert _parts(mm(max_partitions=9, bytes_per_string_element=64), [4096, 4],
                  tf.string) == [4, 1]
    assert _parts(mm(max_partitions=4, axis=1), [256, 1024]) == [1, 4]
    with pytest.raises(ValueError, match="fully defined"):
        _parts(mm(max_partitions=2), [None, 3])
    with pytest.raises(ValueError, match="must be positive"):
        mm(max_partitions=0)


def test_variable_axis_size_partitioner():
    va = tf.variable_axis_size_partitioner
    # One [64] float32 slice is 256 bytes: 10 slices fit in 2560 bytes.
    assert _parts(va(2560), [100, 64]) == [10, 1]
    assert _parts(va(2600), [100, 64]) == [10, 1]
    assert _parts(va(2560, max_shards=4), [100, 64]) == [4, 1]
    assert _parts(va(10), [100, 64]) == [100, 1]  # at least one slice per shard
    assert _parts(va(1 << 30), [100, 64]) == [1, 1]
    assert _parts(va(400, axis=1), [10, 100]) == [1, 10]
    assert _parts(va(160, bytes_per_string_element=16), [100], tf.string) == [10]
    with pytest.raises(ValueError, match="must be"):
        va(0)
    with pytest.raises(ValueError, match="max_shards must be positive"):
        va(10, max_shards=0)


# -- get_variable with a partitioner ------------------------------------------------------------

def test_get_variable_creates_shards_with_tf_split_rule():
    emb = tf.get_variable("emb", [10, 3], partitioner=tf.fixed_size_partitioner(3))
    assert isinstance(emb, tf.PartitionedVariable)
    assert emb.name == "emb" and emb.dtype == tf.float32 and len(emb) == 3
    assert emb.get_shape().as_list() == [10, 3] and emb._get_partitions() == [3, 1]
    shards = emb._get_variable_list()
    assert [v.name for v in shards] == ["emb/part_0:0", "emb/part_1:0", "emb/part_2:0"]
    assert [v.get_shape().as_list() for v in shards] == [[4, 3], [3, 3], [3, 3]]
    assert [v._get_save_slice_info().var_offset for v in shards] == [[0, 0], [4, 0], [7, 0]]
    assert shards[1]._get_save_slice_info().spec == "10 3 4,3:0,3"
    assert list(emb) == shards
    # The shards are the variables the collections (and so optimizers and savers) see.
    assert all(v in tf.trainable_variables() for v in shards)
    assert tf.convert_to_tensor(emb).get_shape().as_list() == [10, 3]


def test_partitioned_initializers():
    value = np.arange(21, dtype=np.float32).reshape(7, 3)
    a = tf.get_variable("a", initializer=value, partitioner=tf.fixed_size_partitioner(2))
    b = tf.get_variable("b", initializer=tf.constant(value * 2),
                        partitioner=tf.fixed_size_partitioner(3))
    c = tf.get_variable("c", [5, 2], initializer=tf.ones_initializer(),
                        partitioner=tf.fixed_size_partitioner(2, axis=1))
    d = tf.get_variable("d", initializer=[[1, 2], [3, 4], [5, 6]], dtype=tf.int32,
                        partitioner=tf.fixed_size_partitioner(2))
    # Glorot uses the full variable's fans: limit sqrt(6 / (1000 + 10)), not a shard's.
    e = tf.get_variable("e", [1000, 10], partitioner=tf.fixed_size_partitioner(4))
    s = tf.get_variable("s", [], partitioner=tf.fixed_size_partitioner(4))
    assert isinstance(s, tf.Variable) and s.name == "s:0"
    assert [v.get_shape().as_list() for v in c] == [[5, 1], [5, 1]]
    assert d.dtype == tf.int32
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(a.as_tensor()), value)
        np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(b)), value * 2)
        np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(c)), np.ones([5, 2]))
        np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(d)), [[1, 2], [3, 4], [5, 6]])
        ev = sess.run(tf.convert_to_tensor(e))
        assert np.abs(ev).max() <= np.sqrt(6.0 / 1010) and np.abs(ev).max() > 0.06
        sess.run(a.assign(value + 1))
        np.testing.assert_array_equal(sess.run(a.as_tensor()), value + 1)


def test_variable_scope_partitioner_and_reuse():
    part = tf.fixed_size_partitioner(2)
    with tf.variable_scope("model", partitioner=part):
        w = tf.get_variable("w", [6, 4])
        bias = tf.get_variable("bias", [4], partitioner=tf.fixed_size_partitioner(1))
    assert [v.name for v in w] == ["model/w/part_0:0", "model/w/part_1:0"]
    assert [v.name for v in bias] == ["model/bias/part_0:0"]
    with tf.variable_scope("model", reuse=True, partitioner=part):
        assert tf.get_variable("w", [6, 4]) is w
        assert tf.get_variable("w") is w
    with tf.variable_scope("model", reuse=tf.AUTO_REUSE, partitioner=part):
        assert tf.get_variable("w", [6, 4]) is w
        fresh = tf.get_variable("fresh", [4, 4])
    assert len(fresh) == 2
    with tf.variable_scope("model", partitioner=part):
        with pytest.raises(ValueError, match="already exists, disallowed"):
            tf.get_variable("w", [6, 4])
    with tf.variable_scope("model", reuse=True, partitioner=part):
        with pytest.raises(ValueError, match="does not exist"):
            tf.get_variable("missing", [6, 4])
        with pytest.raises(ValueError, match="specified shape"):
            tf.get_variable("w", [7, 4])
        with pytest.raises(ValueError, match="specified dtype"):
            tf.get_variable("w", [6, 4], dtype=tf.float64)
    with tf.variable_scope("model", reuse=True, partitioner=tf.fixed_size_partitioner(3)):
        with pytest.raises(ValueError, match=r"partitioner gives \[3, 1\]"):
            tf.get_variable("w", [6, 4])
    with tf.variable_scope("model", reuse=True):
        with pytest.raises(ValueError, match="No partitioner was given"):
            tf.get_variable("w", [6, 4])
    plain = tf.get_variable("plain", [4, 2])
    del plain
    with pytest.raises(ValueError, match="without partitions exists"):
        tf.get_variable("plain", [4, 2], partitioner=part)
    with pytest.raises(ValueError, match="list of ints"):
        tf.get_variable("bad", [4, 2], partitioner=lambda shape, dtype: 2)
    with pytest.raises(ValueError, match="more than one axis"):
        tf.get_variable("bad2", [4, 2], partitioner=lambda shape, dtype: [2, 2])
    with pytest.raises(ValueError, match="rank"):
        tf.get_variable("bad3", [4, 2], partitioner=lambda shape, dtype: [2])


def test_create_partitioned_variables_old_api():
    vs = tf.create_partitioned_variables([6, 2], [3, 1], tf.ones_initializer(), name="old")
    assert [v.name for v in vs] == ["old/part_0:0", "old/part_1:0", "old/part_2:0"]
    assert [v.get_shape().as_list() for v in vs] == [[2, 2]] * 3


def test_shards_spread_over_ps_tasks():
    with tf.device(replica_device_setter(ps_tasks=2)):
        emb = tf.get_variable("emb", [100, 8], partitioner=tf.fixed_size_partitioner(4))
        other = tf.get_variable("other", [3])
    assert [v.device for v in emb] == ["/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:0",
                                       "/job:ps/task:1"]
    assert other.device == "/job:ps/task:0"


# -- embedding_lookup ---------------------------------------------------------------------------

def _logical(shards, strategy):
    """The full matrix an embedding lookup over ``shards`` indexes into."""
    if strategy == "div":
        return np.concatenate(shards, 0)
    n = len(shards)
    total = sum(s.shape[0] for s in shards)
    return np.stack([shards[i % n][i // n] for i in range(total)])


@pytest.mark.parametrize("strategy", ["mod", "div"])
def test_lookup_on_partitioned_variable_matches_numpy(strategy):
    emb = tf.get_variable("emb", [11, 4], partitioner=tf.fixed_size_partitioner(3),
                          initializer=tf.random_normal_initializer(seed=1))
    ids = tf.placeholder(tf.int64, [None, 3])
    out = embedding_lookup(emb, ids, partition_strategy=strategy)
    assert out.get_shape().as_list() == [None, 3, 4]
    id_values = np.array([[0, 10, 5], [5, 5, 3], [7, 1, 2], [9, 8, 6]])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        full = _logical(sess.run(list(emb)), strategy)
        np.testing.assert_array_equal(sess.run(out, {ids: id_values}), full[id_values])
        np.testing.assert_array_equal(sess.run(out, {ids: np.zeros([0, 3])}).shape, [0, 3, 4])


@pytest.mark.parametrize("strategy", ["mod", "div"])
def test_lookup_on_plain_shards_and_dynamic_shapes(strategy):
    rng = np.random.RandomState(0)
    values = [rng.randn(r, 2).astype(np.float32) for r in (3, 2, 2)]
    shards = [tf.placeholder(tf.float32, [None, 2], name=f"s{i}") for i in range(3)]
    ids = tf.constant([6, 0, 3, 4, 1, 1])
    out = embedding_lookup(shards, ids, partition_strategy=strategy)
    static = embedding_lookup([tf.constant(v) for v in values], ids, partition_strategy=strategy)
    with tf.Session() as sess:
        feed = dict(zip(shards, values))
        want = _logical(values, strategy)[[6, 0, 3, 4, 1, 1]]
        np.testing.assert_array_equal(sess.run(out, feed), want)
        np.testing.assert_array_equal(sess.run(static), want)


def test_single_tensor_lookup_max_norm_and_errors():
    params = tf.constant([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(embedding_lookup(params, [[2], [0]])),
                                   [[[6, 8]], [[3, 4]]])
        clipped = embedding_lookup(params, [0, 1, 2], max_norm=1.0)
        np.testing.assert_allclose(sess.run(clipped), [[0.6, 0.8], [0.3, 0.4], [0.6, 0.8]],
                                   rtol=1e-6)
        sharded = embedding_lookup([params, params * 2], [0, 3, 1, 4], max_norm=5.0)
        np.testing.assert_allclose(sess.run(sharded), [[3, 4], [0.6, 0.8], [3, 4], [3, 4]],
                                   rtol=1e-6)
    with pytest.raises(ValueError, match="partition_strategy"):
        embedding_lookup([params, params], [0], partition_strategy="hash")
    with pytest.raises(ValueError, match="at least one"):
        embedding_lookup([], [0])
    with pytest.raises(TypeError, match="int32 or int64"):
        embedding_lookup(params, [0.5])


def _lookup_model(strategy, num_shards=3, rows=10, dim=2):
    emb = tf.get_variable("emb", [rows, dim], partitioner=tf.fixed_size_partitioner(num_shards),
                          initializer=tf.random_uniform_initializer(-1.0, 1.0, seed=3))
    ids = tf.placeholder(tf.int32, [None], name="ids")
    weights = tf.placeholder(tf.float32, [None, dim], name="weights")
    looked = embedding_lookup(emb, ids, partition_strategy=strategy)
    loss = tf.reduce_sum(looked * weights)
    return emb, ids, weights, loss


@pytest.mark.parametrize("strategy", ["mod", "div"])
def test_gradients_are_sparse_per_shard_and_update_only_looked_up_rows(strategy):
    emb, ids, weights, loss = _lookup_model(strategy)
    opt = tf.train.GradientDescentOptimizer(0.5)
    grads = opt.compute_gradients(loss)
    assert [v for _, v in grads] == list(emb)
    assert all(isinstance(g, tf.IndexedSlices) for g, _ in grads)
    train = opt.apply_gradients(grads)
    updates = [op.type for op in tf.get_default_graph().get_operations()
               if op.type.endswith("ApplyGradientDescent")]
    assert updates == ["SparseApplyGradientDescent"] * 3
    id_values = np.array([7, 2, 7, 4])
    w = np.arange(8, dtype=np.float32).reshape(4, 2) + 1
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = _logical(sess.run(list(emb)), strategy)
        sess.run(train, {ids: id_values, weights: w})
        after = _logical(sess.run(list(emb)), strategy)
    expected = before.copy()
    np.add.at(expected, id_values, -0.5 * w)  # repeated ids accumulate
    np.testing.assert_allclose(after, expected, rtol=1e-6)
    untouched = np.setdiff1d(np.arange(10), id_values)
    np.testing.assert_array_equal(after[untouched], before[untouched])


def test_lookup_gathers_on_each_shards_ps_and_routing_on_worker():
    cluster = ClusterSpec({"ps": ["p0:1", "p1:1"], "worker": ["w0:1"]})
    with tf.device(replica_device_setter(cluster=cluster, worker_device="/job:worker/task:0")):
        emb, ids, weights, loss = _lookup_model("mod", num_shards=2)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    g = tf.get_default_graph()
    placement = place(prune([loss], [train], set()), cluster, "/job:worker/task:0")
    by_name = {op.name: task for op, task in placement.items()}
    assert by_name["embedding_lookup/gather_0"] == "/job:ps/task:0"
    assert by_name["embedding_lookup/gather_1"] == "/job:ps/task:1"
    assert by_name["embedding_lookup/shard_ids"] == "/job:worker/task:0"
    assert by_name["embedding_lookup/stitch"] == "/job:worker/task:0"
    updates = [op for op in g.get_operations() if op.type == "SparseApplyGradientDescent"]
    assert sorted(by_name[op.name] for op in updates) == ["/job:ps/task:0", "/job:ps/task:1"]


def _ps_update_inputs(c, i):
    """For ps task ``i``: the op types feeding its sparse updates, from the partition the
    master registered there (what really runs on that task)."""
    out = []
    for reg in c.server("ps", i).worker._graphs.values():
        ops = {op.name: op for op in reg.graph.get_operations()}
        for op in ops.values():
            if op.type in ("SparseApplyGradientDescent", "ApplyGradientDescent"):
                out.append((op.type, [t.op.type for t in op.inputs]))
    return out


@pytest.mark.parametrize("strategy", ["mod", "div"])
def test_cluster_lookup_contacts_only_the_shards_holding_the_ids(strategy):
    with local_cluster(ps=2, worker=1) as c:
        with tf.device(replica_device_setter(ps_tasks=2, worker_device="/job:worker/task:0")):
            emb, ids, weights, loss = _lookup_model(strategy, num_shards=2, rows=10, dim=3)
            opt = tf.train.GradientDescentOptimizer(1.0)
            grads = opt.compute_gradients(loss)
            train = opt.apply_gradients(grads)
        g = tf.get_default_graph()
        gathers = [g.get_operation_by_name(f"embedding_lookup/gather_{p}") for p in range(2)]
        arriving = [op.inputs[1] for op in gathers]  # the ids each shard's gather receives
        looked = g.get_operation_by_name("embedding_lookup/lookup").outputs[0]
        # Ids held by shard 0 only: even ids (mod) or ids 0..4 (div).
        on_shard0 = np.array([4, 0, 2, 4]) if strategy == "mod" else np.array([3, 0, 4, 3])
        w = np.ones([4, 3], np.float32)
        with tf.Session(c.target("worker", 0)) as sess:
            sess.run(tf.global_variables_initializer())
            shards_before = sess.run(list(emb))
            full = _logical(shards_before, strategy)
            got, sent, rows_back = sess.run([looked, arriving, [op.outputs[0] for op in gathers]],
                                            {ids: on_shard0, weights: w})
            np.testing.assert_array_equal(got, full[on_shard0])
            local_rows = on_shard0 // 2 if strategy == "mod" else on_shard0
            np.testing.assert_array_equal(sent[0], local_rows)
            assert sent[1].size == 0 and rows_back[1].shape == (0, 3)
            assert rows_back[0].shape == (4, 3)
            # The gradient each shard receives carries only the rows it looked up.
            grad_rows = sess.run([gr.values for gr, _ in grads], {ids: on_shard0, weights: w})
            assert [r.shape for r in grad_rows] == [(4, 3), (0, 3)]
            sess.run(train, {ids: on_shard0, weights: w})
            shards_after = sess.run(list(emb))
            # What each ps runs: a sparse update fed by tensors received from the worker.
            updates = [_ps_update_inputs(c, i) for i in range(2)]
        # Shard 1 is untouched; on shard 0 only the rows looked up moved.
        np.testing.assert_array_equal(shards_after[1], shards_before[1])
        changed = np.nonzero(np.any(shards_after[0] != shards_before[0], axis=1))[0]
        np.testing.assert_array_equal(changed, np.unique(local_rows))
        counts = np.bincount(local_rows, minlength=shards_before[0].shape[0])
        np.testing.assert_allclose(shards_after[0], shards_before[0] - counts[:, None] * w[0],
                                   rtol=1e-6)
        for per_ps in updates:
            assert per_ps and all(t == "SparseApplyGradientDescent" for t, _ in per_ps)
            assert all(ins[2:] == ["_Recv", "_Recv"] for _, ins in per_ps)
