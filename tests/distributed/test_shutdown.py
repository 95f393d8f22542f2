"""Shutting down leaves nothing behind: a synchronous chief whose aggregation loop still
waits exits; closing sessions, supervisors and servers ends every thread tensorfleet
started (or it is a daemon) and closes every socket; closing wakes blocked calls."""

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet import errors
from tensorfleet.distributed.server import free_ports
from tensorfleet.runtime.threads import DaemonPool
from tensorfleet.testing.cluster import LocalCluster
from tensorfleet.transport import bulk_client, wire
from tests.transport.bulk_fakes import FakeListener

ROOT = Path(__file__).resolve().parents[2]


def _socket_inodes() -> set:
    """The sockets this process has open, by inode (fd numbers are reused)."""
    out = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue  # closed meanwhile (the listing's own descriptor, say)
        if target.startswith("socket:"):
            out.add(target)
    return out


def _settle(check, limit: float = 10.0):
    """Polls ``check()`` until it returns something empty or ``limit`` seconds pass;
    returns its last value. Bounded: threads and sockets wind down asynchronously."""
    deadline = time.monotonic() + limit
    while True:
        left = check()
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def _build_replica(cluster, index: int, replicas: int) -> dict:
    """One worker's graph of a between-graph synchronous job."""
    g = tf.Graph()
    with g.as_default(), tf.device(tf.train.replica_device_setter(
            worker_device=f"/job:worker/task:{index}", cluster=cluster)):
        gs = tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        w = tf.Variable(tf.zeros([4, 1]), name="w")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1),
                                             replicas_to_aggregate=replicas,
                                             total_num_replicas=replicas)
        train = opt.minimize(loss, global_step=gs)
        model = {"graph": g, "gs": gs, "x": x, "y": y, "train": train,
                 "local_init": opt.chief_init_op if index == 0 else opt.local_step_init_op,
                 "ready_for_local_init": opt.ready_for_local_init_op,
                 "init": tf.global_variables_initializer()}
        if index == 0:
            model["chief_qr"] = opt.get_chief_queue_runner()
            model["init_tokens"] = opt.get_init_tokens_op()
    return model


def test_sync_supervisor_job_leaves_no_thread_and_no_socket_once_closed():
    threads_before = set(threading.enumerate())
    sockets_before = _socket_inodes()
    steps = 8
    c = LocalCluster({"ps": 1, "worker": 2})
    try:
        models = [_build_replica(c.spec, i, 2) for i in range(2)]
        svs = [tf.train.Supervisor(
            graph=m["graph"], is_chief=i == 0, logdir=None, init_op=m["init"],
            local_init_op=m["local_init"], ready_for_local_init_op=m["ready_for_local_init"],
            recovery_wait_secs=0.1, global_step=m["gs"], stop_grace_secs=30)
            for i, m in enumerate(models)]
        sessions, outcome = [None, None], {}

        def replica(i: int) -> None:
            m, sv = models[i], svs[i]
            try:
                sess = sessions[i] = sv.prepare_or_wait_for_session(c.target("worker", i))
                if i == 0:
                    sess.run(m["init_tokens"])
                    sv.start_queue_runners(sess, [m["chief_qr"]])
                rng = np.random.RandomState(i)
                step = 0
                while step < steps:
                    xs = rng.rand(8, 4).astype(np.float32)
                    _, step = sess.run([m["train"], m["gs"]],
                                       {m["x"]: xs, m["y"]: xs.sum(1, keepdims=True)})
                outcome[i] = step
            except BaseException as e:  # noqa: BLE001 - reported by the main thread
                outcome[i] = e

        runners = [threading.Thread(target=replica, args=(i,)) for i in range(2)]
        for t in runners:
            t.start()
        for t in runners:
            t.join(120)
        assert not any(t.is_alive() for t in runners), "training did not finish"
        assert all(isinstance(outcome[i], (int, np.integer)) and outcome[i] >= steps
                   for i in range(2)), outcome
        # The chief's aggregation loop now waits for gradients nobody will send.
        assert any(t.name.startswith("QueueRunner-sync_token_q") for t in threading.enumerate())
        t0 = time.monotonic()
        for sess in sessions:
            sess.close()  # wakes the chief's waiting aggregation step
        for sv in svs:
            sv.stop()  # raises if its threads outlived the 30 s grace period
        assert time.monotonic() - t0 < 20
    finally:
        c.stop()
    left = _settle(lambda: [t for t in threading.enumerate()
                            if t not in threads_before and t.is_alive() and not t.daemon])
    assert left == [], f"non-daemon threads still running: {[t.name for t in left]}"
    left = _settle(lambda: _socket_inodes() - sockets_before)
    assert left == set(), f"sockets still open: {sorted(left)}"


# ------------------------------------------------------------------ the real program

