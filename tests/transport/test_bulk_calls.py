"""Calls of allowed methods over the bulk side channel (tensorfleet.transport.bulk, rpc)."""

from __future__ import annotations

import json
import os
import socket
import threading
import time

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet import errors
from tensorfleet.testing.cluster import LocalCluster
from tests.transport.bulk_fakes import FakeListener, read_until_closed, run_in_threads
from tensorfleet.transport import auth, bulk, bulk_client, handshake, rpc, wire

SERVICE = "test.Calls"
TOKEN = "bulk-calls-test-token"
KIB = 1 << 10


pytestmark = pytest.mark.usefixtures("clean_transport_env")


def _data(seed: int, n: int) -> np.ndarray:
    return np.random.default_rng(seed).random(n, dtype=np.float32)


class _Service:
    """Handlers that record which thread ran them (gRPC's pool or a side channel's)."""

    def __init__(self) -> None:
        self.threads: list = []
        self.ran = {"Pull": 0, "Plain": 0, "Fail": 0, "Wait": 0}
        self.release = threading.Event()
        self.delay = 0.0

    def _note(self, name: str) -> None:
        self.ran[name] += 1
        self.threads.append(threading.current_thread().name)

    def pull(self, h, t):
        self._note("Pull")
        out = [_data(h["seed"], h["n"]), np.array([b"key", b""], dtype=object),
               np.arange(6, dtype=np.int64).reshape(2, 3)]
        return {"seed": h["seed"], "echo": [x.tolist() for x in t]}, out

    def plain(self, h, t):
        self._note("Plain")
        return {"plain": True}, []

    def fail(self, h, t):
        self._note("Fail")
        if h.get("kind") == "bug":
            raise KeyError("a handler bug")
        raise errors.NotFoundError("ps/read_op", None, "no such tensor", task=h.get("task"))

    def wait(self, h, t):
        self._note("Wait")
        if h.get("delay"):
            time.sleep(h["delay"])
        elif not self.release.wait(30):
            raise errors.DeadlineExceededError(None, None, "never released")
        return {"waited": True}, [np.ones(4, np.float32)]

    def table(self):
        return rpc.ServiceHandlers(
            {"Pull": self.pull, "Plain": self.plain, "Fail": self.fail, "Wait": self.wait},
            bulk_methods={"Pull", "Fail", "Wait"})


@pytest.fixture
def serve():
    servers, services = [], []

    def start(service=None, **kwargs):
        service = service or _Service()
        kwargs.setdefault("task", "/job:ps/task:0")
        server = rpc.RpcServer("127.0.0.1:0", SERVICE, service.table(), **kwargs).start()
        servers.append(server)
        services.append(service)
        return server, service

    try:
        yield start
    finally:
        for service in services:
            service.release.set()
        for server in servers:
            server.stop(0)


def _client(server, channels, pool, **kwargs):
    client = rpc.RpcClient(server.address, SERVICE, channels=channels, bulk_pool=pool, **kwargs)
    return client


def _calls(server) -> int:
    return server.bulk_listener.stats["calls"]


def _over_side_channel(service, server) -> bool:
    return service.threads[-1] == f"tf-bulk-conn-{server.bulk_listener.port}"


# ------------------------------------------------------------------ the fast path


def test_a_call_returns_the_handlers_tensors_over_the_side_channel(serve, channels, pool):
    server, service = serve(token=TOKEN)
    client = _client(server, channels, pool, token=TOKEN)
    assert client.side_channel() == server.bulk_listener.port
    for k, n in enumerate((1, 256, 200_000, 1 << 20)):  # up to 4 MiB
        h, (arr, strings, ints) = client.call("Pull", {"seed": k, "n": n},
                                              [np.array([1.5, 2.5])], timeout=30)
        assert h == {"seed": k, "echo": [[1.5, 2.5]]}
        assert np.array_equal(arr, _data(k, n)) and arr.dtype == np.float32
        assert list(strings) == [b"key", b""]
        assert np.array_equal(ints, np.arange(6).reshape(2, 3))
        assert _over_side_channel(service, server)
        assert _calls(server) == k + 1
    arr[0] = 1.0  # a reply received over the side channel is a writable buffer
    assert server.bulk_listener.stats["accepted"] == 1  # one pooled connection for all
    assert server.bulk_listener.stats["call_bytes"] > 4 << 20
    # A method the service did not declare still goes over gRPC.
    assert client.call("Plain")[0] == {"plain": True}
    assert service.threads[-1].startswith("tf-rpc") and _calls(server) == 4


