"""SyncReplicasOptimizer on an in-process cluster: averaging, staleness, backup
workers and a clean end (no task left blocked on the token queue or in take_grad)."""

import threading
import time

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.cluster import local_cluster
from tensorfleet.training.sync_replicas_optimizer import SyncReplicasOptimizer

LR = 0.1
W0 = np.array([[0.5], [-1.0], [2.0]], dtype=np.float32)
B0 = np.array([0.25], dtype=np.float32)
JOIN_SECS = 10.0


class _Replica:
    """One worker's between-graph replica: its own graph, session and optimizer."""

    def __init__(self, cluster, index, replicas_to_aggregate, total_num_replicas):
        self.index = index
        self.graph = tf.Graph()
        with self.graph.as_default():
            with tf.device("/job:ps/task:0"):
                self.w = tf.Variable(W0, name="w")
                self.b = tf.Variable(B0, name="b")
                self.gs = tf.train.get_or_create_global_step()
            with tf.device(f"/job:worker/task:{index}"):
                self.x = tf.placeholder(tf.float32, [None, 3], name="x")
                self.y = tf.placeholder(tf.float32, [None, 1], name="y")
                loss = tf.reduce_mean(tf.square(tf.matmul(self.x, self.w) + self.b - self.y))
            self.opt = SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(LR),
                                             replicas_to_aggregate=replicas_to_aggregate,
                                             total_num_replicas=total_num_replicas)
            self.train_op = self.opt.minimize(loss, global_step=self.gs)
            self.hook = self.opt.make_session_run_hook(index == 0, num_tokens=0)
            self.hook.begin()
            self.init = tf.global_variables_initializer()
            self.local_init = tf.local_variables_initializer()
        self.sess = tf.Session(cluster.target("worker", index), graph=self.graph)

    def close(self):
        self.sess.close()


def _batch(seed, n=4):
    rs = np.random.RandomState(seed)
    return rs.randn(n, 3).astype(np.float32), rs.randn(n, 1).astype(np.float32)


def _grads(w, b, x, y):
    r = x @ w + b - y
    return 2.0 * x.T @ r / len(x), np.array([2.0 * r.mean()], dtype=np.float32)


def _start(replicas, coord):
    """Chief initializes the model; every replica runs its hook's session setup."""
    chief = replicas[0]
    chief.sess.run(chief.init)
    for r in replicas:
        r.sess.run(r.local_init)
        r.hook.after_create_session(r.sess, coord if r.index == 0 else None)


