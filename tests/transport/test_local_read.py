"""Big side-channel replies between processes of one host, read from the sender's
memory (tensorfleet.transport.local_read), and the socket whenever that cannot be."""

from __future__ import annotations

import errno
import os
import socket
import time

import numpy as np
import pytest

from tensorfleet import errors
from tensorfleet.transport import bulk, local_read, wire
from tests.transport.bulk_fakes import FakeListener

MIB = 1 << 20

pytestmark = [
    pytest.mark.usefixtures("clean_transport_env"),
    pytest.mark.skipif(not local_read.supported(), reason="process_vm_readv is Linux-only"),
]


def _listener(parked, **kwargs):
    def call(name, frame):
        parts, total = wire.encode_parts({}, [np.arange(MIB, dtype=np.float32)])
        return bulk.STATUS_OK, parts, total
    return bulk.BulkListener("127.0.0.1", None, lambda k: parked.pop(k, None), call=call,
                             **kwargs).start()


def _fetch(pool, listener, parked, seed, nbytes=2 * MIB):
    value = np.random.default_rng(seed).integers(0, 255, nbytes, dtype=np.uint8)
    key = b"%016d" % seed
    parked[key] = value
    out = pool.fetch(f"127.0.0.1:{listener.port}", listener.port, None, key, nbytes,
                     time.monotonic() + 10)
    np.testing.assert_array_equal(out, value)


def test_a_big_reply_on_one_host_is_read_from_the_senders_memory(pool):
    parked = {}
    listener = _listener(parked)
    try:
        _fetch(pool, listener, parked, 1)
        status, frame = pool.call(f"127.0.0.1:{listener.port}", listener.port, None,
                                  "test.S/Get", [b""], 0, time.monotonic() + 10, 1 << 30)
        assert status == bulk.STATUS_OK
        np.testing.assert_array_equal(wire.decode(frame)[1][0], np.arange(MIB, dtype=np.float32))
        _fetch(pool, listener, parked, 2, nbytes=MIB // 2)  # small: over the socket
        assert listener.stats["local_reads"] == 2 and pool.local_reads == 2
        assert listener.stats["local_refused"] == 0
    finally:
        listener.stop()


def test_a_server_that_does_not_offer_it_sends_over_the_socket(pool):
    parked = {}
    listener = _listener(parked, local_replies=False)
    try:
        _fetch(pool, listener, parked, 3)
        assert listener.stats["local_reads"] == 0 and pool.local_reads == 0
    finally:
        listener.stop()


def test_a_pid_that_is_not_the_peer_is_never_read(pool, monkeypatch):
    # A sender naming another process (here the test runner's parent) would have the
    # receiver read that process's memory: the receiver checks who holds the other
    # end of the connection first, and takes the bytes over the socket instead.
    monkeypatch.setattr(bulk.os, "getpid", os.getppid)
    parked = {}
    listener = _listener(parked)
    try:
        _fetch(pool, listener, parked, 4)
        assert listener.stats["local_refused"] == 1 and pool.local_reads == 0
        _fetch(pool, listener, parked, 5)  # not asked again
        assert listener.stats["local_refused"] == 1 and listener.stats["local_reads"] == 0
    finally:
        listener.stop()


def test_a_read_the_kernel_refuses_falls_back_to_the_socket(pool, monkeypatch):
    def refused(pid, parts, out):
        raise OSError(errno.EPERM, "Operation not permitted")
    monkeypatch.setattr(local_read, "read", refused)
    parked = {}
    listener = _listener(parked)
    try:
        _fetch(pool, listener, parked, 6)
        assert listener.stats["local_refused"] == 1 and pool.local_reads == 0
    finally:
        listener.stop()


def test_the_peer_check_finds_the_process_at_the_other_end():
    server = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(server.getsockname())
    conn, _ = server.accept()
    try:
        assert local_read.wanted(client)
        assert local_read.peer_is(client, os.getpid())
        assert not local_read.peer_is(client, os.getppid())
        assert not local_read.peer_is(client, 0)
    finally:
        for s in (client, conn, server):
            s.close()


@pytest.mark.parametrize("parts, why", [
    ([(0x1000, MIB)], "add up"),              # less than announced
    ([(0x1000, 2 * MIB), (0x1000, 1)], "add up"),  # more
    ([(0x1000, 0), (0x1000, 2 * MIB)], "add up"),  # an empty part
])
def test_a_malformed_reply_by_memory_is_refused(pool, parts, why):
    total = 2 * MIB
    reply = bulk._REPLY.pack(bulk.MAGIC, bulk.BULK_VERSION, bulk.STATUS_LOCAL, total) \
        + local_read.LOCAL_HEAD.pack(os.getpid(), len(parts), 0) \
        + b"".join(local_read.LOCAL_PART.pack(a, n) for a, n in parts)
    fake = FakeListener(reply=reply, request_bytes=bulk._REQUEST.size)
    try:
        with pytest.raises(errors.InvalidArgumentError, match=why):
            pool.fetch(f"127.0.0.1:{fake.port}", fake.port, None, b"k" * 16, total,
                       time.monotonic() + 5)
    finally:
        fake.close()


def test_too_many_parts_are_refused_before_reading_them(pool):
    reply = bulk._REPLY.pack(bulk.MAGIC, bulk.BULK_VERSION, bulk.STATUS_LOCAL, 2 * MIB) \
        + local_read.LOCAL_HEAD.pack(os.getpid(), local_read.MAX_PARTS + 1, 0)
    fake = FakeListener(reply=reply, request_bytes=bulk._REQUEST.size)
    try:
        with pytest.raises(errors.InvalidArgumentError, match="parts"):
            pool.fetch(f"127.0.0.1:{fake.port}", fake.port, None, b"k" * 16, 2 * MIB,
                       time.monotonic() + 5)
    finally:
        fake.close()


def test_one_read_spans_several_parts():
    a = np.arange(100, dtype=np.uint8)
    b = np.arange(100, 250, dtype=np.uint8)
    out = np.zeros(250, np.uint8)
    local_read.read(os.getpid(), [(a.ctypes.data, 100), (b.ctypes.data, 150)], out)
    np.testing.assert_array_equal(out, np.concatenate([a, b]))
