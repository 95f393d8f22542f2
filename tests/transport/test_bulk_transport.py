"""Tests of the bulk side channel (tensorfleet.transport.bulk) and its use by rpc."""

from __future__ import annotations

import logging
import os
import socket
import threading
import time

import numpy as np
import pytest

from tensorfleet import errors
from tests.transport.bulk_fakes import FakeListener, read_until_closed, run_in_threads
from tensorfleet.transport import auth, bulk, bulk_client, rpc

SERVICE = "test.Bulk"
TOKEN = "bulk-test-cluster-token"
MIB = 1 << 20


pytestmark = pytest.mark.usefixtures("clean_transport_env")


def _data(seed: int, nbytes: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 1 << 31, nbytes // 4, dtype=np.int32)


class _Handlers:
    """``Data`` returns ``_data(seed, n)``; ``Var`` returns a live array it may change later."""

    def __init__(self) -> None:
        self.var = np.arange(MIB, dtype=np.float32)  # 4 MiB

    def table(self):
        return {
            "Data": lambda h, t: ({"seed": h["seed"]}, [_data(h["seed"], h["n"])]),
            "Var": lambda h, t: ({}, [self.var]),
        }


@pytest.fixture
def serve():
    servers = []

    def start(handlers=None, **kwargs):
        server = rpc.RpcServer("127.0.0.1:0", SERVICE, handlers or _Handlers().table(),
                               **kwargs).start()
        servers.append(server)
        return server

    try:
        yield start
    finally:
        for server in servers:
            server.stop(0)


def _client(server, channels, pool, **kwargs):
    return rpc.RpcClient(server.address, SERVICE, channels=channels, bulk_pool=pool, **kwargs)


def _served(server) -> int:
    return server.bulk_listener.stats["served"]


# ------------------------------------------------------------------ the fast path


def test_big_replies_arrive_intact_over_the_side_channel(serve, channels, pool):
    server = serve(token=TOKEN)
    client = _client(server, channels, pool, token=TOKEN)
    for k, n in enumerate((3 * MIB, rpc.BULK_THRESHOLD, 64 << 20)):
        header, (out,) = client.call("Data", {"seed": k, "n": n}, timeout=60)
        assert header == {"seed": k}
        assert np.array_equal(out, _data(k, n))
        assert _served(server) == k + 1
    assert server.bulk_listener.stats["bytes_served"] > (64 << 20) + 3 * MIB
    out[0] = 7  # a reply received over the side channel is a writable buffer
    # A reply just under the threshold stays a unary gRPC reply.
    n = rpc.BULK_THRESHOLD - 1024
    header, (out,) = client.call("Data", {"seed": 9, "n": n})
    assert np.array_equal(out, _data(9, n)) and _served(server) == 3
    assert server.bulk_listener.stats["accepted"] == 1  # one pooled connection served all


@pytest.mark.parametrize("use_bulk", [True, False])
def test_reply_has_the_values_of_when_the_handler_returned(serve, channels, pool,
                                                           monkeypatch, use_bulk):
    handlers = _Handlers()
    expected = handlers.var.copy()
    server = serve(handlers.table())
    if not use_bulk:
        monkeypatch.setenv(bulk.BULK_ENV, "0")
    client = _client(server, channels, pool)

    # Change the live array in place after the handler returned, before the fetch.
    def mutate_then(fn):
        def wrapped(*args, **kwargs):
            handlers.var[:] = -1.0
            return fn(*args, **kwargs)
        return wrapped

    monkeypatch.setattr(pool, "fetch", mutate_then(pool.fetch))
    client._fetch = mutate_then(client._fetch)
    _, (out,) = client.call("Var")
    assert (handlers.var == -1.0).all()
    assert np.array_equal(out, expected)
    assert _served(server) == (1 if use_bulk else 0)


def test_concurrent_big_fetches_from_several_threads(serve, channels, pool):
    server = serve()
    client = _client(server, channels, pool)
    failures = []

    def worker(t: int) -> None:
        try:
            for i in range(4):
                seed, n = 100 * t + i, (2 * MIB) + 4096 * (t + i)
                header, (out,) = client.call("Data", {"seed": seed, "n": n}, timeout=30)
                if header != {"seed": seed} or not np.array_equal(out, _data(seed, n)):
                    failures.append((t, i))
        except Exception as e:  # noqa: BLE001 - reported by the assertion below
            failures.append(repr(e))

    run_in_threads(worker, 6)
    assert failures == []
    assert _served(server) == 24
    assert server.bulk_listener.stats["accepted"] >= 2  # threads used connections in parallel


# ------------------------------------------------------------------ authentication


def _park(server, payload: bytes) -> bytes:
    buf = np.frombuffer(payload, dtype=np.uint8).copy()
    return server._pending.put(buf)


def test_wrong_token_is_refused_and_nothing_leaks(serve, channels, pool, caplog):
    server = serve(token=TOKEN)
    listener = server.bulk_listener
    secret = os.urandom(300_000)
    key = _park(server, secret)
    port = listener.port
    with caplog.at_level(logging.WARNING, logger="tensorfleet.transport.bulk"):
        # The listener proves itself first, so a client with another token hangs up.
        with pytest.raises(bulk.BulkUnavailable, match="did not prove"):
            bulk_client.connect("127.0.0.1", port, "wrong-token", time.monotonic() + 5)
        # By hand: a wrong proof, then a request for the parked key anyway.
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(bulk._HELLO.pack(bulk.MAGIC, bulk.BULK_VERSION, 0, os.urandom(16)))
            sock.sendall(bulk._PROOF.pack(bulk.MAGIC, bulk.BULK_VERSION, 0, b"\0" * 32))
            sock.sendall(bulk._REQUEST.pack(bulk.MAGIC, bulk.BULK_VERSION, 0, key))
            got = read_until_closed(sock)
    assert len(got) == bulk._CHALLENGE.size + bulk._VERDICT.size
    assert got[-bulk._VERDICT.size:] == bulk._VERDICT.pack(bulk.MAGIC, bulk.BULK_VERSION,
                                                           bulk.VERDICT_REFUSED)
    deadline = time.monotonic() + 5
    while listener.stats["refused"] < 2 and time.monotonic() < deadline:
        time.sleep(0.01)  # the first refusal is counted when the server sees the hang-up
    assert listener.stats["refused"] == 2 and listener.stats["served"] == 0
    messages = [r.getMessage() for r in caplog.records]
    assert any("invalid cluster token" in m for m in messages)
    assert not any(TOKEN in m or "wrong-token" in m for m in messages)
    # The parked response is still there for the rightful client.
    out = pool.fetch(server.address, port, TOKEN, key, len(secret), time.monotonic() + 5)
    assert out.tobytes() == secret


def test_a_client_with_a_token_refuses_a_listener_without_one(serve):
    server = serve()  # loopback, no token: the handshake runs with an empty key
    with pytest.raises(bulk.BulkUnavailable, match="did not prove"):
        bulk_client.connect("127.0.0.1", server.bulk_listener.port, TOKEN, time.monotonic() + 5)
    bulk_client.connect("127.0.0.1", server.bulk_listener.port, None, time.monotonic() + 5).close()


# ------------------------------------------------------------------ hostile input


@pytest.mark.parametrize("request_bytes", [
    b"GARBAGE!" * 3,
    bulk._REQUEST.pack(bulk.MAGIC, bulk.BULK_VERSION + 1, 0, b"k" * 16),
    bulk._REQUEST.pack(bulk.MAGIC, bulk.BULK_VERSION, 4, b"k" * 16),
    b"\xff" * 4096,
])
def test_malformed_request_closes_only_that_connection(serve, channels, pool, request_bytes):
    server = serve(token=TOKEN)
    listener = server.bulk_listener
    sock = bulk_client.connect("127.0.0.1", listener.port, TOKEN, time.monotonic() + 5)
    try:
        sock.settimeout(5)
        try:
            sock.sendall(request_bytes)
        except ConnectionError:
            pass  # the server may close before it has read everything
        assert read_until_closed(sock) == b""
    finally:
        sock.close()
    assert listener.stats["bad_requests"] == 1
    client = _client(server, channels, pool, token=TOKEN)
    _, (out,) = client.call("Data", {"seed": 1, "n": 2 * MIB})
    assert np.array_equal(out, _data(1, 2 * MIB)) and listener.stats["served"] == 1


def test_garbage_instead_of_a_handshake_is_refused(serve):
    server = serve()
    with socket.create_connection(("127.0.0.1", server.bulk_listener.port), timeout=5) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert read_until_closed(sock) == b""
    assert server.bulk_listener.stats["refused"] == 1


def test_unknown_key_is_aborted_and_the_connection_stays_usable(serve, pool):
    server = serve()
    port = server.bulk_listener.port
    with pytest.raises(errors.AbortedError, match="not found"):
        pool.fetch(server.address, port, None, os.urandom(16), 5 * MIB, time.monotonic() + 5)
    payload = os.urandom(2 * MIB)
    key = _park(server, payload)
    assert pool.fetch(server.address, port, None, key, len(payload),
                      time.monotonic() + 5).tobytes() == payload
    with pytest.raises(errors.AbortedError):  # a response is served once
        pool.fetch(server.address, port, None, key, len(payload), time.monotonic() + 5)
    stats = server.bulk_listener.stats
    assert stats["accepted"] == 1 and stats["not_found"] == 2 and stats["served"] == 1


@pytest.mark.parametrize("declared", [1 << 40, 3 * MIB - 1, 3 * MIB + 1])
def test_a_reply_size_other_than_announced_is_refused_before_allocation(pool, declared):
    fake = FakeListener(TOKEN, request_bytes=bulk._REQUEST.size,
                        reply=bulk._REPLY.pack(bulk.MAGIC, bulk.BULK_VERSION, 0, declared))
    try:
        with pytest.raises(errors.InvalidArgumentError, match="announced"):
            pool.fetch(f"127.0.0.1:{fake.port}", fake.port, TOKEN, b"k" * 16, 3 * MIB,
                       time.monotonic() + 5)
    finally:
        fake.close()


def test_a_stalled_reply_ends_at_the_deadline(pool):
    head = bulk._REPLY.pack(bulk.MAGIC, bulk.BULK_VERSION, 0, 3 * MIB)
    # Then nothing more.
    fake = FakeListener(TOKEN, request_bytes=bulk._REQUEST.size, reply=head + b"\0" * 1000)
    try:
        t0 = time.monotonic()
        with pytest.raises(TimeoutError):
            pool.fetch(f"127.0.0.1:{fake.port}", fake.port, TOKEN, b"k" * 16, 3 * MIB,
                       t0 + 0.5)
        # The deadline is 0.5 s; without it the read would block for good.
        assert time.monotonic() - t0 < 10.0
    finally:
        fake.close()


def test_reply_over_the_client_limit_is_refused_before_the_fetch(serve, channels, pool):
    server = serve()
    small = _client(server, channels, pool, max_message_bytes=MIB)
    with pytest.raises(errors.ResourceExhaustedError, match="this client"):
        small.call("Data", {"seed": 1, "n": 3 * MIB})
    assert server.bulk_listener.stats["served"] == 0
    assert server.bulk_listener.stats["accepted"] == 0
    # A unary reply (under the bulk threshold) over the limit gets the same error.
    tiny = _client(server, channels, pool, max_message_bytes=64 << 10)
    with pytest.raises(errors.ResourceExhaustedError, match="this client"):
        tiny.call("Data", {"seed": 1, "n": 128 << 10})


@pytest.mark.parametrize("handle", [
    rpc._BULK_HANDLE.pack(rpc.HANDLE_MAGIC, rpc.PROTOCOL_VERSION, 0, 5, b"k" * 16, 80, 0),
    rpc._BULK_HANDLE.pack(rpc.HANDLE_MAGIC, rpc.PROTOCOL_VERSION, 1, 5, b"k" * 16, 0, 0),
    rpc._BULK_HANDLE.pack(rpc.HANDLE_MAGIC, rpc.PROTOCOL_VERSION, 1, 5, b"k" * 16, 80, 1),
    rpc._BULK_HANDLE.pack(rpc.HANDLE_MAGIC, rpc.PROTOCOL_VERSION, 3, 5, b"k" * 16, 80, 0),
    rpc._HANDLE.pack(rpc.HANDLE_MAGIC, rpc.PROTOCOL_VERSION, 1, 5, b"k" * 16),
    rpc._HANDLE.pack(rpc.HANDLE_MAGIC, rpc.PROTOCOL_VERSION, 0, 0, b"k" * 16),
    rpc._HANDLE.pack(rpc.HANDLE_MAGIC, rpc.PROTOCOL_VERSION, 0, 5, b"k" * 16) + b"\0",
])
def test_malformed_handles_are_refused(channels, pool, handle):
    client = rpc.RpcClient("127.0.0.1:1", SERVICE, channels=channels, bulk_pool=pool)
    with pytest.raises(errors.InvalidArgumentError, match="malformed response handle"):
        client._read_reply(handle, time.monotonic() + 5)


# ------------------------------------------------------------------ fallback to gRPC


def test_unreachable_side_channel_falls_back_to_fetch_and_logs_once(serve, channels, pool,
                                                                    caplog):
    server = serve()
    server.bulk_listener.stop()  # as a firewall would: the port advertised, not reachable
    client = _client(server, channels, pool)
    with caplog.at_level(logging.INFO, logger="tensorfleet.transport.bulk"):
        for seed in range(3):
            _, (out,) = client.call("Data", {"seed": seed, "n": 2 * MIB})
            assert np.array_equal(out, _data(seed, 2 * MIB))
    notes = [r for r in caplog.records if "unusable" in r.getMessage()]
    assert len(notes) == 1 and notes[0].levelno == logging.INFO
    assert server.address in notes[0].getMessage()
    assert list(pool.unreachable()) == [(server.address, server.bulk_listener.port)]


def test_an_unreachable_side_channel_is_tried_again_after_a_while(serve, channels):
    # A parameter server that was frozen when a client first connected must get
    # its fast path back once it answers again.
    pool = bulk_client.BulkPool(retry_after=0.3)
    try:
        server = serve()
        client = _client(server, channels, pool)
        port = server.bulk_listener.port
        pool._mark_unreachable(server.address, port, "the handshake timed out")
        _, (out,) = client.call("Data", {"seed": 1, "n": 2 * MIB})
        assert np.array_equal(out, _data(1, 2 * MIB)) and _served(server) == 0  # _Fetch
        time.sleep(0.4)
        _, (out,) = client.call("Data", {"seed": 2, "n": 2 * MIB})
        assert np.array_equal(out, _data(2, 2 * MIB)) and _served(server) == 1
        assert pool.unreachable() == {}
    finally:
        pool.close_all()


def test_bulk_env_zero_disables_the_side_channel_on_both_sides(serve, channels, pool,
                                                               monkeypatch):
    monkeypatch.setenv(bulk.BULK_ENV, "0")
    off = serve()
    assert off.bulk_listener is None
    _, (out,) = _client(off, channels, pool).call("Data", {"seed": 1, "n": 3 * MIB})
    assert np.array_equal(out, _data(1, 3 * MIB))
    # A server with a side channel, a client with it turned off: gRPC only.
    monkeypatch.delenv(bulk.BULK_ENV)
    on = serve()
    monkeypatch.setenv(bulk.BULK_ENV, "0")
    client = _client(on, channels, pool)
    _, (out,) = client.call("Data", {"seed": 2, "n": 3 * MIB})
    assert np.array_equal(out, _data(2, 3 * MIB))
    assert on.bulk_listener.stats["accepted"] == 0


def test_tls_big_replies_come_over_the_side_channel_in_tls(serve, channels, pool, tls_cert):
    cert, key = tls_cert
    server = serve(token=TOKEN, credentials=auth.server_credentials(cert, key))
    assert server.bulk_listener is not None
    client = rpc.RpcClient(f"localhost:{server.port}", SERVICE, token=TOKEN, channels=channels,
                           bulk_pool=pool,
                           credentials=auth.channel_credentials(ca_file=cert))
    _, (out,) = client.call("Data", {"seed": 4, "n": 3 * MIB})
    assert np.array_equal(out, _data(4, 3 * MIB))
    assert server.bulk_listener.stats["served"] == 1


# ------------------------------------------------------------------ lifecycle


def _bulk_threads(port: int):
    return [t for t in threading.enumerate() if t.name.endswith(f"-{port}")
            and t.name.startswith("tf-bulk-")]


def test_server_stop_ends_the_bulk_threads(channels, pool):
    before = set(threading.enumerate())
    server = rpc.RpcServer("127.0.0.1:0", SERVICE, _Handlers().table()).start()
    port = server.bulk_listener.port
    client = _client(server, channels, pool)
    threads = [threading.Thread(target=client.call, args=("Data", {"seed": s, "n": 2 * MIB}))
               for s in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(_bulk_threads(port)) >= 2  # the acceptor and at least one connection
    server.stop(0)
    assert _bulk_threads(port) == []  # stop() joined them
    # gRPC's handler pool is shut down without waiting; its threads end soon after.
    deadline = time.monotonic() + 5
    while set(threading.enumerate()) - before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert [t.name for t in set(threading.enumerate()) - before] == []


def test_an_idle_connection_closed_by_the_server_is_replaced(pool):
    parked = {}
    listener = bulk.BulkListener("127.0.0.1", None, lambda k: parked.pop(k, None),
                                 idle_timeout=0.2).start()
    try:
        address = f"127.0.0.1:{listener.port}"
        for i in range(2):
            parked[b"%016d" % i] = np.full(MIB, i, dtype=np.uint8)
            out = pool.fetch(address, listener.port, None, b"%016d" % i, MIB,
                             time.monotonic() + 5)
            assert (out == i).all()
            time.sleep(0.7)  # past the idle timeout: the server closes the pooled one
        assert listener.stats["accepted"] == 2 and listener.stats["served"] == 2
    finally:
        listener.stop()
    assert _bulk_threads(listener.port) == []