def _run_threads(targets):
    threads = [threading.Thread(target=t, daemon=True) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(JOIN_SECS)
    assert not any(t.is_alive() for t in threads), "a replica is still blocked"


def _finish(replicas, coord, threads=()):
    """The chief's hook ends the job; every replica thread and the chief loop stop."""
    chief = replicas[0]
    t0 = time.monotonic()
    chief.hook.end(chief.sess)
    for t in threads:
        t.join(JOIN_SECS)
    assert not any(t.is_alive() for t in threads), "a replica is still blocked"
    coord.request_stop()
    coord.join(stop_grace_period_secs=5)
    assert time.monotonic() - t0 < 5.0
    for r in replicas:
        r.close()


def test_one_sync_step_applies_the_mean_of_the_replicas_gradients():
    with local_cluster(ps=1, worker=3) as c:
        replicas = [_Replica(c, i, 3, 3) for i in range(3)]
        coord = tf.train.Coordinator()
        _start(replicas, coord)
        batches = [_batch(i) for i in range(3)]
        errs = []

        def step(r):
            def run():
                try:
                    x, y = batches[r.index]
                    r.sess.run(r.train_op, {r.x: x, r.y: y})
                except Exception as e:  # noqa: BLE001 - reported by the main thread
                    errs.append(e)
            return run

        _run_threads([step(r) for r in replicas])
        assert not errs
        gw, gb = zip(*[_grads(W0, B0, x, y) for x, y in batches])
        chief = replicas[0]
        w, b, gs = chief.sess.run([chief.w, chief.b, chief.gs])
        np.testing.assert_allclose(w, W0 - LR * np.mean(gw, axis=0), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(b, B0 - LR * np.mean(gb, axis=0), rtol=1e-5, atol=1e-6)
        assert gs == 1
        # Every replica took a token of the new step as its local step.
        for r in replicas:
            assert r.sess.run(r.opt.local_step) == 1
        _finish(replicas, coord)


def test_stale_gradient_of_an_old_local_step_is_dropped():
    with local_cluster(ps=1, worker=2) as c:
        replicas = [_Replica(c, i, 2, 2) for i in range(2)]
        coord = tf.train.Coordinator()
        _start(replicas, coord)
        batches = [_batch(10 + i) for i in range(2)]

        def step(r):
            return lambda: r.sess.run(r.train_op, {r.x: batches[r.index][0],
                                                   r.y: batches[r.index][1]})

        _run_threads([step(r) for r in replicas])
        r1 = replicas[1]
        assert r1.sess.run(r1.gs) == 1
        acc = r1.opt._accumulator_list[0][0]
        with r1.graph.as_default():
            old = acc.apply_grad(np.ones([3, 1], np.float32), local_step=0)
            fresh = acc.apply_grad(np.ones([3, 1], np.float32), local_step=1)
            count = acc.num_accumulated()
        r1.sess.run(old)
        assert r1.sess.run(count) == 0  # computed before the update: dropped
        r1.sess.run(fresh)
        assert r1.sess.run(count) == 1
        _finish(replicas, coord)


def test_backup_worker_never_holds_a_step_back():
    """3 replicas, 2 gradients per step: the third replica never runs."""
    with local_cluster(ps=1, worker=3) as c:
        replicas = [_Replica(c, i, 2, 3) for i in range(3)]
        coord = tf.train.Coordinator()
        _start(replicas, coord)
        target = 4
        steps = {0: 0, 1: 0}
        stopped = []

        def loop(r):
            def run():
                x, y = _batch(20 + r.index)
                try:
                    while r.sess.run(r.gs) < target:
                        r.sess.run(r.train_op, {r.x: x, r.y: y})
                        steps[r.index] += 1
                except tf.errors.OutOfRangeError:
                    stopped.append(r.index)  # the chief closed the token queue
            return run

        threads = [threading.Thread(target=loop(r), daemon=True) for r in replicas[:2]]
        for t in threads:
            t.start()
        chief = replicas[0]
        deadline = time.monotonic() + JOIN_SECS
        while chief.sess.run(chief.gs) < target and time.monotonic() < deadline:
            time.sleep(0.05)
        assert chief.sess.run(chief.gs) >= target
        _finish(replicas, coord, threads)
        assert steps[0] > 0 and steps[1] > 0


def test_a_replica_that_ends_leaves_a_token_for_the_waiting_chief():
    """Faster replicas can take every token of the last steps and stop there; the chief,
    whose step then waits for a token that no step will make, gets the one a replica's
    hook leaves behind at its end, and its step completes."""
    with local_cluster(ps=1, worker=3) as c:
        replicas = [_Replica(c, i, 2, 3) for i in range(3)]
        coord = tf.train.Coordinator()
        _start(replicas, coord)  # num_tokens=0: the token queue starts empty
        chief = replicas[0]
        x, y = _batch(30)
        returned = []

        def chief_step():
            chief.sess.run(chief.train_op, {chief.x: x, chief.y: y})
            returned.append(True)

        t = threading.Thread(target=chief_step, daemon=True)
        t.start()
        t.join(0.5)
        assert t.is_alive(), "the chief's step needs a token or a second gradient"
        replicas[1].hook.end(replicas[1].sess)
        t.join(JOIN_SECS)
        assert returned, "the chief still waits for a token after a replica ended"
        _finish(replicas, coord)


def test_all_replicas_and_the_chief_loop_stop_after_the_last_step():
    """Replica 2 runs one step past the last one (it did not see the end yet): it
    blocks on the token queue until the chief's hook ends the job, then gets
    OutOfRangeError; the chief's loop, blocked in take_grad, stops too."""
    with local_cluster(ps=1, worker=3) as c:
        replicas = [_Replica(c, i, 3, 3) for i in range(3)]
        coord = tf.train.Coordinator()
        _start(replicas, coord)
        last_step = 3
        ended = {}

        def loop(r):
            def run():
                x, y = _batch(30 + r.index)
                try:
                    while r.sess.run(r.gs) < last_step:
                        r.sess.run(r.train_op, {r.x: x, r.y: y})
                    if r.index == 2:
                        r.sess.run(r.train_op, {r.x: x, r.y: y})
                    ended[r.index] = "last step"
                except tf.errors.OutOfRangeError:
                    ended[r.index] = "token queue closed"
                if r.index == 0:
                    r.hook.end(r.sess)  # the chief ends the sync loop for everyone
            return run

        t0 = time.monotonic()
        _run_threads([loop(r) for r in replicas])
        coord.request_stop()
        coord.join(stop_grace_period_secs=5)  # raises if the chief loop failed
        assert time.monotonic() - t0 < 10.0
        assert ended == {0: "last step", 1: "last step", 2: "token queue closed"}
        assert replicas[0].sess.run(replicas[0].gs) == last_step
        assert not replicas[0].hook._threads
        for r in replicas:
            r.close()


def test_apply_gradients_needs_a_global_step_and_checks_counts():
    w = tf.Variable([1.0])
    opt = SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 2)
    with pytest.raises(ValueError, match="Global step"):
        opt.apply_gradients([(tf.constant([1.0]), w)])
    with pytest.raises(ValueError, match="after apply_gradients"):
        opt.get_chief_queue_runner()
    with pytest.raises(ValueError):
        SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 0)
    gs = tf.train.get_or_create_global_step()
    train_op = opt.apply_gradients([(tf.constant([1.0]), w)], global_step=gs)
    assert train_op in tf.get_collection(tf.GraphKeys.TRAIN_OP)
    assert opt.local_step in tf.local_variables()
    with pytest.raises(ValueError, match="only once"):
        opt.apply_gradients([(tf.constant([1.0]), w)], global_step=gs)
    more = SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 3, 1)
    more.apply_gradients([(tf.constant([1.0]), w)], global_step=gs)
    with pytest.raises(ValueError, match="Too few tokens"):
        more.get_init_tokens_op(1)
    assert more.get_init_tokens_op(2).type == "QueueEnqueueManyV2"


