"""The shared pieces of every raw connection: the handshake's MACs, the socket helpers,
and the link interface both collective links implement."""

from __future__ import annotations

import socket
import threading
import time

import numpy as np
import pytest

from tensorfleet import errors
from tensorfleet.collectives.grpc_link import GrpcLink
from tensorfleet.collectives.tcp import TcpLink
from tensorfleet.testing.cluster import free_ports
from tensorfleet.transport import bulk, handshake, sockio
from tensorfleet.transport.link import FrameLink

KEY = b"a-cluster-token-for-tests"
CN, SN = b"c" * handshake.NONCE_BYTES, b"s" * handshake.NONCE_BYTES


def test_mac_covers_role_context_protocol_and_both_nonces():
    text = handshake.transcript("p", 1, ("g", 2, 1, 0), CN, SN)
    good = handshake.mac(KEY, handshake.ROLE_CONNECTOR, text)
    assert len(good) == handshake.MAC_BYTES
    assert handshake.verify(KEY, handshake.ROLE_CONNECTOR, text, good)
    # Anything that differs makes the proof worthless.
    assert not handshake.verify(KEY, handshake.ROLE_ACCEPTOR, text, good)
    assert not handshake.verify(b"another token", handshake.ROLE_CONNECTOR, text, good)
    for other in (handshake.transcript("p", 2, ("g", 2, 1, 0), CN, SN),
                  handshake.transcript("q", 1, ("g", 2, 1, 0), CN, SN),
                  handshake.transcript("p", 1, ("g", 3, 1, 0), CN, SN),
                  handshake.transcript("p", 1, ("g", 2, 1, 0), SN, CN)):
        assert not handshake.verify(KEY, handshake.ROLE_CONNECTOR, other, good)


def test_transcript_fields_cannot_be_shifted_into_each_other():
    a = handshake.transcript("p", 1, ("ab", "c"), CN, SN)
    b = handshake.transcript("p", 1, ("a", "bc"), CN, SN)
    assert a != b


def test_bad_nonce_and_role_are_refused():
    with pytest.raises(ValueError, match="nonce"):
        handshake.transcript("p", 1, (), b"short", SN)
    with pytest.raises(ValueError, match="role"):
        handshake.mac(KEY, "server", b"x")
    assert len(handshake.new_nonce()) == handshake.NONCE_BYTES
    assert handshake.new_nonce() != handshake.new_nonce()


def test_side_channel_uses_the_shared_transcript():
    assert bulk.transcript(CN, SN) == handshake.transcript(
        bulk.PROTOCOL, bulk.BULK_VERSION, (), CN, SN)


def test_both_links_implement_the_link_interface():
    tcp = TcpLink(["127.0.0.1:1"], 0)
    grpc_link = GrpcLink([f"127.0.0.1:{free_ports(1)[0]}"], 0)
    try:
        assert isinstance(tcp, FrameLink)
        assert isinstance(grpc_link, FrameLink)
    finally:
        tcp.close()
        grpc_link.close()


def test_tcp_link_connections_have_keepalive():
    addrs = [f"127.0.0.1:{p}" for p in free_ports(2)]
    links = {}

    def make(rank: int) -> None:
        links[rank] = TcpLink(addrs, rank, "ka", token="t" * 24, connect_timeout=20)

    threads = [threading.Thread(target=make, args=(r,)) for r in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    try:
        for rank, link in links.items():
            sock = link._socks[1 - rank]
            assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
            if hasattr(socket, "TCP_USER_TIMEOUT"):
                # A rank may rightly not read for long; the group's timeout decides.
                assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT) == 0
        data = np.arange(1000, dtype=np.float32)
        out = np.empty_like(data)
        links[1].send(0, {"seq": 1}, data, 5.0)
        links[0].recv_into(1, {"seq": 1}, out, 5.0)
        np.testing.assert_array_equal(out, data)
    finally:
        for link in links.values():
            link.close()


def _pair():
    with socket.create_server(("127.0.0.1", 0)) as listener:
        a = socket.create_connection(listener.getsockname())
        b, _ = listener.accept()
    for s in (a, b):
        sockio._configure(s, 0.02)
    return a, b


def test_recv_exact_stops_on_the_failure_check_and_counts_bytes():
    a, b = _pair()
    try:
        a.sendall(b"abc")
        failure = errors.AbortedError(None, None, "the group failed")
        calls = []

        def failed():
            calls.append(1)
            return failure if len(calls) > 2 else None

        buf = bytearray(10)
        with pytest.raises(sockio._Stopped) as e:
            sockio._recv_exact(b, memoryview(buf), time.monotonic() + 5, failed=failed)
        assert e.value.got == 3 and e.value.cause is failure
        assert bytes(buf[:3]) == b"abc"
    finally:
        a.close()
        b.close()


def test_recv_exact_stall_deadline_and_eof():
    a, b = _pair()
    try:
        # A stall ends the wait as _Silent, before the 5 s deadline would (TimeoutError).
        with pytest.raises(sockio._Silent):
            sockio._recv_exact(b, memoryview(bytearray(4)), time.monotonic() + 5, stall=0.1)
        with pytest.raises(TimeoutError):
            sockio._recv_exact(b, memoryview(bytearray(4)), time.monotonic() + 0.1)
        a.sendall(b"xy")
        a.close()
        with pytest.raises(sockio._Eof) as e:
            sockio._recv_exact(b, memoryview(bytearray(4)), time.monotonic() + 5)
        assert e.value.got == 2
    finally:
        b.close()


def test_send_all_stalls_when_the_peer_reads_nothing():
    a, b = _pair()
    try:
        big = memoryview(bytearray(64 << 20))
        with pytest.raises(sockio._Stalled) as e:
            sockio._send_all(a, [big], float("inf"), stall=0.2)
        assert 0 < e.value.sent < len(big)
    finally:
        a.close()
        b.close()
