"""Steps over the bulk side channel: RunStep from a client, RunGraph from a master.

A client in the same process as its target server calls that server's master
directly; these tests reach the in-process servers through another spelling of
their address (127.0.0.1 rather than localhost), as a client process would.
"""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet import errors
from tensorfleet.distributed import protocol
from tensorfleet.runtime.session import stable_value
from tensorfleet.testing.cluster import LocalCluster
from tensorfleet.transport import buffers, bulk

pytestmark = pytest.mark.usefixtures("clean_transport_env")


@pytest.fixture
def cluster():
    c = LocalCluster({"local": 2})
    try:
        yield c
    finally:
        c.stop()


def _from_outside(c: LocalCluster, index: int) -> str:
    """The target of task ``index`` as a client in another process would reach it."""
    return c.target("local", index).replace("localhost", "127.0.0.1")


def _calls(c: LocalCluster, index: int) -> int:
    listener = c.server("local", index)._rpc.bulk_listener
    return 0 if listener is None else listener.stats["calls"]


def _mean_graph():
    x = tf.placeholder(tf.float32, [100], name="x")
    with tf.device("/job:local/task:1"):
        m1 = tf.reduce_mean(x[0:50])
    with tf.device("/job:local/task:0"):
        m2 = tf.reduce_mean(x[50:100])
        mean = (m1 + m2) / 2
    return x, mean


def _until_side_channel(c: LocalCluster, run) -> None:
    """Runs steps until the clients have learnt the side channels (asked in the background)."""
    end = time.monotonic() + 10
    while time.monotonic() < end:
        before = (_calls(c, 0), _calls(c, 1))
        run()
        if _calls(c, 0) > before[0] and _calls(c, 1) > before[1]:
            return
        time.sleep(0.01)
    raise AssertionError("the step never went over the side channels")


def test_the_seeds_two_task_step_is_one_side_channel_call_per_hop(cluster):
    x, mean = _mean_graph()
    values = np.arange(100, dtype=np.float32)
    with tf.Session(_from_outside(cluster, 0)) as sess:
        _until_side_channel(cluster, lambda: sess.run(mean, {x: values}))
        before = (_calls(cluster, 0), _calls(cluster, 1))
        for i in range(5):
            got = sess.run(mean, {x: values + i})
            assert got == pytest.approx(float(np.mean(values + i)))
        # Task 0 answers the client's RunStep, task 1 its master's RunGraph; the
        # slices travel inside those calls, so nothing else crosses.
        assert _calls(cluster, 0) - before[0] == 5
        assert _calls(cluster, 1) - before[1] == 5


def test_a_remote_error_over_the_side_channel_is_the_same_class_naming_op_and_task(cluster):
    with tf.device("/job:local/task:1"):
        v = tf.Variable(1.0, name="never_initialized")
        w = tf.Variable(2.0, name="w")
        doubled = w * 2.0
    with tf.Session(_from_outside(cluster, 0)) as sess:
        sess.run(w.initializer)
        _until_side_channel(cluster, lambda: sess.run(doubled))
        errors_before = cluster.server("local", 0)._rpc.bulk_listener.stats["call_errors"]
        with pytest.raises(tf.errors.FailedPreconditionError, match="never_initialized") as e:
            sess.run(v + 1.0)
        assert e.value.task == "/job:local/task:1"
        assert cluster.server("local", 0)._rpc.bulk_listener.stats["call_errors"] \
            == errors_before + 1
        assert sess.run(doubled) == 4.0  # the session and the servers carry on


def test_a_step_blocked_beyond_heartbeats_completes_when_another_client_unblocks_it(cluster):
    with tf.device("/job:local/task:1"):
        q = tf.FIFOQueue(4, tf.float32, shapes=[[]], shared_name="handoff")
        take = q.dequeue()
        put = q.enqueue([tf.constant(7.0)])
        size = q.size()
    result = {}
    with tf.Session(_from_outside(cluster, 0)) as waiter, \
            tf.Session(cluster.target("local", 1)) as feeder:
        _until_side_channel(cluster, lambda: waiter.run(size))
        before = _calls(cluster, 0)

        def wait():
            try:
                result["value"] = waiter.run(take)
            except BaseException as e:  # noqa: BLE001 - reported below
                result["error"] = e
        t = threading.Thread(target=wait)
        t.start()
        time.sleep(2.5 * bulk.HEARTBEAT_INTERVAL)
        assert t.is_alive() and not result
        feeder.run(put)
        t.join(30)
    assert result == {"value": 7.0}
    assert _calls(cluster, 0) == before + 1


@pytest.mark.parametrize("queue_task", [1, 0], ids=["remote_partition", "master_partition"])
@pytest.mark.parametrize("outside", [True, False], ids=["side_channel_client", "in_process"])
def test_operation_timeout_cancels_the_step_on_every_task(cluster, queue_task, outside):
    with tf.device(f"/job:local/task:{queue_task}"):
        q = tf.FIFOQueue(4, tf.float32, shapes=[[]], shared_name=f"empty_{queue_task}")
        take = q.dequeue()
        put = q.enqueue([tf.constant(5.0)])
        size = q.size()
    with tf.device("/job:local/task:1"):
        other = tf.constant(2.0) * 3.0  # task 1 takes part in every step below
    config = tf.ConfigProto(operation_timeout_in_ms=600)
    target = _from_outside(cluster, 0) if outside else cluster.target("local", 0)
    with tf.Session(target, config=config) as sess:
        if outside:
            _until_side_channel(cluster, lambda: sess.run((size, other)))
        start = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError,
                           match=r"operation_timeout_in_ms \(600 ms\)"):
            sess.run((take, other))
        assert time.monotonic() - start < 5
        # The dequeue was cancelled on its task, not left waiting: it would take
        # this element, and the next dequeue would block.
        sess.run(put)
        assert sess.run((take, other)) == (5.0, 6.0)