# Between-graph replication in the classic style: Supervisor, SyncReplicasOptimizer,
# the chief's queue runner started by hand, a loop that breaks at the last step and
# then simply ends. The ps serves until it is killed.
_PROGRAM = textwrap.dedent('''
    import argparse, json, sys, time
    import numpy as np
    import tensorfleet as tf

    p = argparse.ArgumentParser()
    p.add_argument("--ps_hosts"); p.add_argument("--worker_hosts")
    p.add_argument("--job_name"); p.add_argument("--task_index", type=int, default=0)
    p.add_argument("--train_steps", type=int, default=40)
    p.add_argument("--sync_replicas", action="store_true")
    FLAGS = p.parse_args()
    workers = FLAGS.worker_hosts.split(",")
    cluster = tf.train.ClusterSpec({"ps": FLAGS.ps_hosts.split(","), "worker": workers})
    server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
    if FLAGS.job_name == "ps":
        server.join()
    is_chief = FLAGS.task_index == 0
    with tf.device(tf.train.replica_device_setter(
            worker_device="/job:worker/task:%d" % FLAGS.task_index, cluster=cluster)):
        global_step = tf.Variable(0, name="global_step", trainable=False)
        x = tf.placeholder(tf.float32, [None, 64])
        y_ = tf.placeholder(tf.int64, [None])
        w = tf.Variable(tf.truncated_normal([64, 10], stddev=0.1, seed=1))
        b = tf.Variable(tf.zeros([10]))
        logits = tf.matmul(x, w) + b
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y_, logits=logits))
        opt = tf.train.AdamOptimizer(0.01)
        if FLAGS.sync_replicas:
            opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=len(workers),
                                                 total_num_replicas=len(workers),
                                                 name="mnist_sync_replicas")
        train_step = opt.minimize(loss, global_step=global_step)
        local_init_op = ready_for_local_init_op = None
        if FLAGS.sync_replicas:
            local_init_op = opt.chief_init_op if is_chief else opt.local_step_init_op
            ready_for_local_init_op = opt.ready_for_local_init_op
            chief_queue_runner = opt.get_chief_queue_runner()
            sync_init_op = opt.get_init_tokens_op()
        init_op = tf.global_variables_initializer()
    sv = tf.train.Supervisor(is_chief=is_chief, logdir=None, init_op=init_op,
                             local_init_op=local_init_op,
                             ready_for_local_init_op=ready_for_local_init_op,
                             recovery_wait_secs=1, global_step=global_step)
    config = tf.ConfigProto(allow_soft_placement=True, device_filters=[
        "/job:ps", "/job:worker/task:%d" % FLAGS.task_index])
    sess = sv.prepare_or_wait_for_session(server.target, config=config)
    if FLAGS.sync_replicas and is_chief:
        sess.run(sync_init_op)
        sv.start_queue_runners(sess, [chief_queue_runner])
    rng = np.random.RandomState(FLAGS.task_index)
    local_step = 0
    while True:
        xs = rng.rand(32, 64).astype(np.float32)
        ys = xs[:, :10].argmax(1)
        _, step = sess.run([train_step, global_step], {x: xs, y_: ys})
        local_step += 1
        if step >= FLAGS.train_steps:
            break
    print("RESULT " + json.dumps({"worker": FLAGS.task_index, "local_steps": local_step,
                                  "global_step": int(step), "at": time.time()}), flush=True)
''')


def test_the_sync_chief_program_exits_by_itself(tmp_path):
    script = tmp_path / "mnist_replica.py"
    script.write_text(_PROGRAM)
    ps, w0, w1 = free_ports(3)
    common = [f"--ps_hosts=localhost:{ps}", f"--worker_hosts=localhost:{w0},localhost:{w1}",
              "--sync_replicas", "--train_steps=40"]
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1",
               PYTHONFAULTHANDLER="1")
    env.pop("TENSORFLEET_TOKEN", None)
    procs, logs = {}, {}
    try:
        for name, args in (("ps", ["--job_name=ps"]),
                           ("worker0", ["--job_name=worker", "--task_index=0"]),
                           ("worker1", ["--job_name=worker", "--task_index=1"])):
            logs[name] = open(tmp_path / f"{name}.log", "w+")
            procs[name] = subprocess.Popen([sys.executable, str(script), *common, *args],
                                           stdout=logs[name], stderr=subprocess.STDOUT,
                                           env=env)
        exited = {}
        deadline = time.monotonic() + 120
        while len(exited) < 2 and time.monotonic() < deadline:
            for name in ("worker0", "worker1"):
                if name not in exited and procs[name].poll() is not None:
                    exited[name] = time.time()
            time.sleep(0.05)
        out = {}
        for name in ("worker0", "worker1"):
            logs[name].seek(0)
            out[name] = logs[name].read()
        assert set(exited) == {"worker0", "worker1"}, \
            f"a worker did not exit within 120 s:\n{out['worker0'][-3000:]}"
        for name in ("worker0", "worker1"):
            assert procs[name].returncode == 0, out[name][-3000:]
            result = json.loads(out[name].split("RESULT ", 1)[1].splitlines()[0])
            assert result["global_step"] >= 40
            print(f"TIMING {name}: last step -> process exit "
                  f"{exited[name] - result['at']:.2f} s")
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait(30)
        for f in logs.values():
            f.close()


# ------------------------------------------------------------------ closing wakes waiters


