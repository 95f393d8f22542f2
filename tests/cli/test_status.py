"""`tensorfleet status` against a live in-process cluster: roles, UP/DOWN, variables, bytes."""

import json
import logging

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.cli import status
from tensorfleet.testing.cluster import LocalCluster


@pytest.fixture(autouse=True)
def _keep_logging():
    """``main()`` configures the tensorfleet logger; other tests must not see that."""
    logger = logging.getLogger("tensorfleet")
    level, handlers = logger.level, list(logger.handlers)
    yield
    logger.setLevel(level)
    logger.handlers[:] = handlers


def cli(argv):
    from tensorfleet.cli.main import main
    return main(argv)


@pytest.fixture
def trained_cluster():
    c = LocalCluster({"ps": 1, "worker": 2})
    try:
        with tf.device("/job:ps/task:0"):
            w = tf.Variable(np.ones((32, 8), np.float32), name="weights")
            b = tf.Variable(np.zeros(8, np.float32), name="biases")
        with tf.device("/job:worker/task:0"):
            x = tf.placeholder(tf.float32, [None, 32])
            loss = tf.reduce_sum(tf.matmul(x, w) + b)
            train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        with tf.Session(c.target("worker", 0)) as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(5):
                sess.run(train, {x: np.ones((4, 32), np.float32)})
        yield c
    finally:
        c.stop()


def test_status_shows_every_task_up_with_role_and_ps_variables(trained_cluster):
    st = status.collect(trained_cluster.target("worker", 1), timeout=5, interval=0.2)
    rows = {r["task"]: r for r in st["tasks"]}
    assert set(rows) == {"/job:ps/task:0", "/job:worker/task:0", "/job:worker/task:1"}
    assert all(r["state"] == "UP" for r in rows.values())
    assert rows["/job:ps/task:0"]["role"] == "parameter server"
    assert rows["/job:worker/task:0"]["role"] == "worker (chief)"
    assert rows["/job:worker/task:1"]["role"] == "worker"
    ps = rows["/job:ps/task:0"]
    variables = {v["name"]: v for v in ps["variables"]}
    assert variables["weights"]["shape"] == [32, 8] and variables["weights"]["bytes"] == 1024
    assert variables["biases"]["shape"] == [8]
    assert ps["steps"] >= 5
    # The worker pulled the weights from the ps and sent gradients to it.
    assert ps["bytes_out"] >= 5 * 1024
    assert rows["/job:worker/task:0"]["bytes_in"] >= 5 * 1024
    assert ps["bytes_in"] >= 5 * 1024
    assert "steps_per_sec" in ps
    # The ps served the worker's RunGraph calls and tensor pulls over its side channel.
    side = ps["side_channel"]
    assert side["port"] > 0 and side["calls"] >= 5
    assert status._side_channel_cell(side) == f":{side['port']} ({side['calls']} calls)"


def test_status_says_when_a_side_channel_is_off_or_unknown(monkeypatch):
    from tensorfleet.transport import bulk
    monkeypatch.setenv(bulk.BULK_ENV, "0")
    c = LocalCluster({"worker": 1})
    try:
        st = status.collect(c.target("worker", 0), timeout=5, interval=0)
    finally:
        c.stop()
    (row,) = st["tasks"]
    assert row["side_channel"] == {"port": 0, "calls": 0, "fetches": 0}
    assert status._side_channel_cell(row["side_channel"]) == "off"
    text = status.render(st)
    assert "SIDE CHANNEL" in text
    assert [ln for ln in text.splitlines() if ln.startswith("/job:worker/task:0")][0] \
        .endswith(" off")
    for bad in (None, "x", {"port": -1, "calls": 0, "fetches": 0}, {"port": 1, "calls": True,
                                                                   "fetches": 0}):
        assert status._side_channel(bad) is None
    assert status._side_channel_cell(None) == "-"


def test_status_command_output_and_a_stopped_task_is_down(trained_cluster, capsys):
    target = trained_cluster.target("worker", 0)
    rc = cli(["status", target, "--interval", "0", "--timeout", "3"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "3/3 tasks up" in out
    lines = {ln.split()[0]: ln for ln in out.splitlines() if ln.startswith("/job:")}
    assert "parameter server" in lines["/job:ps/task:0"] and " UP " in lines["/job:ps/task:0"]
    assert "worker (chief)" in lines["/job:worker/task:0"]
    assert "variables on /job:ps/task:0 (parameter server):" in out
    assert any(ln.split()[:3] == ["weights", "[32,", "8]"] for ln in out.splitlines()), out

    trained_cluster.server("worker", 1).stop()
    rc = cli(["status", target, "--interval", "0", "--timeout", "3", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert rc == status.EXIT_SOME_DOWN
    states = {r["task"]: r["state"] for r in data["tasks"]}
    assert states == {"/job:ps/task:0": "UP", "/job:worker/task:0": "UP",
                      "/job:worker/task:1": "DOWN"}
    text = status.render(data)
    assert "2/3 tasks up" in text and "/job:worker/task:1 is DOWN" in text


def test_status_of_an_unreachable_target_exits_2(capsys):
    from tensorfleet.testing.cluster import free_ports
    port = free_ports(1)[0]
    rc = cli(["status", f"grpc://localhost:{port}", "--timeout", "1"])
    assert rc == status.EXIT_UNREACHABLE
    assert "cannot get the status" in capsys.readouterr().err


def test_human_bytes():
    assert status.human_bytes(512) == "512 B"
    assert status.human_bytes(1536) == "1.5 KiB"
    assert status.human_bytes(3 * 1024 ** 3) == "3.0 GiB"