def test_monitored_training_sessions_with_a_backup_worker_end_cleanly():
    """The seed's recipe: each worker's MonitoredTrainingSession gets the sync hook
    and a StopAtStepHook; 2 of 3 replicas' gradients make a step; every session
    closes on its own once the last step is reached."""
    from tensorfleet.training.basic_hooks import StopAtStepHook
    from tensorfleet.training.monitored_session import MonitoredTrainingSession

    last_step = 4
    with local_cluster(ps=1, worker=3) as c:
        built = []
        for i in range(3):
            g = tf.Graph()
            with g.as_default():
                with tf.device("/job:ps/task:0"):
                    w = tf.Variable(W0, name="w")
                    gs = tf.train.get_or_create_global_step()
                with tf.device(f"/job:worker/task:{i}"):
                    x = tf.placeholder(tf.float32, [None, 3])
                    y = tf.placeholder(tf.float32, [None, 1])
                    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
                opt = SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(LR),
                                            replicas_to_aggregate=2, total_num_replicas=3)
                train_op = opt.minimize(loss, global_step=gs)
                hooks = [opt.make_session_run_hook(i == 0, num_tokens=0),
                         StopAtStepHook(last_step=last_step)]
            built.append((g, train_op, x, y, hooks))
        done, errs = {}, []

        def worker(i):
            g, train_op, x, y, hooks = built[i]
            xb, yb = _batch(40 + i)
            try:
                with g.as_default(), MonitoredTrainingSession(
                        master=c.target("worker", i), is_chief=(i == 0), hooks=hooks,
                        log_step_count_steps=None, stop_grace_period_secs=5) as sess:
                    n = 0
                    while not sess.should_stop():
                        sess.run(train_op, {x: xb, y: yb})
                        n += 1
                done[i] = n
            except Exception as e:  # noqa: BLE001 - reported by the main thread
                errs.append((i, e))

        t0 = time.monotonic()
        _run_threads([lambda i=i: worker(i) for i in range(3)])
        assert not errs, errs
        assert sorted(done) == [0, 1, 2] and done[0] > 0
        assert time.monotonic() - t0 < 10.0
        assert not built[0][4][0]._threads  # the chief's sync loop stopped
