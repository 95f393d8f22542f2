"""Steps across an in-process cluster over real gRPC: placement, transfers, errors."""

import time

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.cluster import LocalCluster, free_ports, local_cluster


@pytest.fixture(scope="module")
def two_tasks():
    c = LocalCluster({"local": 2})
    yield c
    c.stop()


@pytest.mark.parametrize("client_task", [0, 1])
def test_seed_two_task_calc(two_tasks, client_task):
    x = tf.constant(5)
    with tf.device("/job:local/task:0"):
        y1 = x - 8
    with tf.device("/job:local/task:1"):
        y2 = x + 1
    z = y1 * y2
    with tf.Session(two_tasks.target("local", client_task)) as sess:
        assert sess.run(z) == -18
        assert sess.run([y1, y2]) == [-3, 6]


def test_seed_mapreduce_mean(two_tasks):
    x = tf.placeholder(tf.float32, 100)
    with tf.device("/job:local/task:1"):
        mean1 = tf.reduce_mean(tf.slice(x, [0], [50]))
    with tf.device("/job:local/task:0"):
        mean2 = tf.reduce_mean(tf.slice(x, [50], [-1]))
        mean = (mean1 + mean2) / 2
    data = np.random.RandomState(0).random_sample(100).astype(np.float32)
    with tf.Session(two_tasks.target("local", 0)) as sess:
        for _ in range(3):  # the second and third steps reuse the registered partitions
            np.testing.assert_allclose(sess.run(mean, {x: data}), data.mean(), rtol=1e-6)


def test_hello_on_local_server():
    server = tf.train.Server.create_local_server()
    try:
        c = tf.constant("Hello, distributed TensorFlow!")
        with tf.Session(server.target) as sess:
            assert sess.run(c) == b"Hello, distributed TensorFlow!"
    finally:
        server.stop()


def test_extend_session_with_ops_added_between_runs(two_tasks):
    with tf.device("/job:local/task:1"):
        a = tf.constant(2.0)
    with tf.Session(two_tasks.target("local", 0)) as sess:
        assert sess.run(a) == 2.0
        with tf.device("/job:local/task:1"):
            b = a * 10.0
        assert sess.run(b) == 20.0


def test_remote_error_names_task_and_op(two_tasks):
    x = tf.placeholder(tf.float32, [2], name="never_fed")
    with tf.device("/job:local/task:1"):
        y = tf.add(x, 1.0)
    del y
    with tf.device("/job:local/task:1"):
        z = tf.identity(tf.placeholder(tf.float32, [2], name="remote_ph"))
    with tf.Session(two_tasks.target("local", 0)) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(z)
    assert "remote_ph" in str(info.value)
    assert info.value.task == "/job:local/task:1"


def test_failure_on_one_task_does_not_hang_the_other(two_tasks):
    with tf.device("/job:local/task:1"):
        bad = tf.identity(tf.placeholder(tf.float32, [], name="missing"))
    with tf.device("/job:local/task:0"):
        out = bad + 1.0
    with tf.Session(two_tasks.target("local", 0)) as sess:
        start = time.monotonic()
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(out)
        # Task 0's own partition, which waits for ``bad``, is ended at once, and the
        # error is task 1's, not the abort it caused on task 0. Without the abort the
        # partition would wait for its tensor for good; the bound leaves room for load.
        assert time.monotonic() - start < 15.0
        assert info.value.task == "/job:local/task:1" and "missing" in str(info.value)
        # The session still works afterwards.
        assert sess.run(out, {bad: 1.0}) == 2.0


def test_log_device_placement(two_tasks, capsys):
    with tf.device("/job:local/task:1"):
        a = tf.constant(1.0, name="where_am_i")
    cfg = tf.ConfigProto(log_device_placement=True)
    with tf.Session(two_tasks.target("local", 0), config=cfg) as sess:
        sess.run(a)
    assert "where_am_i: (Const): /job:local/task:1" in capsys.readouterr().err


def test_port_in_use_fails_fast():
    port = free_ports(1)[0]
    spec = tf.train.ClusterSpec({"local": [f"localhost:{port}"]})
    s = tf.train.Server(spec, job_name="local", task_index=0)
    try:
        with pytest.raises(Exception, match=f"{port}"):
            tf.train.Server(spec, job_name="local", task_index=0)
    finally:
        s.stop()


def test_large_tensor_across_tasks(two_tasks):
    with tf.device("/job:local/task:1"):
        big = tf.ones([4 * 1024 * 1024], dtype=tf.float32)  # 16 MB
    with tf.device("/job:local/task:0"):
        total = tf.reduce_sum(big)
    with tf.Session(two_tasks.target("local", 0)) as sess:
        assert sess.run(total) == 4 * 1024 * 1024
        fetched = sess.run(big)
    assert fetched.shape == (4 * 1024 * 1024,) and fetched.dtype == np.float32


def test_three_task_cluster_with_ps():
    with local_cluster(ps=1, worker=2) as c:
        with tf.device("/job:ps/task:0"):
            w = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
        outs = []
        for i in range(2):
            with tf.device(f"/job:worker/task:{i}"):
                outs.append(tf.reduce_sum(w * float(i + 1)))
        total = tf.add_n(outs)
        with tf.Session(c.target("worker", 1)) as sess:
            assert sess.run(total) == 15.0 * 3


def test_random_op_state_survives_new_fetch_lists(two_tasks):
    """A seeded random op on a remote task continues its sequence when a step fetches
    something else too (a new partition is registered for that fetch list)."""
    tf.set_random_seed(3)
    with tf.device("/job:local/task:1"):
        r = tf.random_uniform([4], seed=5)
        other = tf.constant(1.0)
    with tf.Session(two_tasks.target("local", 0)) as sess:
        a = sess.run(r)
        b, _ = sess.run([r, other])
    tf.reset_default_graph()
    tf.set_random_seed(3)
    r2 = tf.random_uniform([4], seed=5)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(r2), a)
        np.testing.assert_array_equal(sess.run(r2), b)


def test_two_clients_share_a_variable_on_the_ps():
    """Between-graph replication: two clients on two workers build their own graphs
    with a variable of the same name on /job:ps/task:0, and both see one variable."""
    c = LocalCluster({"ps": 1, "worker": 2})
    try:
        graphs, sessions, incs = [], [], []
        for i in range(2):
            g = tf.Graph()
            with g.as_default(), tf.device("/job:ps/task:0"):
                v = tf.Variable(0.0, name="shared")
                incs.append((v, tf.assign_add(v, float(i + 1))))
            graphs.append(g)
            sessions.append(tf.Session(c.target("worker", i), graph=g))
        sessions[0].run(incs[0][0].initializer)
        sessions[0].run(incs[0][1])   # +1 through worker 0
        sessions[1].run(incs[1][1])   # +2 through worker 1, same variable
        assert sessions[0].run(incs[0][0]) == 3.0
        assert sessions[1].run(incs[1][0]) == 3.0
        for s in sessions:
            s.close()
    finally:
        c.stop()
