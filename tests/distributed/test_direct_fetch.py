"""A client in its own process pulls a big fetch from the task that computes it, and
through the master when it cannot reach that task (distributed/direct_fetch.py)."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet import errors
from tensorfleet.distributed import direct_fetch, remote
from tensorfleet.runtime import process
from tensorfleet.transport import local_read
from tensorfleet.testing.cluster import LocalCluster

N = 2 * 1024 * 1024  # 8 MiB of float32: above direct_fetch.DIRECT_PULL_MIN_BYTES
SMALL = 1000


@pytest.fixture(scope="module")
def two_tasks():
    c = LocalCluster({"local": 2})
    # One cross-task step from this runtime first: the master's clients of task 1
    # then belong to it, not to a client's isolated runtime that closes after its
    # test (in one process, the runtime made current is current for every thread).
    with tf.Graph().as_default():
        with tf.device("/job:local/task:1"):
            one = tf.constant(1.0)
        with tf.device("/job:local/task:0"):
            two = one + 1.0
        with tf.Session(c.target("local", 0)) as sess:
            assert sess.run(two) == 2.0
    yield c
    c.stop()


def _status(cluster, task):
    address = cluster.target("local", task)[len("grpc://"):]
    return remote.client_for(address).call("GetStatus", {}, [], timeout=10)[0]


def _fetch_from_own_process(cluster):
    """Runs the fetch as a client in a runtime of its own (no in-process master)."""
    with process.isolated("client"):
        with tf.Graph().as_default():
            with tf.device("/job:local/task:1"):
                big = tf.Variable(tf.range(N, dtype=tf.float32), name="big")
                small = tf.range(SMALL, dtype=tf.float32) * 2.0
            with tf.device("/job:local/task:0"):
                total = tf.reduce_sum(small)
            with tf.Session(cluster.target("local", 0)) as sess:
                sess.run(big.initializer)
                first = sess.run([big, total, small])
                twice = sess.run([big, big])  # one tensor, fetched twice in one step
        np.testing.assert_array_equal(twice[0], twice[1])
        return first


def _check(values):
    got_big, got_total, got_small = values
    np.testing.assert_array_equal(got_big, np.arange(N, dtype=np.float32))
    assert got_total == float(np.arange(SMALL).sum() * 2)
    np.testing.assert_array_equal(got_small, np.arange(SMALL, dtype=np.float32) * 2)


def test_big_fetch_comes_from_the_task_that_holds_it(two_tasks):
    served = _status(two_tasks, 1)["side_channel"]["fetches"]
    read = _status(two_tasks, 1)["side_channel"]["local_reads"]
    master_out = _status(two_tasks, 0)["bytes_out"]
    _check(_fetch_from_own_process(two_tasks))
    # Task 1 served the parked tensor to the client itself, once per step that
    # fetched it (the initializer fetches nothing), on this host from its memory ...
    assert _status(two_tasks, 1)["side_channel"]["fetches"] == served + 2
    if local_read.supported():
        assert _status(two_tasks, 1)["side_channel"]["local_reads"] == read + 2
    # ... and the master's replies carried the small values only.
    sent = _status(two_tasks, 0)["bytes_out"] - master_out
    assert sent < N * 4 // 4, sent
    assert "FetchParked" not in _status(two_tasks, 0)["calls"]


def test_unreachable_holder_falls_back_to_the_master(two_tasks, monkeypatch):
    holder = two_tasks.target("local", 1)[len("grpc://"):]
    real = remote.client_for

    class _Unreachable:
        def redeem(self, *args, **kwargs):
            raise errors.UnavailableError(None, None, f"cannot connect to {holder}")

    def client_for(address, *args, **kwargs):
        return _Unreachable() if address == holder else real(address, *args, **kwargs)

    monkeypatch.setattr(remote, "client_for", client_for)
    relayed = _status(two_tasks, 0)["calls"].get("FetchParked", 0)
    _check(_fetch_from_own_process(two_tasks))
    assert _status(two_tasks, 0)["calls"].get("FetchParked", 0) == relayed + 2


def test_the_master_relays_only_from_its_own_tasks(two_tasks):
    master = remote.client_for(two_tasks.target("local", 0)[len("grpc://"):])
    outside = ["localhost:1", "00" * 16, 64, 0]
    with pytest.raises(errors.InvalidArgumentError, match="not a task of this cluster"):
        master.call("FetchParked", {"parked": outside}, [], timeout=10)
    for bad in (["localhost:1", "zz" * 16, 64, 0], ["localhost:1", "00" * 16, -1, 0],
                ["localhost:1", "00" * 8, 64, 0], "nope"):
        with pytest.raises(errors.InvalidArgumentError, match="malformed parked"):
            master.call("FetchParked", {"parked": bad}, [], timeout=10)


def test_park_requests_below_the_minimum_size_are_refused():
    with pytest.raises(errors.InvalidArgumentError, match="min_bytes"):
        direct_fetch.parse_park_request({"names": ["a:0"], "min_bytes": 1})
    assert direct_fetch.parse_park_request(
        direct_fetch.park_request(["a:0"], direct_fetch.DIRECT_PULL_MIN_BYTES))["names"] == {"a:0"}


def test_a_parked_tensor_is_not_given_to_a_wrong_token(monkeypatch):
    from tensorfleet.transport import auth, rpc
    monkeypatch.delenv(auth.TOKEN_ENV, raising=False)
    server = rpc.RpcServer("127.0.0.1:0", "test.Parked", {}, token="the-cluster-token").start()
    try:
        value = np.arange(N, dtype=np.float32)
        key, total, port = server.park({}, [value])
        assert port  # its side channel: the way a client pulls directly
        wrong = rpc.RpcClient(server.address, "test.Parked", token="another-token")
        with pytest.raises(errors.UnauthenticatedError):
            wrong.redeem(key, total, port, timeout=10)
        right = rpc.RpcClient(server.address, "test.Parked", token="the-cluster-token")
        _, (got,) = right.redeem(key, total, port, timeout=10)  # still parked for it
        np.testing.assert_array_equal(got, value)
    finally:
        server.stop(0)
