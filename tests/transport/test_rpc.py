"""Tests of tensorfleet.transport.rpc and auth with in-process servers."""

from __future__ import annotations

import logging
import shutil
import socket
import struct
import threading
import time

import grpc
import numpy as np
import pytest

from tensorfleet import errors
from tensorfleet.transport import auth, rpc, wire

SERVICE = "test.Echo"
TOKEN = "s3cret-cluster-token"


def _strings(values):
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr


@pytest.fixture(autouse=True)
def _no_env_token(monkeypatch):
    monkeypatch.delenv(auth.TOKEN_ENV, raising=False)


@pytest.fixture
def release():
    """Set at teardown so handlers that block return before their server stops."""
    event = threading.Event()
    try:
        yield event
    finally:
        event.set()


@pytest.fixture
def serve(release):
    servers = []

    def start(handlers=None, **kwargs):
        server = rpc.RpcServer("localhost:0", SERVICE, handlers or _handlers(release),
                               **kwargs).start()
        servers.append(server)
        return server

    try:
        yield start
    finally:
        release.set()
        for server in servers:
            server.stop(0)


def _handlers(release):
    def echo(header, tensors):
        return header, tensors

    def not_found(header, tensors):
        raise errors.NotFoundError("model/weights", None, "no variable named weights")

    def crash(header, tensors):
        raise KeyError("boom")

    def slow(header, tensors):
        release.wait(10)
        return {}, []

    def size(header, tensors):
        return {"bytes": int(sum(t.nbytes for t in tensors))}, []

    def zeros(header, tensors):
        return {}, [np.zeros(header["n"], dtype=np.uint8)]

    def bad_return(header, tensors):
        return [1, 2, 3]

    return {"Echo": echo, "NotFound": not_found, "Crash": crash, "Slow": slow, "Size": size,
            "BadReturn": bad_return, "Zeros": zeros}


def _client(server, channels, **kwargs):
    return rpc.RpcClient(server.address, SERVICE, channels=channels, **kwargs)


# ------------------------------------------------------------------ calls


def test_echo_round_trip(serve, channels):
    server = serve()
    client = _client(server, channels)
    tensors = [np.arange(12, dtype=np.float32).reshape(3, 4), np.array(7, dtype=np.int64),
               _strings([b"a", b"bc"]), np.array([True, False])]
    header, out = client.call("Echo", {"step": 3, "names": ["x", "y"]}, tensors)
    assert header == {"step": 3, "names": ["x", "y"]}
    for a, b in zip(tensors, out, strict=True):
        assert a.shape == b.shape and a.dtype == b.dtype
        assert a.tolist() == b.tolist()
    assert client.call("Echo") == ({}, [])


def test_64mb_tensor_streamed_both_ways(serve, channels):
    server = serve()
    client = _client(server, channels)
    big = np.random.default_rng(0).random(16 << 20, dtype=np.float32)
    header, (out,) = client.call("Echo", {"big": True}, [big], timeout=120)
    assert header == {"big": True}
    assert out.dtype == np.float32 and out.shape == big.shape
    assert np.array_equal(out, big)
    out[0] = 1.0  # reassembled responses are writable views


def test_call_async_gives_what_call_gives(serve, channels):
    server = serve(task="/job:ps/task:0")
    client = _client(server, channels)
    small = np.arange(10, dtype=np.float32)
    assert client.call_async("Echo", {"k": 1}, [small]).result(10)[1][0].tolist() == \
        small.tolist()
    # A reply big enough to be parked is fetched off gRPC's thread, still intact.
    big = np.random.default_rng(1).random(1 << 20, dtype=np.float32)
    header, (out,) = client.call_async("Echo", {"big": 1}, [big], timeout=60).result(60)
    assert header == {"big": 1} and np.array_equal(out, big)
    with pytest.raises(errors.NotFoundError) as info:
        client.call_async("NotFound").result(10)
    assert info.value.task == "/job:ps/task:0"


def test_handler_op_error_is_reraised_with_message_op_and_task(serve, channels):
    server = serve(task="/job:ps/task:0")
    with pytest.raises(errors.NotFoundError) as info:
        _client(server, channels).call("NotFound")
    err = info.value
    assert err.message == "no variable named weights"
    assert err.node_def == "model/weights"
    assert err.task == "/job:ps/task:0"
    assert "[[task: /job:ps/task:0]]" in str(err)