def test_the_first_calls_go_over_grpc_while_the_client_asks_in_the_background(
        serve, channels, pool):
    server, service = serve()
    client = _client(server, channels, pool)
    client.call("Pull", {"seed": 0, "n": 4})
    assert service.threads[0].startswith("tf-rpc")  # no blocking discovery on the way
    deadline = time.monotonic() + 5
    while _calls(server) == 0 and time.monotonic() < deadline:
        client.call("Pull", {"seed": 0, "n": 4})
        time.sleep(0.01)
    assert _calls(server) >= 1 and _over_side_channel(service, server)


def test_handler_errors_arrive_as_the_same_subclass_with_task_and_op(serve, channels, pool):
    server, service = serve()
    client = _client(server, channels, pool)
    client.side_channel()
    with pytest.raises(errors.NotFoundError) as e:
        client.call("Fail", {"task": "/job:ps/task:7"})
    assert e.value.message == "no such tensor" and e.value.task == "/job:ps/task:7"
    assert e.value.node_def == "ps/read_op"  # as over gRPC: the op's name
    with pytest.raises(errors.NotFoundError) as e:
        client.call("Fail", {})
    assert e.value.task == "/job:ps/task:0"  # the server's own task when the error has none
    with pytest.raises(errors.InternalError, match="KeyError"):
        client.call("Fail", {"kind": "bug"})
    assert service.ran["Fail"] == 3 and _over_side_channel(service, server)
    stats = server.bulk_listener.stats
    assert stats["calls"] == 3 and stats["call_errors"] == 3
    # A malformed request frame is the handler's InvalidArgumentError, not a broken link.
    frame = bytearray(wire.encode({"seed": 1}))
    frame[6] = 1  # unknown flags
    status, payload = pool.call(server.address, server.bulk_listener.port, None,
                                f"{SERVICE}/Pull", [frame], len(frame), time.monotonic() + 5,
                                1 << 20)
    assert status == bulk.STATUS_ERROR
    assert json.loads(payload.tobytes())["code"] == errors.INVALID_ARGUMENT
    assert client.call("Pull", {"seed": 1, "n": 3})[1][0].size == 3


def test_a_method_not_allowed_is_refused_and_not_run(serve, pool):
    server, service = serve()
    port = server.bulk_listener.port
    for name in (f"{SERVICE}/Plain", f"{SERVICE}/Missing", "other.Service/Pull"):
        frame = wire.encode({"seed": 1, "n": 1})
        status, payload = pool.call(server.address, port, None, name, [frame], len(frame),
                                    time.monotonic() + 5, 1 << 20)
        assert status == bulk.STATUS_ERROR
        error = json.loads(payload.tobytes())
        assert error["code"] == errors.UNIMPLEMENTED and name in error["message"]
    assert service.ran == {"Pull": 0, "Plain": 0, "Fail": 0, "Wait": 0}
    assert server.bulk_listener.stats["call_errors"] == 3


