"""When a read of a variable updated in place in the same step must copy its buffer.

A step that gathers a few rows of a large variable and updates those rows in place
must not copy the whole variable (``runtime.executor._UpdateOrder``), while a read
whose value is still used after the update must keep the value from before it.
"""

import numpy as np

import tensorfleet as tf
from tensorfleet.distributed.cluster import ClusterSpec
from tensorfleet.distributed.partition import partition
from tensorfleet.distributed.placement import place
from tensorfleet.runtime.executor import (READ_BEFORE_UPDATE_ATTR, _UpdateOrder, prune,
                                          topological_order)
from tensorfleet.testing.cluster import local_cluster

# Big enough for the order analysis (smaller variables are always copied).
ROWS = 1 << 16
CLUSTER = ClusterSpec({"ps": ["localhost:1"], "worker": ["localhost:2"]})


def _plan_order(fetches):
    """The read-copy analysis of the plan that runs ``fetches`` (tensors and ops)."""
    targets = [f for f in fetches if isinstance(f, tf.Operation)]
    tensors = [f for f in fetches if not isinstance(f, tf.Operation)]
    ops = topological_order(prune(tensors, targets, set()))
    return _UpdateOrder(ops, tensors)


def _read_of(var):
    return var.op.outputs[0], [op for op in tf.get_default_graph().get_operations()
                               if op.type == "Identity" and var.op.outputs[0] in op.inputs]


def test_gather_then_sparse_update_does_not_copy():
    emb = tf.Variable(np.ones([ROWS, 4], np.float32), name="emb")
    rows = tf.gather(emb, [3, 7])
    train = tf.train.AdagradOptimizer(0.1).minimize(tf.reduce_sum(tf.square(rows)))
    order = _plan_order([train])
    ref, readers = _read_of(emb)
    assert readers and not any(order.needs_copy(r, ref) for r in readers)


def test_read_used_after_the_update_copies():
    v = tf.Variable(np.ones([ROWS, 2], np.float32), name="v")
    g = tf.gather(v, [0, 1])
    train = tf.train.GradientDescentOptimizer(1.0).minimize(tf.reduce_sum(g))
    r = tf.identity(v)
    with tf.control_dependencies([train]):
        after = r * 1.0
    order = _plan_order([after, g])
    ref, readers = _read_of(v)
    assert any(order.needs_copy(rd, ref) for rd in readers)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before, gathered = sess.run([after, g])
        # The value read before the update is kept, though the update ran first.
        np.testing.assert_array_equal(before, np.ones([ROWS, 2], np.float32))
        np.testing.assert_array_equal(gathered, np.ones([2, 2], np.float32))
        np.testing.assert_array_equal(sess.run(v)[:4, 0], [0.0, 0.0, 1.0, 1.0])


def test_fetched_read_copies():
    v = tf.Variable(np.ones([ROWS], np.float32), name="w")
    read = tf.identity(v)
    step = tf.assign_add(v, np.ones([ROWS], np.float32))
    order = _plan_order([read, step])
    assert order.needs_copy(read.op, v.op.outputs[0])


def test_small_variable_is_copied_without_analysis():
    emb = tf.Variable(np.ones([10, 4], np.float32), name="small")
    train = tf.train.AdagradOptimizer(0.1).minimize(tf.reduce_sum(tf.gather(emb, [1])))
    order = _plan_order([train])
    ref, readers = _read_of(emb)
    assert readers and all(order.needs_copy(r, ref) for r in readers)


def test_sparse_training_matches_dense_reference():
    init = np.arange(ROWS * 2, dtype=np.float32).reshape(ROWS, 2) / ROWS
    emb = tf.Variable(init, name="emb")
    ids = tf.placeholder(tf.int64, [None])
    loss = tf.reduce_sum(tf.square(tf.gather(emb, ids)))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    expected = init.copy()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for batch in ([1, 2], [2, 5], [ROWS - 1, 1]):
            grad = np.zeros_like(expected)
            np.add.at(grad, batch, 2.0 * expected[batch])
            expected -= 0.1 * grad
            sess.run(train, {ids: batch})
        np.testing.assert_allclose(sess.run(emb), expected, rtol=1e-6)


def _ps_sparse_model(cluster_spec, init):
    with tf.device(tf.train.replica_device_setter(cluster=cluster_spec)):
        emb = tf.Variable(init, name="emb")
    ids = tf.placeholder(tf.int64, [None], name="ids")
    loss = tf.reduce_sum(tf.square(tf.gather(emb, ids)))
    return emb, ids, tf.train.GradientDescentOptimizer(0.1).minimize(loss)


def test_partitioner_marks_a_ps_read_that_the_worker_uses_before_the_update():
    # On the ps the update waits on a gradient received from the worker, an order only
    # the whole graph shows; the partitioner marks the read so the ps does not copy.
    emb, ids, train = _ps_sparse_model(CLUSTER, np.ones([ROWS, 1], np.float32))
    ops = prune([], [train], {ids})
    parts = partition(ops, place(ops, CLUSTER, "/job:worker/task:0"), [ids], [], [train])
    ps_nodes = parts["/job:ps/task:0"].graph_def()["node"]
    reads = [n for n in ps_nodes if n["op"] == "Identity" and n["input"] == ["emb:0"]]
    assert reads and all(READ_BEFORE_UPDATE_ATTR in n["attr"] for n in reads)


def test_fetched_read_is_not_marked_by_the_partitioner():
    emb, ids, train = _ps_sparse_model(CLUSTER, np.ones([ROWS, 1], np.float32))
    read = tf.identity(emb, name="snapshot")
    ops = prune([read], [train], {ids})
    parts = partition(ops, place(ops, CLUSTER, "/job:worker/task:0"), [ids], [read], [train])
    nodes = [n for p in parts.values() for n in p.graph_def()["node"]
             if n["name"] == "snapshot"]
    assert nodes and READ_BEFORE_UPDATE_ATTR not in nodes[0]["attr"]


def test_sparse_training_on_a_ps_matches_dense_reference():
    init = np.arange(ROWS * 2, dtype=np.float32).reshape(ROWS, 2) / ROWS
    with local_cluster(ps=1, worker=1) as c:
        spec = tf.train.ClusterSpec(c.spec.as_dict())
        emb, ids, train = _ps_sparse_model(spec, init)
        expected = init.copy()
        with tf.Session(c.target("worker")) as sess:
            sess.run(tf.global_variables_initializer())
            for batch in ([1, 2], [2, 5], [ROWS - 1, 1], [1, 1]):
                grad = np.zeros_like(expected)
                np.add.at(grad, batch, 2.0 * expected[batch])
                expected -= 0.1 * grad
                sess.run(train, {ids: batch})
            np.testing.assert_allclose(sess.run(emb), expected, rtol=1e-6)