@pytest.mark.parametrize("outside", [True, False], ids=["side_channel_client", "in_process"])
def test_run_options_timeout_cancels_one_step_on_every_task(cluster, outside):
    with tf.device("/job:local/task:1"):
        q = tf.FIFOQueue(4, tf.float32, shapes=[[]], shared_name="per_run")
        take = q.dequeue()
        put = q.enqueue([tf.constant(8.0)])
        size = q.size()
    target = _from_outside(cluster, 0) if outside else cluster.target("local", 0)
    with tf.Session(target) as sess:
        if outside:
            _until_side_channel(cluster, lambda: sess.run(size))
        with pytest.raises(tf.errors.DeadlineExceededError,
                           match=r"RunOptions.timeout_in_ms \(400 ms\)"):
            sess.run(take, options=tf.RunOptions(timeout_in_ms=400))
        sess.run(put)
        assert sess.run(take) == 8.0  # the timed-out dequeue took nothing


def test_a_negative_step_timeout_is_refused(cluster):
    from tensorfleet.transport import rpc
    client = rpc.RpcClient(_from_outside(cluster, 0)[len("grpc://"):], protocol.SERVICE)
    with pytest.raises(errors.InvalidArgumentError, match="timeout_ms must not be negative"):
        client.call("RunStep", {"session": "s", "feeds": [], "fetches": [], "targets": [],
                                "timeout_ms": -5})


def test_with_bulk_off_steps_go_over_grpc(cluster, monkeypatch):
    monkeypatch.setenv(bulk.BULK_ENV, "0")
    x, mean = _mean_graph()
    values = np.linspace(-3, 5, 100, dtype=np.float32)
    before = (_calls(cluster, 0), _calls(cluster, 1))
    with tf.Session(_from_outside(cluster, 0)) as sess:
        for _ in range(5):
            assert sess.run(mean, {x: values}) == pytest.approx(float(np.mean(values)))
    assert (_calls(cluster, 0), _calls(cluster, 1)) == before


def test_a_variable_fetched_over_the_side_channel_is_the_users_own(cluster):
    with tf.device("/job:local/task:1"):
        v = tf.Variable(np.arange(1000, dtype=np.float32), name="v")
        bump = v.assign_add(np.ones(1000, np.float32))
    with tf.Session(_from_outside(cluster, 0)) as sess:
        sess.run(v.initializer)
        _until_side_channel(cluster, lambda: sess.run(bump))
        got = sess.run(v)
        assert buffers.is_message_buffer(got)  # received straight into place
        expected = got.copy()
        sess.run(bump)
        np.testing.assert_array_equal(got, expected)
        got[:] = -1.0
        assert float(sess.run(v)[0]) == expected[0] + 1


# -- replies are stable: the side channel sends them from the handler's memory -----------

def test_stable_value_copies_views_and_keeps_private_arrays():
    storage = np.arange(8, dtype=np.float32)
    variable_view = storage.view()
    copied = stable_value(variable_view)
    assert not np.shares_memory(copied, storage)
    np.testing.assert_array_equal(copied, storage)
    owned = np.ones(3)
    assert stable_value(owned) is owned
    received = buffers.take(64)[:16].view(np.float32)  # a received tensor's view
    assert stable_value(received) is received
    assert stable_value(3.5) == 3.5


class _FakeMaster:
    def __init__(self, value):
        self.value = value

    def run_step(self, session, feeds, values, fetches, targets, timeout_ms=0):
        return [self.value]


class _FakeWorker:
    def __init__(self, value):
        self.value = value

    def run_graph(self, handle, step_id, feeds):
        return {"v:0": self.value}


def test_run_step_and_run_graph_reply_with_copies_of_variable_storage():
    storage = np.arange(16, dtype=np.float32)
    view = storage.view()  # how a variable's value is held
    table = protocol.handlers(SimpleNamespace(master=_FakeMaster(view),
                                              worker=_FakeWorker(view), cluster_spec=None))
    assert {"RunStep", "RunGraph"} <= table.bulk_methods
    _, (step_out,) = table["RunStep"]({"session": "s", "feeds": [], "fetches": ["v:0"],
                                       "targets": []}, [])
    header, (graph_out,) = table["RunGraph"]({"handle": "h", "step_id": 1, "feeds": []}, [])
    assert header == {"fetches": ["v:0"]}
    for out in (step_out, graph_out):
        assert not np.shares_memory(out, storage)
        np.testing.assert_array_equal(out, storage)


def test_a_bad_run_step_request_over_the_side_channel_is_refused_and_serving_goes_on(cluster):
    from tensorfleet.transport import rpc
    x, mean = _mean_graph()
    client = rpc.RpcClient(_from_outside(cluster, 0)[len("grpc://"):], protocol.SERVICE)
    assert client.side_channel() != 0
    listener = cluster.server("local", 0)._rpc.bulk_listener
    before = listener.stats["call_errors"]
    with pytest.raises(errors.InvalidArgumentError, match="2 feed names but 1 tensors"):
        client.call("RunStep", {"session": "nope", "feeds": ["x:0", "y:0"],
                                "fetches": [], "targets": []}, [np.zeros(1, np.float32)])
    with pytest.raises(errors.InvalidArgumentError, match="'session'"):
        client.call("RunStep", {"feeds": [], "fetches": [], "targets": []})
    assert listener.stats["call_errors"] == before + 2
    with tf.Session(_from_outside(cluster, 0)) as sess:
        assert sess.run(mean, {x: np.ones(100, np.float32)}) == 1.0