def test_a_wrong_token_cannot_call(serve, pool):
    server, service = serve(token=TOKEN)
    port = server.bulk_listener.port
    frame = wire.encode({"seed": 1, "n": 1})
    with pytest.raises(bulk.BulkUnavailable):
        pool.call(server.address, port, "wrong-token", f"{SERVICE}/Pull", [frame], len(frame),
                  time.monotonic() + 5, 1 << 20)
    # By hand: a wrong proof, then a call anyway.
    name = f"{SERVICE}/Pull".encode()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(bulk._HELLO.pack(bulk.MAGIC, bulk.BULK_VERSION, 0, os.urandom(16)))
        sock.sendall(bulk._PROOF.pack(bulk.MAGIC, bulk.BULK_VERSION, 0, b"\0" * 32))
        sock.sendall(bulk._CALL.pack(bulk.MAGIC, bulk.BULK_VERSION, bulk.KIND_CALL, len(name),
                                     0, len(frame), 0) + name + frame)
        got = read_until_closed(sock)
    assert len(got) == bulk._CHALLENGE.size + bulk._VERDICT.size
    assert service.ran["Pull"] == 0 and server.bulk_listener.stats["calls"] == 0


# ------------------------------------------------------------------ long-polls and liveness


def test_a_long_poll_answered_later_works(serve, channels, pool):
    server, service = serve()
    client = _client(server, channels, pool)
    client.side_channel()
    threading.Timer(0.5, service.release.set).start()
    t0 = time.monotonic()
    h, (out,) = client.call("Wait", {}, timeout=10)
    assert h == {"waited": True} and out.tolist() == [1, 1, 1, 1]
    assert 0.4 < time.monotonic() - t0 < 5 and _over_side_channel(service, server)


def test_heartbeats_keep_a_long_call_alive_and_its_deadline_still_holds(
        serve, channels, pool, monkeypatch):
    # Heartbeats come faster than the client's receive slice (0.1 s), so a receive
    # never wakes up empty: the deadline must hold all the same. Liveness is
    # generous: on a loaded machine the server's heartbeat thread may be starved.
    monkeypatch.setattr(bulk, "HEARTBEAT_INTERVAL", 0.02)
    monkeypatch.setattr(bulk_client, "LIVENESS_TIMEOUT", 1.5)
    server, service = serve()
    client = _client(server, channels, pool)
    client.side_channel()
    assert client.call("Wait", {"delay": 3.5}, timeout=20)[0] == {"waited": True}
    assert _calls(server) == 1
    t0 = time.monotonic()
    with pytest.raises(errors.DeadlineExceededError, match="deadline of 0.5 s"):
        client.call("Wait", {}, timeout=0.5)
    # The call ends within a receive slice of its deadline once its thread runs;
    # the bound leaves a loaded machine its scheduling delays. A deadline carried
    # by the heartbeats would last until the handler gives up (30 s).
    assert time.monotonic() - t0 < 5
    # The timed-out connection was closed, not pooled: the next call opens another.
    service.release.set()
    client.call("Wait", {}, timeout=10)
    assert server.bulk_listener.stats["accepted"] == 2


class _TrickleListener:
    """Authenticates like a listener, reads one request, then sends a reply of
    ``total`` bytes one byte every ``every`` seconds, for at most ``limit`` seconds."""

    def __init__(self, total: int, every: float, limit: float = 15.0) -> None:
        self._total, self._every, self._limit = total, every, limit
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        conn, _ = self.sock.accept()
        with conn:
            conn.settimeout(10)
            _, _, _, cn = bulk._HELLO.unpack(conn.recv(bulk._HELLO.size, socket.MSG_WAITALL))
            sn = os.urandom(16)
            mac = handshake.mac(b"", handshake.ROLE_ACCEPTOR, bulk.transcript(cn, sn))
            conn.sendall(bulk._CHALLENGE.pack(bulk.MAGIC, bulk.BULK_VERSION, 0, sn, mac))
            conn.recv(bulk._PROOF.size, socket.MSG_WAITALL)
            conn.sendall(bulk._VERDICT.pack(bulk.MAGIC, bulk.BULK_VERSION, 0))
            conn.recv(1 << 16)
            conn.sendall(bulk._REPLY.pack(bulk.MAGIC, bulk.BULK_VERSION, bulk.STATUS_OK,
                                          self._total))
            end = time.monotonic() + self._limit
            try:
                while time.monotonic() < end:
                    conn.sendall(b"\0")
                    time.sleep(self._every)
            except OSError:
                pass  # the client gave up and closed the connection

    def close(self) -> None:
        self.thread.join(20)
        self.sock.close()


