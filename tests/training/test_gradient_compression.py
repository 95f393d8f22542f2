"""SyncReplicasOptimizer(compression=...): gradients cross tasks as float16 or
bfloat16, training still converges, and fewer bytes go over the wire."""

import threading

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.distributed.remote import client_for
from tensorfleet.testing.cluster import local_cluster
from tensorfleet.training import gradient_compression
from tensorfleet.training.sync_replicas_optimizer import SyncReplicasOptimizer

FEATURES = 64
W_TRUE = np.random.RandomState(0).randn(FEATURES, 1).astype(np.float32)


def _batch(seed, n=32):
    x = np.random.RandomState(seed).randn(n, FEATURES).astype(np.float32)
    return x, x @ W_TRUE


class _Replica:
    def __init__(self, cluster, index, compression):
        self.index = index
        self.graph = tf.Graph()
        with self.graph.as_default():
            with tf.device("/job:ps/task:0"):
                self.w = tf.Variable(np.zeros([FEATURES, 1], np.float32), name="w")
                self.gs = tf.train.get_or_create_global_step()
            with tf.device(f"/job:worker/task:{index}"):
                self.x = tf.placeholder(tf.float32, [None, FEATURES], name="x")
                self.y = tf.placeholder(tf.float32, [None, 1], name="y")
                self.loss = tf.reduce_mean(tf.square(tf.matmul(self.x, self.w) - self.y))
            self.opt = SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.05), 2, 2,
                                             compression=compression)
            self.train_op = self.opt.minimize(self.loss, global_step=self.gs)
            self.hook = self.opt.make_session_run_hook(index == 0, num_tokens=0)
            self.hook.begin()
            self.init = tf.global_variables_initializer()
            self.local_init = tf.local_variables_initializer()
        self.sess = tf.Session(cluster.target("worker", index), graph=self.graph)


def _worker_bytes_out(cluster):
    total = 0
    for i in range(2):
        st = client_for(cluster.target("worker", i)[len("grpc://"):]).call(
            "GetStatus", {}, [], timeout=10)[0]
        total += int(st["bytes_out"])
    return total


def _train(compression, steps=10):
    """Losses of the chief's batch before and after ``steps`` sync steps, and the bytes
    the workers sent (their gradients, pulled by the ps) during those steps."""
    with local_cluster(ps=1, worker=2) as c:
        reps = [_Replica(c, i, compression) for i in range(2)]
        coord = tf.train.Coordinator()
        reps[0].sess.run(reps[0].init)
        for r in reps:
            r.sess.run(r.local_init)
            r.hook.after_create_session(r.sess, coord if r.index == 0 else None)
        batches = [_batch(i) for i in range(2)]
        x0, y0 = batches[0]
        first = reps[0].sess.run(reps[0].loss, {reps[0].x: x0, reps[0].y: y0})
        sent = _worker_bytes_out(c)
        errs = []

        def loop(r):
            try:
                for _ in range(steps):
                    r.sess.run(r.train_op, {r.x: batches[r.index][0], r.y: batches[r.index][1]})
            except Exception as e:  # noqa: BLE001 - reported below
                errs.append(e)

        threads = [threading.Thread(target=loop, args=(r,), daemon=True) for r in reps]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        sent = _worker_bytes_out(c) - sent
        assert not errs and not any(t.is_alive() for t in threads)
        last = reps[0].sess.run(reps[0].loss, {reps[0].x: x0, reps[0].y: y0})
        assert reps[0].sess.run(reps[0].gs) == steps
        reps[0].hook.end(reps[0].sess)
        coord.request_stop()
        coord.join(stop_grace_period_secs=5)
        for r in reps:
            r.sess.close()
    return first, last, sent


def test_loss_decreases_and_gradients_take_half_the_bytes():
    first, last, plain = _train(None)
    assert last < 0.5 * first
    for kind in ("float16", "bfloat16"):
        k_first, k_last, k_sent = _train(kind)
        assert k_first == pytest.approx(first)
        assert k_last < 0.5 * k_first, kind
        # The 64 gradient values per worker step travel in 2 bytes instead of 4.
        assert k_sent < 0.7 * plain, (kind, k_sent, plain)


def test_unsupported_compression_is_refused_by_name():
    with pytest.raises(ValueError, match="compression must be one of.*'int8'"):
        SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 2, compression="int8")


@pytest.mark.parametrize("kind", ["float16", "bfloat16"])
def test_round_trip_keeps_values_to_the_format_precision(kind):
    x = np.array([1.0, -2.5, 3.1415927, 1e-3, 12345.0, 0.0], np.float32)
    with tf.Graph().as_default():
        wire = gradient_compression.compress(tf.constant(x), kind)
        back = gradient_compression.decompress(wire, kind, tf.float32)
        with tf.Session() as sess:
            w, b = sess.run([wire, back])
    assert w.itemsize == 2 and b.dtype == np.float32
    # bfloat16 keeps 8 significant bits, float16 11.
    np.testing.assert_allclose(b, x, rtol=2 ** -8 if kind == "bfloat16" else 2 ** -11)
    if kind == "bfloat16":
        # Rounded to nearest: the upper 16 bits, plus one when the dropped half is
        # above its midpoint.
        bits = x.view(np.uint32)
        expect = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
        np.testing.assert_array_equal(w.view(np.uint16), expect)