def test_other_exceptions_become_internal(serve, channels, caplog):
    server = serve()
    client = _client(server, channels)
    with caplog.at_level(logging.ERROR, logger="tensorfleet.transport.rpc"):
        with pytest.raises(errors.InternalError, match="KeyError: 'boom'"):
            client.call("Crash")
    with pytest.raises(errors.InternalError, match="BadReturn returned list"):
        client.call("BadReturn")
    assert client.call("Echo", {"ok": 1})[0] == {"ok": 1}


def test_unknown_method_is_unimplemented(serve, channels):
    server = serve()
    with pytest.raises(errors.UnimplementedError):
        _client(server, channels).call("NoSuchMethod")


def test_blocking_handlers_do_not_block_other_calls(serve, channels, release):
    server = serve()
    client = _client(server, channels)
    pool = [threading.Thread(target=lambda: client.call("Slow", timeout=20)) for _ in range(8)]
    for t in pool:
        t.start()
    try:
        time.sleep(0.2)
        assert client.call("Echo", {"alive": 1}, timeout=5)[0] == {"alive": 1}
    finally:
        release.set()
        for t in pool:
            t.join(20)


def test_two_services_on_one_port(release, channels):
    server = rpc.RpcServer("localhost:0", SERVICE, _handlers(release))
    server.add_service("test.Other", {"Ping": lambda h, t: ({"pong": True}, [])})
    with server:
        other = rpc.RpcClient(server.address, "test.Other", channels=channels)
        assert other.call("Ping")[0] == {"pong": True}
        assert _client(server, channels).call("Echo", {"a": 1})[0] == {"a": 1}


# ------------------------------------------------------------------ deadlines, reachability


def test_deadline_exceeded_names_method_and_address(serve, channels):
    server = serve()
    client = _client(server, channels)
    with pytest.raises(errors.DeadlineExceededError) as info:
        client.call("Slow", timeout=0.2)
    assert "Slow" in str(info.value) and server.address in str(info.value)


@pytest.mark.parametrize("timeout", [0, -1, float("inf"), float("nan"), "5"])
def test_a_deadline_is_always_finite_and_positive(serve, channels, timeout):
    client = _client(serve(), channels)
    with pytest.raises(errors.InvalidArgumentError, match="deadline"):
        client.call("Echo", timeout=timeout)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_server_is_unavailable(channels):
    address = f"127.0.0.1:{_free_port()}"
    client = rpc.RpcClient(address, SERVICE, channels=channels)
    with pytest.raises(errors.UnavailableError, match=address):
        client.call("Echo", timeout=5)
    with pytest.raises(errors.UnavailableError, match=address):
        client.wait_ready(0.2)


def _expect_in_use(address: str) -> None:
    server = rpc.RpcServer(address, SERVICE, {})
    try:
        with pytest.raises(errors.UnavailableError, match=f"address {address} is already in use"):
            server.start()
    finally:
        server.stop(0)


def test_port_already_in_use(serve):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        _expect_in_use(f"127.0.0.1:{s.getsockname()[1]}")
    _expect_in_use(f"localhost:{serve().port}")


# ------------------------------------------------------------------ authentication


def test_token_required_and_checked(serve, channels, caplog):
    server = serve(token=TOKEN)
    good = _client(server, channels, token=TOKEN)
    assert good.call("Echo", {"a": 1})[0] == {"a": 1}
    with caplog.at_level(logging.WARNING, logger="tensorfleet.transport.auth"):
        with pytest.raises(errors.UnauthenticatedError):
            _client(server, channels, token="wrong-token").call("Echo", {"a": 1})
        with pytest.raises(errors.UnauthenticatedError):
            _client(server, channels).call("Echo")
        big = np.zeros(1 << 20, dtype=np.float32)  # streamed request, rejected unread
        with pytest.raises(errors.UnauthenticatedError):
            _client(server, channels).call("Echo", {}, [big])
    logs = [r.getMessage() for r in caplog.records]
    assert any("127.0.0.1" in m or "[::1]" in m for m in logs)
    assert not any(TOKEN in m or "wrong-token" in m for m in logs)
    assert good.call("Echo", {"b": 2})[0] == {"b": 2}