def test_a_reply_trickling_in_does_not_carry_a_call_past_its_deadline(pool):
    fake = _TrickleListener(total=10_000, every=0.02)
    try:
        frame = wire.encode({})
        t0 = time.monotonic()
        with pytest.raises(TimeoutError):
            pool.call(f"127.0.0.1:{fake.port}", fake.port, None, f"{SERVICE}/Wait", [frame],
                      len(frame), t0 + 1.0, 1 << 20)
        # Bytes kept arriving; the deadline held anyway (generous for a loaded machine).
        assert time.monotonic() - t0 < 6
    finally:
        fake.close()


def test_a_silent_server_fails_the_call_promptly(pool, monkeypatch):
    monkeypatch.setattr(bulk_client, "LIVENESS_TIMEOUT", 0.5)
    fake = FakeListener()
    try:
        frame = wire.encode({})
        t0 = time.monotonic()
        with pytest.raises(errors.UnavailableError, match="sent nothing"):
            pool.call(f"127.0.0.1:{fake.port}", fake.port, None, f"{SERVICE}/Wait", [frame],
                      len(frame), t0 + 30, 1 << 20)
        # The liveness timeout (0.5 s) ends it, long before the call's 30 s deadline.
        assert time.monotonic() - t0 < 15.0
    finally:
        fake.close()


def test_server_stopped_during_a_blocked_call_fails_it_quickly(serve, channels, pool):
    server, service = serve()
    client = _client(server, channels, pool)
    client.side_channel()
    client.call("Pull", {"seed": 0, "n": 1})  # a pooled connection, as in a real job
    outcome = {}

    def blocked() -> None:
        try:
            client.call("Wait", {}, timeout=60)
        except errors.OpError as e:
            outcome["error"], outcome["at"] = e, time.monotonic()

    thread = threading.Thread(target=blocked)
    thread.start()
    time.sleep(1.2)  # past the first heartbeat: the handler is running
    assert service.ran["Wait"] == 1
    stopped = time.monotonic()
    server.stop(0)
    thread.join(10)
    service.release.set()
    assert isinstance(outcome.get("error"), errors.UnavailableError)
    assert outcome["at"] - stopped < 3
    assert server.address in outcome["error"].message
    assert getattr(outcome["error"], "unreachable", False)


def test_keepalive_is_set_on_side_channel_sockets(serve):
    server, _ = serve()
    sock = bulk_client.connect("127.0.0.1", server.bulk_listener.port, None, time.monotonic() + 5)
    try:
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE)
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE) == 2
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL) == 1
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT) == 3
        if hasattr(socket, "TCP_USER_TIMEOUT"):
            assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT) == 5000
    finally:
        sock.close()


# ------------------------------------------------------------------ fallback to gRPC


def test_bulk_env_zero_keeps_calls_on_grpc(serve, channels, pool, monkeypatch):
    server, service = serve()
    monkeypatch.setenv(bulk.BULK_ENV, "0")
    client = _client(server, channels, pool)
    assert client.side_channel() == 0
    for _ in range(3):
        assert client.call("Pull", {"seed": 2, "n": 5})[1][0].size == 5
    assert service.threads[-1].startswith("tf-rpc") and _calls(server) == 0
    # A server started with the side channel off answers port 0 to a client with it on.
    off, off_service = serve()
    monkeypatch.delenv(bulk.BULK_ENV)
    assert off.bulk_listener is None
    client = _client(off, channels, pool)
    assert client.side_channel() == 0
    for _ in range(3):
        assert client.call("Pull", {"seed": 2, "n": 5})[1][0].size == 5
    assert off_service.threads[-1].startswith("tf-rpc")


