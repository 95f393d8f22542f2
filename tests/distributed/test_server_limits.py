"""What a task's server holds for peers that never authenticate, or that ask too much:
idle connections, refused calls, waits with huge timeouts, bogus stream sizes."""

from __future__ import annotations

import json
import logging
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import grpc
import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet import errors
from tensorfleet.distributed import protocol
from tensorfleet.distributed.rendezvous import StepRendezvous
from tensorfleet.framework.serialization import graph_to_plain
from tensorfleet.testing.cluster import LocalCluster, free_ports
from tensorfleet.transport import ServiceHandlers, buffers, bulk, limits, rpc, wire

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "server-limits-test-token-0123456789"
IDLE_CONNECTIONS = 2000


def _ensure_fds(n: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < n:
        if hard != resource.RLIM_INFINITY and hard < n:
            pytest.skip(f"needs {n} descriptors, the hard limit is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (n, hard))


def _idle_sockets(port: int, n: int):
    """``n`` connections to ``port`` that never send a byte."""
    socks = []
    try:
        for _ in range(n):
            socks.append(socket.create_connection(("127.0.0.1", port), timeout=10))
    except BaseException:
        for s in socks:
            s.close()
        raise
    return socks


def _server_with_fd_limit(port: int, soft: int, hard: int) -> subprocess.Popen:
    """``tensorfleet server`` for a one-task cluster, started with RLIMIT_NOFILE (soft, hard)."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1")
    env.pop("TENSORFLEET_TOKEN", None)
    cluster = json.dumps({"local": [f"127.0.0.1:{port}"]})
    return subprocess.Popen(
        [sys.executable, "-m", "tensorfleet.cli.main", "server", "--cluster", cluster,
         "--job_name", "local", "--task_index", "0"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, preexec_fn=limit)


def _wait_listening(port: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listens on {port}")


def _step_with_retries(target: str, budget: float) -> float:
    """Runs one real step on ``target``, retrying while the server cannot be
    reached (as MonitoredSession does); the seconds it took."""
    start = time.monotonic()
    while True:
        tf.reset_default_graph()
        try:
            with tf.Session(target) as sess:
                assert sess.run(tf.constant(2.0) * 21.0) == 42.0
            return time.monotonic() - start
        except (errors.UnavailableError, errors.DeadlineExceededError):
            if time.monotonic() - start > budget:
                raise
            time.sleep(0.2)


# ---------------------------------------------------------------- idle connections


@pytest.mark.parametrize("hard", [1024, 8192], ids=["hard-limit-1024", "hard-limit-8192"])
def test_thousands_of_idle_connections_do_not_stop_a_real_step(hard):
    """A server started with 1024 descriptors: 2000 silent connections used to
    exhaust them for gRPC's 120 s handshake timeout. Now the server raises its
    descriptor limit when it can, caps its connections and drops silent ones
    within ``HANDSHAKE_TIMEOUT_SECS``."""
    _ensure_fds(IDLE_CONNECTIONS * 2 + 512)
    own_hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if own_hard != resource.RLIM_INFINITY and own_hard < hard:
        pytest.skip(f"this process's hard descriptor limit is {own_hard}")
    port = free_ports(1)[0]
    proc = _server_with_fd_limit(port, 1024, hard)
    socks = []
    try:
        _wait_listening(port)
        socks = _idle_sockets(port, IDLE_CONNECTIONS)
        time.sleep(1.0)  # the server has accepted what it will accept
        took = _step_with_retries(f"grpc://127.0.0.1:{port}", budget=30.0)
        print(f"real step with {IDLE_CONNECTIONS} idle connections open: {took:.2f} s")
        assert took < 30.0
        assert proc.poll() is None
    finally:
        for s in socks:
            s.close()
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


def test_idle_connections_to_the_side_channel_do_not_keep_a_real_client_out(
        clean_transport_env, channels, pool):
    _ensure_fds(IDLE_CONNECTIONS * 2 + 512)
    handlers = ServiceHandlers({"Echo": lambda h, t: (h, t)}, bulk_methods={"Echo"})
    server = rpc.RpcServer("127.0.0.1:0", "test.Limits", handlers, token=TOKEN).start()
    socks = []
    try:
        listener = server.bulk_listener
        socks = _idle_sockets(listener.port, IDLE_CONNECTIONS)
        time.sleep(1.0)
        client = rpc.RpcClient(server.address, "test.Limits", token=TOKEN, channels=channels,
                               bulk_pool=pool)
        assert client.side_channel(timeout=10) == listener.port
        start = time.monotonic()
        header, (out,) = client.call("Echo", {"n": 1}, [np.arange(4)], timeout=30)
        took = time.monotonic() - start
        print(f"side channel call with {IDLE_CONNECTIONS} idle connections open: {took:.3f} s")
        assert header == {"n": 1} and out.tolist() == [0, 1, 2, 3]
        # It went over the side channel, not the gRPC fallback.
        assert listener.stats["calls"] == 1
        # Silent connections hold a bounded number of threads.
        threads = sum(t.name.startswith("tf-bulk-conn") for t in threading.enumerate())
        assert threads <= limits.MAX_BULK_HANDSHAKES + 8
    finally:
        for s in socks:
            s.close()
        server.stop(0)


# ---------------------------------------------------------------- refusal logging


def test_a_thousand_refused_calls_write_a_few_log_lines(clean_transport_env, channels,
                                                        caplog):
    server = rpc.RpcServer("127.0.0.1:0", "test.Limits", {"Echo": lambda h, t: (h, t)},
                           token=TOKEN).start()
    try:
        client = rpc.RpcClient(server.address, "test.Limits", token="a-wrong-token-000000000",
                               channels=channels)
        with caplog.at_level(logging.WARNING, logger="tensorfleet.transport"):
            for _ in range(1000):
                with pytest.raises(errors.UnauthenticatedError):
                    client.call("Echo", {}, [], timeout=30)
        lines = [r for r in caplog.records if "cluster token" in r.getMessage()]
        print(f"log lines for 1000 refused calls: {len(lines)}")
        assert 1 <= len(lines) <= 3
        assert "rejected" in lines[0].getMessage() and "127.0.0.1" in lines[0].getMessage()
    finally:
        server.stop(0)


def test_refusal_log_summarises_with_the_count():
    records = []

    class _Capture(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    log = logging.getLogger("test.refusals")
    log.addHandler(_Capture())
    try:
        refusals = limits.RefusalLog(log, interval=0.5)
        assert refusals.refused("a", "rejected x from a")
        for _ in range(99):
            assert not refusals.refused("b", "rejected x from b")
        time.sleep(0.6)
        assert refusals.refused("c", "rejected x from c")
    finally:
        log.handlers.clear()
    assert records[0] == "rejected x from a"
    assert records[1].startswith("rejected x from c (and 99 more refused from 1 peer(s)")
    assert refusals.total == 101


def test_refused_side_channel_handshakes_are_logged_rate_limited(clean_transport_env, caplog):
    server = rpc.RpcServer("127.0.0.1:0", "test.Limits", {"Echo": lambda h, t: (h, t)},
                           token=TOKEN).start()
    try:
        port = server.bulk_listener.port
        with caplog.at_level(logging.WARNING, logger="tensorfleet.transport.bulk"):
            for _ in range(200):
                with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                    # As long as a hello: the listener reads it whole, then refuses it.
                    s.sendall(b"GET / HTTP/1.1\r\nHost: tensorfleet\r\n\r\n")
                    s.recv(64)
        lines = [r for r in caplog.records if "bulk" in r.getMessage()]
        assert 1 <= len(lines) <= 3
    finally:
        server.stop(0)


# ---------------------------------------------------------------- bounded waits


@pytest.fixture
def token_cluster(monkeypatch):
    monkeypatch.setenv("TENSORFLEET_TOKEN", TOKEN)
    c = LocalCluster({"ps": 1, "worker": 1}, token=TOKEN)
    yield c
    c.stop()


def test_waits_with_huge_timeouts_do_not_pin_the_server(token_cluster, monkeypatch):
    """100 authenticated RecvTensor calls asking to wait 1e9 s, over gRPC's thread pool:
    status calls and steps still answer, and each wait ends within the server's maximum."""
    monkeypatch.setenv(bulk.BULK_ENV, "0")  # the calls use gRPC's threads
    ps = token_cluster.server("ps", 0)
    max_wait = 5.0
    ps.worker.max_wait = max_wait
    client = rpc.RpcClient(ps.address, protocol.SERVICE, token=TOKEN)
    results = {}

    def recv(i: int) -> None:
        start = time.monotonic()
        try:
            client.call("RecvTensor", {"step_id": 1, "key": f"never;{i}", "timeout": 1e9},
                        [], timeout=120)
            results[i] = ("returned", time.monotonic() - start)
        except errors.OpError as e:
            results[i] = (type(e).__name__, time.monotonic() - start)

    threads = [threading.Thread(target=recv, args=(i,), daemon=True) for i in range(100)]
    for t in threads:
        t.start()
    time.sleep(1.0)
    start = time.monotonic()
    header, _ = client.call("GetStatus", {}, [], timeout=15)
    status_took = time.monotonic() - start
    assert header["task"] == "/job:ps/task:0"
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(3.0)
    with tf.Session(token_cluster.target("worker", 0)) as sess:
        sess.run(tf.global_variables_initializer(), options=tf.RunOptions(timeout_in_ms=20000))
        assert sess.run(v * 2, options=tf.RunOptions(timeout_in_ms=20000)) == 6.0
    for t in threads:
        t.join(max_wait + 60)
    print(f"status call with 100 waits open: {status_took:.3f} s; slowest wait ended after "
          f"{max(s for _, s in results.values()):.1f} s")
    assert len(results) == 100
    assert {kind for kind, _ in results.values()} == {"DeadlineExceededError"}
    assert max(s for _, s in results.values()) < max_wait + 30


def test_a_receiver_asks_again_when_a_server_limit_ends_its_wait(token_cluster):
    """A cross-task step whose tensor comes later than the server's per-call wait still
    gets it: the receiving task asks again until its own timeout."""
    ps = token_cluster.server("ps", 0)
    ps.worker.max_wait = 1.0
    step_id, key = 77, "/job:ps/task:0;x;/job:worker/task:0"
    ps_client = token_cluster.server("worker", 0)._worker_client("/job:ps/task:0")
    threading.Timer(3.0, lambda: ps.worker.rendezvous.send(step_id, key, np.float32(5))).start()
    local = token_cluster.server("worker", 0).worker.rendezvous
    start = time.monotonic()
    value = StepRendezvous(step_id, local, lambda task: ps_client, 30.0).recv(
        "/job:ps/task:0", key)
    assert value == 5.0 and 2.5 < time.monotonic() - start < 25


@pytest.mark.parametrize("timeout", [-1, float("nan"), "10"])
def test_a_bad_wait_timeout_is_refused(token_cluster, timeout):
    ps = token_cluster.server("ps", 0)
    with pytest.raises(errors.InvalidArgumentError, match="timeout"):
        ps.worker.recv_tensors(1, ["k"], timeout)


def test_a_step_ends_on_the_server_at_its_callers_deadline(token_cluster):
    """RunStep called with a 2 s deadline, blocked in a dequeue on the server: the
    server cancels the step when its caller gives up, instead of holding it forever."""
    ps = token_cluster.server("ps", 0)
    graph = tf.Graph()
    with graph.as_default(), tf.device("/job:ps/task:0"):
        q = tf.FIFOQueue(1, tf.float32, shared_name="never_filled")
        out = q.dequeue()
    client = rpc.RpcClient(ps.address, protocol.SERVICE, token=TOKEN)
    h, _ = client.call("CreateSession", {"graph": graph_to_plain(graph), "config": {}}, [],
                       timeout=30)
    with pytest.raises(errors.DeadlineExceededError):
        client.call("RunStep", {"session": h["session"], "feeds": [], "fetches": [out.name],
                                "targets": []}, [], timeout=2.0)
    deadline = time.monotonic() + 30
    while ps.worker._active and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not ps.worker._active, "the step still runs on the server"


# ---------------------------------------------------------------- header numbers and sizes


@pytest.mark.parametrize("number", ["1e400", "-1e400", "NaN", "Infinity", "-Infinity"])
def test_non_finite_header_numbers_are_refused_over_the_wire(token_cluster, number):
    ps = token_cluster.server("ps", 0)
    frame = (wire.encode({"step_id": 1, "key": "k", "timeout": 123456789.5}))
    frame = bytes(frame).replace(b"123456789.5", number.encode().ljust(11))
    channel = grpc.insecure_channel(ps.address)
    try:
        call = channel.unary_unary(f"/{protocol.SERVICE}/RecvTensor")
        with pytest.raises(grpc.RpcError) as info:
            call(frame, metadata=(("x-tensorfleet-token", TOKEN),), timeout=20)
    finally:
        channel.close()
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "finite" in info.value.details() or "constant" in info.value.details()


def test_a_stream_declaring_a_huge_size_is_not_reserved_up_front(clean_transport_env,
                                                                 monkeypatch):
    asked = []
    real_take = buffers.take

    def take(n):
        asked.append(int(n))
        return real_take(n)

    monkeypatch.setattr(buffers, "take", take)
    server = rpc.RpcServer("127.0.0.1:0", "test.Limits", {"Echo": lambda h, t: (h, t)}).start()
    channel = grpc.insecure_channel(server.address)
    try:
        call = channel.stream_unary("/test.Limits/Echo" + rpc.STREAM_SUFFIX)
        chunk = b"\0" * (64 << 10)
        with pytest.raises(grpc.RpcError) as info:
            call(iter([wire.stream_header((2 << 30) - 1), chunk]), timeout=30)
        assert info.value.code() in (grpc.StatusCode.DATA_LOSS,
                                     grpc.StatusCode.INVALID_ARGUMENT)
    finally:
        channel.close()
        server.stop(0)
    # What arrived was one 64 KiB chunk: nothing near 2 GiB was reserved for it.
    assert max(asked, default=0) <= wire.RESERVE_RATIO * len(chunk)
