"""SparseConditionalAccumulator and synchronous training with sparse gradients.

TensorFlow's sparse accumulator averages index by index: the rows given for an
index are summed over the gradients applied and divided by the number of
gradients that named that index. Under SyncReplicasOptimizer, an embedding's
IndexedSlices gradients go through it, and the chief applies the averaged rows
with the wrapped optimizer's sparse kernel, never densifying.
"""

import threading

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.kernels.accumulator_resources import SparseConditionalAccumulatorResource
from tensorfleet.testing.cluster import local_cluster
from tensorfleet.training.sync_replicas_optimizer import SyncReplicasOptimizer


def _reference(grads, reduction="MEAN"):
    """numpy: {index: row} summed over the gradients, divided per index by the number
    of gradients naming it (repeats inside one gradient count once)."""
    total, count = {}, {}
    for idx, vals in grads:
        for i in set(int(i) for i in idx):
            count[i] = count.get(i, 0) + 1
        for i, row in zip(idx, vals):
            total[int(i)] = total.get(int(i), 0) + row.astype(np.float64)
    keys = sorted(total)
    div = [count[k] if reduction == "MEAN" else 1 for k in keys]
    return np.array(keys), np.array([total[k] / d for k, d in zip(keys, div)])


GRADS = [(np.array([0, 2]), np.array([[1, 1], [2, 2]], np.float32)),
         (np.array([3, 2, 3]), np.array([[4, 4], [1, 1], [5, 5]], np.float32)),
         (np.array([5]), np.array([[7, 7]], np.float32))]


@pytest.mark.parametrize("reduction", ["MEAN", "SUM"])
def test_resource_averages_each_index_over_the_gradients_naming_it(reduction):
    acc = SparseConditionalAccumulatorResource("acc", tf.float32, [6, 2], reduction)
    for idx, vals in GRADS:
        assert acc.apply_grad(idx, vals, None, 0)
    indices, values, shape = acc.take_grad(3)
    want_idx, want_vals = _reference(GRADS, reduction)
    np.testing.assert_array_equal(indices, want_idx)
    np.testing.assert_allclose(values, want_vals, rtol=1e-6)
    assert values.dtype == np.float32 and indices.dtype == np.int64
    np.testing.assert_array_equal(shape, [6, 2])
    if reduction == "MEAN":
        # Row 0 from one gradient keeps it whole; row 2 from two is their mean.
        np.testing.assert_allclose(values[[0, 1]], [[1, 1], [1.5, 1.5]])
    assert acc.num_accumulated() == 0


def test_sorted_unique_gradients_match_tensorflow_numbers():
    # The case TensorFlow 2.21's kernel computes exactly (checked by hand):
    # apply [0, 2] and [2, 3] -> indices [0, 2, 3], values [[1, 1], [3, 3], [1, 1]].
    acc = tf.SparseConditionalAccumulator(tf.float32, shape=[4, 2])
    idx = tf.placeholder(tf.int64, [None])
    vals = tf.placeholder(tf.float32, [None, 2])
    apply = acc.apply_indexed_slices_grad(
        tf.IndexedSlices(vals, idx, tf.constant([4, 2], tf.int64)), local_step=0)
    taken = acc.take_indexed_slices_grad(2)
    with tf.Session() as sess:
        sess.run(apply, {idx: [0, 2], vals: [[1, 1], [2, 2]]})
        sess.run(apply, {idx: [2, 3], vals: [[4, 4], [1, 1]]})
        out = sess.run(taken)
    np.testing.assert_array_equal(out.indices, [0, 2, 3])
    np.testing.assert_allclose(out.values, [[1, 1], [3, 3], [1, 1]])
    np.testing.assert_array_equal(out.dense_shape, [4, 2])


def test_unsorted_repeated_and_empty_gradients():
    acc = SparseConditionalAccumulatorResource("acc", tf.float64, [None, 3])
    rs = np.random.RandomState(0)
    grads = [(np.array([9, 1, 9, 4]), rs.randn(4, 3)), (np.array([], np.int64), np.zeros((0, 3))),
             (np.array([4, 4]), rs.randn(2, 3))]
    for idx, vals in grads:
        acc.apply_grad(idx, vals, None, 0)
    indices, values, shape = acc.take_grad(3)
    want_idx, want_vals = _reference(grads)
    np.testing.assert_array_equal(indices, want_idx)
    np.testing.assert_allclose(values, want_vals, rtol=1e-12)
    np.testing.assert_array_equal(shape, [10, 3])   # unknown rows: max index + 1
    acc.apply_grad(np.array([], np.int64), np.zeros((0, 3)), None, 0)
    indices, values, _ = acc.take_grad(1)
    assert indices.shape == (0,) and values.shape == (0, 3)