def test_tls_calls_go_over_the_side_channel_in_tls(serve, channels, pool, tls_cert):
    cert, key = tls_cert
    server, service = serve(token=TOKEN,
                            credentials=auth.server_credentials(cert, key))
    client = rpc.RpcClient(f"localhost:{server.port}", SERVICE, token=TOKEN, channels=channels,
                           bulk_pool=pool, credentials=auth.channel_credentials(ca_file=cert))
    assert client.side_channel() == server.bulk_listener.port
    for _ in range(2):
        h, (arr, _, _) = client.call("Pull", {"seed": 3, "n": 100})
        assert np.array_equal(arr, _data(3, 100))
        assert _over_side_channel(service, server)
    assert _calls(server) == 2


def test_unreachable_side_channel_falls_back_then_is_retried(serve, channels, monkeypatch):
    pool = bulk_client.BulkPool(retry_after=0.5)
    try:
        server, service = serve()
        client = _client(server, channels, pool)
        client.side_channel()
        port = server.bulk_listener.port
        pool._mark_unreachable(server.address, port, "frozen, say")
        assert not pool.usable(server.address, port)
        client.call("Pull", {"seed": 1, "n": 1})
        assert service.threads[-1].startswith("tf-rpc") and _calls(server) == 0
        time.sleep(0.6)
        client.call("Pull", {"seed": 1, "n": 1})
        assert _calls(server) == 1 and pool.unreachable() == {}
    finally:
        pool.close_all()


def test_a_restarted_server_is_found_on_its_new_port(serve, channels, pool):
    server, _ = serve()
    address = server.address
    client = rpc.RpcClient(address, SERVICE, channels=channels, bulk_pool=pool)
    client.side_channel()
    client.call("Pull", {"seed": 1, "n": 1})
    old_port = server.bulk_listener.port
    server.stop(0)
    again = rpc.RpcServer(address, SERVICE, _Service().table()).start()
    try:
        assert again.bulk_listener.port != old_port
        deadline = time.monotonic() + 10
        while _calls(again) == 0 and time.monotonic() < deadline:
            h, _ = client.call("Pull", {"seed": 5, "n": 2}, wait_for_ready=True)
            assert h["seed"] == 5
            time.sleep(0.05)
        assert _calls(again) >= 1
    finally:
        again.stop(0)


# ------------------------------------------------------------------ hostile input


def _call_head(name_len: int, length: int, reserved: int = 0, reserved2: int = 0) -> bytes:
    return bulk._CALL.pack(bulk.MAGIC, bulk.BULK_VERSION, bulk.KIND_CALL, name_len, reserved,
                           length, reserved2)


_NAME = f"{SERVICE}/Pull".encode()


@pytest.mark.parametrize("request_bytes, bad", [
    (_call_head(len(_NAME), bulk.MAX_CALL_REQUEST + 1) + _NAME, 1),  # oversized: unread
    (_call_head(len(_NAME), 1 << 31) + _NAME, 1),
    (_call_head(0, 10), 1),
    (_call_head(bulk.MAX_NAME_BYTES + 1, 10), 1),
    (_call_head(len(_NAME), 8, reserved=1) + _NAME + b"\0" * 8, 1),
    (_call_head(len(_NAME), 8, reserved2=7) + _NAME + b"\0" * 8, 1),
    (_call_head(9, 8) + b"../../etc" + b"\0" * 8, 1),
    (_call_head(len(_NAME), 16) + _NAME + b"\0" * 4, 0),  # truncated, then closed
])
def test_malformed_call_requests_close_only_that_connection(serve, channels, pool,
                                                            request_bytes, bad):
    server, service = serve(token=TOKEN)
    listener = server.bulk_listener
    sock = bulk_client.connect("127.0.0.1", listener.port, TOKEN, time.monotonic() + 5)
    try:
        try:
            sock.sendall(request_bytes)
            if not bad:
                sock.shutdown(socket.SHUT_WR)
        except ConnectionError:
            pass  # the server may close before it has read everything
        assert read_until_closed(sock) == b""
    finally:
        sock.close()
    assert listener.stats["bad_requests"] == bad
    assert service.ran["Pull"] == 0
    client = _client(server, channels, pool, token=TOKEN)
    client.side_channel()
    assert np.array_equal(client.call("Pull", {"seed": 4, "n": 9})[1][0], _data(4, 9))
    assert listener.stats["calls"] == 1