def test_token_from_environment(serve, channels, monkeypatch):
    monkeypatch.setenv(auth.TOKEN_ENV, TOKEN)
    server = serve()
    assert _client(server, channels).call("Echo", {"e": 1})[0] == {"e": 1}
    monkeypatch.delenv(auth.TOKEN_ENV)
    with pytest.raises(errors.UnauthenticatedError):
        _client(server, channels).call("Echo")


def test_public_address_requires_a_token():
    with pytest.raises(errors.FailedPreconditionError, match=auth.TOKEN_ENV):
        rpc.RpcServer("0.0.0.0:0", SERVICE, {})
    assert auth.require_token_for("0.0.0.0:0", TOKEN) == TOKEN
    assert auth.require_token_for("localhost:2222") is None
    assert auth.is_loopback("127.0.0.5:1") and auth.is_loopback("[::1]:1")
    assert not auth.is_loopback("[::]:1") and not auth.is_loopback("example.com:1")
    with pytest.raises(errors.InvalidArgumentError):
        auth.validate_token("has space")


# ------------------------------------------------------------------ hostile input


def _raw(server, method, channels):
    channel = channels.get(server.address)
    return channel.unary_unary(f"/{SERVICE}/{method}")


def test_malformed_frame_is_invalid_argument_and_server_survives(serve, channels):
    server = serve()
    for payload in (b"garbage", b"TFLT\x01\x00" + b"\xff" * 40, wire.encode({})[:-3] + b"zzz"):
        with pytest.raises(grpc.RpcError) as info:
            _raw(server, "Echo", channels)(payload, timeout=5)
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        remote = rpc._remote_error(info.value)
        assert remote is not None and "Malformed message" in remote[0]
    assert _client(server, channels).call("Echo", {"still": "up"})[0] == {"still": "up"}


def test_version_mismatch_is_failed_precondition_naming_both(serve, channels):
    server = serve()
    frame = bytearray(wire.encode({"a": 1}))
    struct.pack_into("<H", frame, 4, rpc.PROTOCOL_VERSION + 1)
    with pytest.raises(grpc.RpcError) as info:
        _raw(server, "Echo", channels)(bytes(frame), timeout=5)
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    details = info.value.details()
    assert f"version {rpc.PROTOCOL_VERSION + 1}" in details
    assert f"version {rpc.PROTOCOL_VERSION}" in details


def test_oversized_messages_are_rejected(serve, channels):
    server = serve(max_message_bytes=256 << 10)
    client = _client(server, channels)
    with pytest.raises(errors.ResourceExhaustedError, match="limit"):
        client.call("Size", {}, [np.zeros(512 << 10, dtype=np.uint8)])  # unary path
    with pytest.raises(errors.ResourceExhaustedError, match="limit"):
        client.call("Size", {}, [np.zeros(3 << 20, dtype=np.uint8)])  # streamed path
    assert client.call("Size", {}, [np.zeros(1000, np.uint8)])[0] == {"bytes": 1000}
    # A response over the client's own limit is refused before it is fetched.
    small_client = _client(server, channels, max_message_bytes=1 << 20)
    with pytest.raises(errors.ResourceExhaustedError, match="this client"):
        small_client.call("Zeros", {"n": 3 << 20})
    assert len(client.call("Zeros", {"n": 3 << 20})[1][0]) == 3 << 20


def test_unknown_response_handle_is_aborted(serve, channels):
    server = serve()
    fetch = channels.get(server.address).unary_stream(f"/{SERVICE}/{rpc.FETCH_METHOD}")
    with pytest.raises(grpc.RpcError) as info:
        list(fetch(b"\x00" * 16, timeout=5))
    assert info.value.code() == grpc.StatusCode.ABORTED


# ------------------------------------------------------------------ TLS


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_tls_with_token(serve, channels, tls_cert):
    cert, key = tls_cert
    server = serve(token=TOKEN, credentials=auth.server_credentials(cert, key))
    creds = auth.channel_credentials(ca_file=cert)
    client = rpc.RpcClient(f"localhost:{server.port}", SERVICE, token=TOKEN,
                           credentials=creds, channels=channels)
    assert client.call("Echo", {"tls": True})[0] == {"tls": True}
    plain = rpc.RpcClient(f"localhost:{server.port}", SERVICE, token=TOKEN, channels=channels)
    with pytest.raises(errors.UnavailableError):
        plain.call("Echo", timeout=5)