def test_stale_sparse_gradients_are_dropped():
    acc = SparseConditionalAccumulatorResource("acc", tf.float32, [4, 1])
    acc.set_global_step(3)
    assert not acc.apply_grad([1], np.ones((1, 1), np.float32), None, 2)
    assert acc.apply_grad([2], np.ones((1, 1), np.float32), None, 3)
    assert acc.num_dropped == 1
    indices, values, _ = acc.take_grad(1)
    np.testing.assert_array_equal(indices, [2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="one row per index"):
        acc.apply_grad([1, 2], np.ones((1, 1), np.float32), None, 3)


# -- synchronous training on 1 ps + 2 workers -----------------------------------------------------

VOCAB, DIM, LR = 8, 2, 0.5
EMB0 = np.arange(VOCAB * DIM, dtype=np.float32).reshape(VOCAB, DIM) / 10.0
JOIN_SECS = 20.0


class _Replica:
    """One worker's graph: an embedding on the ps, a lookup and loss on the worker."""

    def __init__(self, cluster, index):
        self.index = index
        self.graph = tf.Graph()
        with self.graph.as_default():
            with tf.device("/job:ps/task:0"):
                self.emb = tf.Variable(EMB0, name="emb")
                self.gs = tf.train.get_or_create_global_step()
            with tf.device(f"/job:worker/task:{index}"):
                self.ids = tf.placeholder(tf.int64, [None], name="ids")
                self.w = tf.placeholder(tf.float32, [None, DIM], name="w")
                loss = tf.reduce_sum(tf.nn.embedding_lookup(self.emb, self.ids) * self.w)
            self.opt = SyncReplicasOptimizer(tf.train.AdagradOptimizer(LR),
                                             replicas_to_aggregate=2, total_num_replicas=2)
            self.train_op = self.opt.minimize(loss, global_step=self.gs)
            self.hook = self.opt.make_session_run_hook(index == 0, num_tokens=0)
            self.hook.begin()
            self.init = tf.global_variables_initializer()
            self.local_init = tf.local_variables_initializer()
            self.accum = self.opt._opt.get_slot(self.emb, "accumulator")
        self.sess = tf.Session(cluster.target("worker", index), graph=self.graph)


def _adagrad_rows(emb, accum, idx, g):
    emb, accum = emb.astype(np.float64), accum.astype(np.float64)
    accum[idx] += g * g
    emb[idx] -= LR * g / np.sqrt(accum[idx])
    return emb, accum


def test_sync_training_with_sparse_gradients_averages_per_row():
    # Worker 0 reads ids 1, 3, 3; worker 1 reads ids 3, 6. Rows 0, 2, 4, 5, 7 are never read.
    feeds = [([1, 3, 3], [[1, 2], [3, 4], [5, 6]]), ([3, 6], [[-1, 1], [2, 2]])]
    steps = 2
    with local_cluster(ps=1, worker=2) as c:
        replicas = [_Replica(c, i) for i in range(2)]
        g0 = replicas[0].graph
        ops = {op.type for op in g0.get_operations()}
        assert "SparseAccumulatorApplyGradient" in ops and "SparseApplyAdagrad" in ops
        assert "AccumulatorApplyGradient" not in ops and "ApplyAdagrad" not in ops
        coord = tf.train.Coordinator()
        chief = replicas[0]
        chief.sess.run(chief.init)
        for r in replicas:
            r.sess.run(r.local_init)
            r.hook.after_create_session(r.sess, coord if r.index == 0 else None)
        errs = []

        def work(r):
            try:
                ids, w = feeds[r.index]
                for _ in range(steps):
                    r.sess.run(r.train_op, {r.ids: ids, r.w: np.array(w, np.float32)})
            except Exception as e:  # noqa: BLE001 - reported below
                errs.append(e)

        threads = [threading.Thread(target=work, args=(r,), daemon=True) for r in replicas]
        for t in threads:
            t.start()
        for t in threads:
            t.join(JOIN_SECS)
        assert not any(t.is_alive() for t in threads), "a replica is still blocked"
        assert not errs, errs
        emb, accum, gs = chief.sess.run([chief.emb, chief.accum, chief.gs])
        chief.hook.end(chief.sess)
        coord.request_stop()
        coord.join(stop_grace_period_secs=5)
        for r in replicas:
            r.sess.close()
    # The loss is linear in the rows, so every step has the same gradient rows:
    # row 1 = [1, 2] (worker 0 only), row 3 = mean([3+5, 4+6], [-1, 1]) = [3.5, 5.5],
    # row 6 = [2, 2] (worker 1 only).
    idx = np.array([1, 3, 6])
    g = np.array([[1, 2], [3.5, 5.5], [2, 2]])
    ref_emb, ref_acc = EMB0.astype(np.float64), np.full(EMB0.shape, 0.1)
    for _ in range(steps):
        ref_emb, ref_acc = _adagrad_rows(ref_emb, ref_acc, idx, g)
    assert gs == steps
    np.testing.assert_allclose(emb, ref_emb, rtol=1e-5)
    np.testing.assert_allclose(accum, ref_acc, rtol=1e-5)
    untouched = [0, 2, 4, 5, 7]
    np.testing.assert_array_equal(emb[untouched], EMB0[untouched])
    np.testing.assert_array_equal(accum[untouched], np.full((5, DIM), 0.1, np.float32))