@pytest.mark.parametrize("reply", [
    b"garbage",
    wire.encode({"port": 70000, "methods": ["Pull"]}),
    wire.encode({"port": True, "methods": ["Pull"]}),
    wire.encode({"port": 5, "methods": ["../Pull"]}),
    wire.encode({"port": 5, "methods": "Pull"}),
    wire.encode({"port": 5, "methods": ["Pull"] * 2000}),
])
def test_a_malformed_side_channel_answer_means_no_side_channel(channels, pool, reply):
    client = rpc.RpcClient("127.0.0.1:1", SERVICE, channels=channels, bulk_pool=pool)
    assert client._parse_side_channel(reply) == (0, frozenset())


def test_a_reply_over_the_clients_limit_is_refused_and_the_connection_dropped(
        serve, channels, pool):
    server, _ = serve()
    client = _client(server, channels, pool, max_message_bytes=64 * KIB)
    client.side_channel()
    with pytest.raises(errors.ResourceExhaustedError, match="this client"):
        client.call("Pull", {"seed": 1, "n": 32 * KIB})
    assert client.call("Pull", {"seed": 1, "n": 8})[1][0].size == 8
    assert server.bulk_listener.stats["accepted"] == 2


# ------------------------------------------------------------------ concurrency and use


def test_concurrent_calls_from_several_threads(serve, channels, pool):
    server, service = serve()
    client = _client(server, channels, pool)
    client.side_channel()
    failures = []

    def worker(t: int) -> None:
        try:
            for i in range(10):
                seed, n = 100 * t + i, 1000 * (t + 1) + i
                h, (out, _, _) = client.call("Pull", {"seed": seed, "n": n}, timeout=30)
                if h["seed"] != seed or not np.array_equal(out, _data(seed, n)):
                    failures.append((t, i))
        except Exception as e:  # noqa: BLE001 - reported by the assertion below
            failures.append(repr(e))

    run_in_threads(worker, 6)
    assert failures == []
    assert _calls(server) == 60
    assert all(name.startswith("tf-bulk-conn") for name in service.threads)


def test_parameter_server_training_pulls_over_the_side_channel():
    c = LocalCluster({"ps": 1, "worker": 1})
    try:
        n = 200_000  # 800 KB of parameters, as in the benchmarks
        with tf.device("/job:ps/task:0"):
            w = tf.Variable(np.zeros(n, np.float32), name="w")
        with tf.device("/job:worker/task:0"):
            loss = tf.reduce_sum(tf.square(w - 1.0))
            train = tf.train.GradientDescentOptimizer(0.25).minimize(loss)
        ps, worker = c.server("ps"), c.server("worker")
        with tf.Session(c.target("worker")) as sess:
            sess.run(w.initializer)
            for _ in range(6):
                sess.run(train)
            value = sess.run(w)
        # Each step halves the distance to 1.
        np.testing.assert_allclose(value, np.full(n, 1 - 0.5 ** 6, np.float32), rtol=1e-6)
        ps_stats = ps._rpc.bulk_listener.stats
        worker_stats = worker._rpc.bulk_listener.stats
        # The first step's pulls may go over gRPC while the clients ask about the
        # side channel; the later ones do not.
        assert ps_stats["calls"] >= 4 and ps_stats["call_bytes"] >= 4 * 4 * n
        assert worker_stats["calls"] >= 4  # the ps pulls the gradients from the worker
        assert ps_stats["call_errors"] == 0 and worker_stats["call_errors"] == 0
        # tensorfleet status still counts what went over the side channel.
        status, _ = rpc.RpcClient(ps.address, "tensorfleet.Task").call("GetStatus", {})
        assert status["bytes_out"] >= 6 * 4 * n
        assert status["bytes_sent_to"]["/job:worker/task:0"] >= 6 * 4 * n
    finally:
        c.stop()


