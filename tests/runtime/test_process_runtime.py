"""One runtime object per process: components made on first use, closed together, and
isolated runtimes for tests."""

from __future__ import annotations

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.collectives import registry
from tensorfleet.distributed.server import Server
from tensorfleet.runtime import process
from tensorfleet.transport import buffers, bulk_client, rpc_client


class _Closable:
    def __init__(self, log, name):
        self.log, self.name = log, name

    def close(self):
        self.log.append(self.name)


def test_components_are_made_once_on_first_use_and_closed_newest_first():
    log = []
    rt = process.ProcessRuntime("t")
    made = []

    def make(name):
        made.append(name)
        return _Closable(log, name)

    a = rt.component("a", lambda: make("a"), _Closable.close)
    assert rt.component("a", lambda: make("again"), _Closable.close) is a
    rt.component("b", lambda: make("b"), _Closable.close)
    assert made == ["a", "b"] and rt.has("a") and not rt.has("c")
    rt.close()
    assert log == ["b", "a"] and rt.closed
    rt.close()  # idempotent
    assert log == ["b", "a"]
    with pytest.raises(RuntimeError, match="closed"):
        rt.component("c", lambda: make("c"))


def test_a_failing_close_does_not_stop_the_others():
    log = []
    rt = process.ProcessRuntime("t")
    rt.component("a", lambda: _Closable(log, "a"), _Closable.close)

    def boom(_):
        raise OSError("cannot close")
    rt.component("b", object, boom)
    rt.close()
    assert log == ["a"]


def test_isolated_runtime_has_its_own_transport_state_and_restores_the_previous():
    outer = process.current()
    outer_channels = rpc_client.channel_cache()
    with process.isolated() as rt:
        assert process.current() is rt
        assert rpc_client.channel_cache() is not outer_channels
        assert bulk_client.pool() is bulk_client.POOL
        assert buffers.pool() is buffers.POOL
        assert rt.has("transport.channels") and rt.has("transport.bulk_pool")
        pool = rt.async_pool
        # Registrations (the grpc:// session backend) are kept.
        assert "grpc://" in rt.session_factories
    assert process.current() is outer
    assert rpc_client.channel_cache() is outer_channels
    assert rt.closed and not rt.has("transport.channels")
    with pytest.raises(RuntimeError):
        pool.submit(print)


def test_closing_an_isolated_runtime_stops_its_servers_and_groups():
    with process.isolated() as rt:
        server = Server.create_local_server()
        assert rt.local_servers == {server.address: server}
        group = registry.init(["localhost:0"], 0, key="iso")
        assert registry.is_initialized("iso")
        with tf.Graph().as_default():
            x = tf.constant(np.arange(3.0))
            with tf.Session(server.target) as sess:
                np.testing.assert_allclose(sess.run(x * 2), [0.0, 2.0, 4.0])
    assert rt.local_servers == {}
    assert not registry.is_initialized("iso")
    assert group is not None
    # The server's port was released: a new server can bind it.
    again = Server({"localhost": [server.address]}, job_name="localhost", task_index=0)
    again.stop()


def test_the_current_runtime_is_made_again_after_shutdown():
    with process.isolated():
        first = process.current()
        process.shutdown()
        second = process.current()
        assert second is not first and not second.closed
        assert "grpc://" in second.session_factories
        second.close()
