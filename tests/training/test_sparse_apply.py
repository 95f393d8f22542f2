"""Sparse updates: an IndexedSlices gradient touches only its rows, on the ps.

For every optimizer with a ``SparseApply*`` kernel, one sparse step is checked row by
row: the touched rows of the variable and of each slot equal what the same
optimizer's dense update computes on those rows alone (with the gradient rows of
repeated indices summed, as TensorFlow does), and every other row is bit-identical.
Adam is the exception TensorFlow makes: its moments decay on every row.
On an in-process cluster, an embedding split over two ps tasks shows that each ps
runs the sparse kernel on the ids it holds only.
"""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.kernels import registry
from tensorfleet.testing.cluster import local_cluster
from tensorfleet.training.device_setter import replica_device_setter

INIT = (np.arange(18, dtype=np.float32).reshape(6, 3) - 8.0) / 10.0
IDX = np.array([4, 1, 4, 1, 4])
VALS = np.random.RandomState(3).randn(5, 3).astype(np.float32)
TOUCHED = np.array([1, 4])
UNTOUCHED = np.array([0, 2, 3, 5])

OPTIMIZERS = {
    "sgd": lambda gs: tf.train.GradientDescentOptimizer(0.1),
    "momentum": lambda gs: tf.train.MomentumOptimizer(0.1, 0.9),
    "nesterov": lambda gs: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    "adagrad": lambda gs: tf.train.AdagradOptimizer(0.1),
    "rmsprop": lambda gs: tf.train.RMSPropOptimizer(0.1, momentum=0.5),
    "rmsprop_centered": lambda gs: tf.train.RMSPropOptimizer(0.1, momentum=0.5, centered=True),
    "adadelta": lambda gs: tf.train.AdadeltaOptimizer(1.0),
    "ftrl": lambda gs: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.001),
    "ftrl_shrinkage": lambda gs: tf.train.FtrlOptimizer(
        0.1, l2_shrinkage_regularization_strength=0.1),
    "proximal_gd": lambda gs: tf.train.ProximalGradientDescentOptimizer(0.1, 0.01, 0.1),
    "proximal_adagrad": lambda gs: tf.train.ProximalAdagradOptimizer(0.1, 0.1, 0.01, 0.1),
    "adagrad_da": lambda gs: tf.train.AdagradDAOptimizer(0.1, gs, 0.1, 0.001, 0.01),
    "lazy_adam": lambda gs: tf.contrib.opt.LazyAdamOptimizer(0.1),
}


def _sparse_model(name, init=INIT):
    gs = tf.train.get_or_create_global_step()
    var = tf.Variable(init, name="emb")
    idx = tf.placeholder(tf.int64, [None])
    vals = tf.placeholder(tf.float32, [None, 3])
    opt = OPTIMIZERS[name](gs)
    loss = tf.reduce_sum(tf.gather(var, idx) * vals)
    (grad, _), = opt.compute_gradients(loss, [var])
    assert isinstance(grad, tf.IndexedSlices)
    train = opt.apply_gradients([(grad, var)])
    slots = [opt.get_slot(var, n) for n in opt.get_slot_names()]
    return var, idx, vals, train, slots


def _run(var, train, slots, feed):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run([var] + slots)
        sess.run(train, feed)
        return before, sess.run([var] + slots)


def _dense_on_rows(name, rows, grad):
    """The same optimizer's dense update of a variable holding only ``rows``."""
    tf.reset_default_graph()
    gs = tf.train.get_or_create_global_step()
    var = tf.Variable(INIT[rows], name="emb")
    opt = OPTIMIZERS[name](gs)
    train = opt.minimize(tf.reduce_sum(var * tf.constant(grad)), var_list=[var])
    slots = [opt.get_slot(var, n) for n in opt.get_slot_names()]
    return _run(var, train, slots, {})[1]


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_sparse_step_updates_only_the_touched_rows_as_the_dense_rule(name):
    var, idx, vals, train, slots = _sparse_model(name)
    op_types = {op.type for op in tf.get_default_graph().get_operations()}
    assert any(t.startswith("SparseApply") for t in op_types)
    assert not any(t.startswith("Apply") for t in op_types)
    before, after = _run(var, train, slots, {idx: IDX, vals: VALS})
    summed = np.stack([VALS[IDX == r].sum(axis=0) for r in TOUCHED])
    expected = _dense_on_rows(name, TOUCHED, summed)
    for b, a, e in zip(before, after, expected):
        np.testing.assert_array_equal(a[UNTOUCHED], b[UNTOUCHED])
        np.testing.assert_allclose(a[TOUCHED], e, rtol=1e-6, atol=1e-7)
    assert np.all(after[0][TOUCHED] != before[0][TOUCHED])