def test_closing_a_local_session_wakes_its_blocked_step():
    q = tf.FIFOQueue(4, tf.float32)
    take = q.dequeue()
    sess = tf.Session()
    outcome = {}

    def blocked() -> None:
        try:
            sess.run(take)
        except errors.OpError as e:
            outcome["error"] = e

    t = threading.Thread(target=blocked, daemon=True)
    t.start()
    time.sleep(0.3)
    sess.close()
    t.join(10)
    assert not t.is_alive(), "the step still waits after its session closed"
    assert isinstance(outcome.get("error"), errors.CancelledError)
    assert "closed" in outcome["error"].message


def test_queue_runner_threads_end_when_their_session_closes():
    q = tf.FIFOQueue(2, tf.float32)
    qr = tf.train.QueueRunner(q, [q.enqueue(1.0), q.enqueue(2.0)])
    size = q.size()
    sess = tf.Session()
    # No coordinator, and not daemons: only closing the session can end them.
    threads = qr.create_threads(sess, start=True)
    assert not _settle(lambda: bool(sess.run(size) < 2), limit=10)  # full: both block
    sess.close()
    for t in threads:
        t.join(10)
    assert not any(t.is_alive() for t in threads), "a queue runner outlived its session"
    assert qr.exceptions_raised == []


def test_closing_a_cluster_session_wakes_its_blocked_step():
    c = LocalCluster({"ps": 1, "worker": 1})
    try:
        with tf.device("/job:ps/task:0"):
            q = tf.FIFOQueue(4, tf.float32, shared_name="waits")
            take = q.dequeue()
        sess = tf.Session(c.target("worker"))
        outcome = {}

        def blocked() -> None:
            try:
                sess.run(take)
            except errors.OpError as e:
                outcome["error"] = e

        t = threading.Thread(target=blocked, daemon=True)
        t.start()
        time.sleep(0.5)
        t0 = time.monotonic()
        sess.close()
        t.join(20)
        assert not t.is_alive(), "the step still waits after its session closed"
        assert time.monotonic() - t0 < 15
        assert isinstance(outcome.get("error"), errors.CancelledError), outcome
    finally:
        c.stop()


def test_closing_the_pool_wakes_a_call_waiting_for_its_reply(monkeypatch):
    # A silent server would be noticed after LIVENESS_TIMEOUT: far longer here.
    monkeypatch.setattr(bulk_client, "LIVENESS_TIMEOUT", 60.0)
    fake = FakeListener()
    pool = bulk_client.BulkPool()
    outcome = {}

    def call() -> None:
        frame = wire.encode({})
        try:
            pool.call(f"127.0.0.1:{fake.port}", fake.port, None, "test.Calls/Wait", [frame],
                      len(frame), time.monotonic() + 60, 1 << 20)
        except errors.OpError as e:
            outcome["error"] = e

    t = threading.Thread(target=call, daemon=True)
    try:
        t.start()
        time.sleep(0.5)
        t0 = time.monotonic()
        pool.close_all()
        t.join(10)
        assert not t.is_alive(), "close_all did not wake the waiting call"
        assert time.monotonic() - t0 < 5
        assert isinstance(outcome.get("error"), errors.UnavailableError)
    finally:
        pool.close_all()
        fake.close()


def test_a_stopped_server_leaves_no_pooled_connection_to_it():
    sockets_before = _socket_inodes()
    c = LocalCluster({"ps": 1, "worker": 1})
    try:
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(np.arange(4, dtype=np.float32))
        with tf.Session(c.target("worker")) as sess:
            sess.run(v.initializer)
            for _ in range(5):
                sess.run(v)
    finally:
        c.stop()
    left = _settle(lambda: _socket_inodes() - sockets_before)
    assert left == set(), f"sockets still open: {sorted(left)}"


# ------------------------------------------------------------------ the daemon pool


def test_the_daemon_pool_runs_on_daemon_threads_and_never_queues_behind_a_blocked_task():
    pool = DaemonPool(4, "test-pool", idle_secs=0.3)
    release = threading.Event()
    try:
        blocked = pool.submit(release.wait, 30)
        names = [pool.submit(lambda: (threading.current_thread().name,
                                      threading.current_thread().daemon)).result(5)
                 for _ in range(3)]
        assert all(daemon for _, daemon in names)
        assert all(name.startswith("test-pool_") for name, _ in names)
        assert not blocked.done()  # the others ran beside it
        failing = pool.submit(int, "not a number")
        with pytest.raises(ValueError):
            failing.result(5)
        release.set()
        assert blocked.result(5) is True
        # Idle threads end by themselves.
        assert _settle(lambda: pool.threads, limit=10) == 0
        assert pool.submit(lambda: 7).result(5) == 7
    finally:
        release.set()
        pool.shutdown()
    with pytest.raises(RuntimeError, match="shut down"):
        pool.submit(lambda: 1)
    assert _settle(lambda: pool.threads, limit=10) == 0


def test_the_daemon_pool_refuses_a_bad_size():
    with pytest.raises(ValueError, match="max_workers"):
        DaemonPool(0, "bad")
    with pytest.raises(ValueError, match="max_workers"):
        DaemonPool(True, "bad")