def test_adam_sparse_decays_every_moment_as_tensorflow_does():
    var = tf.Variable(INIT, name="emb")
    idx = tf.placeholder(tf.int64, [None])
    opt = tf.train.AdamOptimizer(0.1)
    train = opt.minimize(tf.reduce_sum(tf.gather(var, idx)))
    m, v = opt.get_slot(var, "m"), opt.get_slot(var, "v")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, {idx: [4, 1]})
        m1, w1 = sess.run([m, var])
        sess.run(train, {idx: [0]})
        m2, v2, w2 = sess.run([m, v, var])
    np.testing.assert_allclose(m2[TOUCHED], 0.9 * m1[TOUCHED], rtol=1e-6)
    assert np.all(v2[TOUCHED] > 0)
    assert np.all(w2[TOUCHED] != w1[TOUCHED])     # moved by their decayed moments
    np.testing.assert_array_equal(w2[[2, 3, 5]], INIT[[2, 3, 5]])  # m == 0: unmoved


@pytest.mark.parametrize("name", ["adagrad", "ftrl", "lazy_adam", "momentum"])
def test_repeated_indices_equal_their_sum_and_empty_changes_nothing(name):
    var, idx, vals, train, slots = _sparse_model(name)
    empty = {idx: np.zeros([0], np.int64), vals: np.zeros([0, 3], np.float32)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run([var] + slots)
        sess.run(train, empty)
        for b, a in zip(before, sess.run([var] + slots)):
            np.testing.assert_array_equal(a, b)
        sess.run(train, {idx: [2, 2, 2], vals: VALS[:3]})
        repeated = sess.run([var] + slots)
        sess.run(tf.global_variables_initializer())
        sess.run(train, empty)  # Adam's beta powers advance on every step
        sess.run(train, {idx: [2], vals: VALS[:3].sum(axis=0, keepdims=True)})
        once = sess.run([var] + slots)
    for r, o in zip(repeated, once):
        np.testing.assert_allclose(r, o, rtol=1e-6)


def test_out_of_range_index_fails_and_changes_nothing():
    var, idx, vals, train, slots = _sparse_model("ftrl")
    grad = tf.IndexedSlices(vals, idx, tf.constant([6, 3], tf.int64))
    opt = tf.train.FtrlOptimizer(0.1, name="F2")
    bad = opt.apply_gradients([(grad, var)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 6"):
            sess.run(bad, {idx: [0, 6], vals: VALS[:2]})
        np.testing.assert_array_equal(sess.run(var), INIT)


class _RecordingSGD(tf.train.Optimizer):
    """A user optimizer written with scatter ops, as TF1 programs subclass Optimizer."""

    def __init__(self):
        super().__init__(False, "RecordingSGD")
        self.seen = []

    def _apply_dense(self, grad, var):
        return tf.assign_sub(var, 0.5 * grad)

    def _apply_sparse(self, grad, var):
        self.seen.append(grad)
        return tf.scatter_sub(var, grad.indices, 0.5 * grad.values)


def test_user_optimizer_apply_sparse_receives_unique_summed_indices():
    var = tf.Variable(INIT, name="emb")
    idx = tf.placeholder(tf.int64, [None])
    vals = tf.placeholder(tf.float32, [None, 3])
    opt = _RecordingSGD()
    train = opt.minimize(tf.reduce_sum(tf.gather(var, idx) * vals))
    seen, = opt.seen
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got_idx, got_vals = sess.run([seen.indices, seen.values], {idx: IDX, vals: VALS})
        sess.run(train, {idx: IDX, vals: VALS})
        after = sess.run(var)
    assert sorted(got_idx.tolist()) == [1, 4]
    for i, row in zip(got_idx, got_vals):
        np.testing.assert_allclose(row, VALS[IDX == i].sum(axis=0), rtol=1e-6)
    expected = INIT.copy()
    np.subtract.at(expected, IDX, 0.5 * VALS)
    np.testing.assert_allclose(after, expected, rtol=1e-6)


# -- an embedding over two parameter servers -----------------------------------------------------

VOCAB, DIM = 10, 3


@pytest.fixture
def sparse_calls(monkeypatch):
    """Records (variable, local indices, value rows) of every sparse update kernel run."""
    calls = []
    # Position of the gradient values among a kernel's inputs after the variable;
    # the indices follow them.
    grad_at = {"SparseApplyFtrl": 2, "SparseApplyAdagrad": 2, "SparseApplyLazyAdam": 8}
    for op_type, g in grad_at.items():
        kernel = registry._KERNELS[(op_type, "CPU")]

        def wrapped(ctx, var, *args, _kernel=kernel, _type=op_type, _g=g):
            calls.append((_type, var.name, np.array(args[_g + 1]), np.shape(args[_g])))
            return _kernel(ctx, var, *args)

        monkeypatch.setitem(registry._KERNELS, (op_type, "CPU"), wrapped)
    return calls


def _ps_sparse_ops(cluster, i):
    """(op type, input op types) of the updates in what the master registered on ps i."""
    out = []
    for reg in cluster.server("ps", i).worker._graphs.values():
        for op in reg.graph.get_operations():
            if "Apply" in op.type:
                out.append((op.type, [t.op.type for t in op.inputs]))
    return out


@pytest.mark.parametrize("name,op_type", [("ftrl", "SparseApplyFtrl"),
                                          ("adagrad", "SparseApplyAdagrad"),
                                          ("lazy_adam", "SparseApplyLazyAdam")])
def test_each_ps_updates_only_the_ids_it_holds(name, op_type, sparse_calls):
    with local_cluster(ps=2, worker=1) as c:
        with tf.device(replica_device_setter(ps_tasks=2, worker_device="/job:worker/task:0")):
            gs = tf.train.get_or_create_global_step()
            emb = tf.get_variable("emb", [VOCAB, DIM], partitioner=tf.fixed_size_partitioner(2),
                                  initializer=tf.random_uniform_initializer(-1, 1, seed=5))
            ids = tf.placeholder(tf.int64, [None])
            looked = tf.nn.embedding_lookup(emb, ids, partition_strategy="div")
            loss = tf.reduce_sum(looked * np.arange(1, DIM + 1, dtype=np.float32))
            opt = OPTIMIZERS[name](gs)
            train = opt.minimize(loss)
        shards = list(emb)
        slots = [opt.get_slot(s, n) for s in shards for n in opt.get_slot_names()]
        # "div": shard 0 holds ids 0-4, shard 1 ids 5-9. Id 7 twice, ids 1 and 3 once.
        feed = {ids: [7, 1, 7, 3]}
        with tf.Session(c.target("worker", 0)) as sess:
            sess.run(tf.global_variables_initializer())
            before = sess.run(shards + slots)
            del sparse_calls[:]
            sess.run(train, feed)
            after = sess.run(shards + slots)
            placed = [_ps_sparse_ops(c, i) for i in range(2)]
    # One kernel per shard, given that shard's local rows of the looked-up ids only.
    calls = sorted((var, idx.tolist(), shape) for t, var, idx, shape in sparse_calls)
    assert [t for t, *_ in sparse_calls] == [op_type, op_type]
    assert calls == [(shards[0].op.name, [1, 3], (2, DIM)), (shards[1].op.name, [2, 2], (2, DIM))]
    # The updates ran on the ps tasks, fed with the gradient received from the worker.
    for per_ps in placed:
        assert [t for t, _ in per_ps if t.startswith("SparseApply")] == [op_type]
        assert not [t for t, _ in per_ps if t.startswith("Apply")]
        (_, ins), = [p for p in per_ps if p[0] == op_type]
        assert ins.count("_Recv") >= 2
    # Looked-up rows moved; all others, in the shards and their slots, are bit-identical.
    touched = {0: [1, 3], 1: [2]}
    n_slots = len(opt.get_slot_names())
    for k, (b, a) in enumerate(zip(before, after)):
        shard = k if k < 2 else (k - 2) // n_slots
        rows = touched[shard]
        others = np.setdiff1d(np.arange(b.shape[0]), rows)
        np.testing.assert_array_equal(a[others], b[others])
        assert np.all(a[rows] != b[rows])
