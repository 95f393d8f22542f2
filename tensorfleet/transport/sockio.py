"""Socket primitives of the bulk side channel: deadlines, stop requests and liveness.

Sockets here stay in blocking mode with kernel-level timeouts (``SO_RCVTIMEO``,
``SO_SNDTIMEO``) of one *slice*: a blocked receive or send wakes up once per
slice to look at its deadline and at a stop request, and ``MSG_WAITALL``
receives still land whole in the caller's buffer. ``bulk`` (server) and
``bulk_client`` build their protocol on these.
"""

from __future__ import annotations

import os
import socket
import struct
import threading
import time
from typing import List, Optional, Sequence

# How often a blocked socket call wakes up to look at its deadline or a stop request.
POLL_SLICE = 0.1
# TCP keepalive, for a peer whose machine or network goes away between calls.
KEEPALIVE_IDLE, KEEPALIVE_INTERVAL, KEEPALIVE_COUNT = 2, 1, 3
USER_TIMEOUT_MS = 5000
try:
    _IOV_MAX = max(16, min(os.sysconf("SC_IOV_MAX"), 1024))
except (AttributeError, ValueError, OSError):
    _IOV_MAX = 16


class _Stopped(Exception):
    """The listener is stopping; the connection's thread should end."""


class _Silent(Exception):
    """The peer sent nothing for ``LIVENESS_TIMEOUT`` seconds while a reply was due."""


class _Eof(EOFError):
    """The peer closed the connection after ``got`` bytes of a message."""

    def __init__(self, got: int):
        super().__init__(f"the peer closed the connection ({got} bytes into a message)")
        self.got = got


def _timeval(seconds: float) -> bytes:
    sec = int(seconds)
    return struct.pack("ll", sec, int((seconds - sec) * 1e6))


def _configure(sock: socket.socket, slice_seconds: float = POLL_SLICE) -> None:
    # Blocking mode with kernel-level timeouts rather than Python's timeout mode:
    # the latter makes the descriptor non-blocking, which turns MSG_WAITALL into
    # one short read per wakeup. The slices let loops check deadlines and stop flags.
    # Socket buffers stay autotuned: fixed 1-4 MiB buffers measured no faster.
    sock.settimeout(None)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, _timeval(slice_seconds))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, _timeval(slice_seconds))
    # A machine that crashed or a cut network never closes the connection: the
    # kernel gives up after a few seconds of unanswered probes (or unacknowledged
    # data), like gRPC's keepalive, instead of after TCP's default two hours.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for name, value in (("TCP_KEEPIDLE", KEEPALIVE_IDLE), ("TCP_KEEPINTVL", KEEPALIVE_INTERVAL),
                        ("TCP_KEEPCNT", KEEPALIVE_COUNT), ("TCP_USER_TIMEOUT", USER_TIMEOUT_MS)):
        option = getattr(socket, name, None)
        if option is not None:
            try:
                sock.setsockopt(socket.IPPROTO_TCP, option, value)
            except OSError:
                pass  # not supported here; the heartbeats still catch a silent peer


def _recv_exact(sock: socket.socket, view: memoryview, deadline: float,
                stop: Optional[threading.Event] = None, stall: Optional[float] = None) -> None:
    """Fills ``view`` from ``sock``; TimeoutError after ``deadline``, _Silent after
    ``stall`` seconds without a byte, _Eof on a close."""
    need, got = len(view), 0
    last = time.monotonic() if stall is not None else 0.0
    while got < need:
        try:
            k = sock.recv_into(view[got:], need - got, socket.MSG_WAITALL)
        except (BlockingIOError, InterruptedError):
            k = -1
        if k == 0:
            raise _Eof(got)
        if k > 0:
            got += k
            if stall is not None:
                last = time.monotonic()
            continue
        if stop is not None and stop.is_set():
            raise _Stopped()
        now = time.monotonic()
        if now > deadline:
            raise TimeoutError(f"received {got} of {need} bytes before the deadline")
        if stall is not None and now - last > stall:
            raise _Silent()


def consume(views: List[memoryview], sent: int) -> None:
    """Drops the first ``sent`` bytes from ``views`` after a partial ``sendmsg``."""
    while sent:
        if sent >= len(views[0]):
            sent -= len(views.pop(0))
        else:
            views[0] = views[0][sent:]
            sent = 0


def _send_all(sock: socket.socket, parts: Sequence[memoryview], deadline: float,
              stop: Optional[threading.Event] = None, stall: Optional[float] = None) -> None:
    """Sends every byte of ``parts``; TimeoutError after ``deadline`` or ``stall`` idle seconds."""
    views = [p for p in parts if len(p)]
    last = time.monotonic()
    while views:
        try:
            # A reply of many tensors has more parts than one sendmsg takes.
            sent = sock.sendmsg(views[:_IOV_MAX])
        except (BlockingIOError, InterruptedError):
            sent = 0
        now = time.monotonic()
        if sent > 0:
            last = now
            consume(views, sent)
            continue
        if stop is not None and stop.is_set():
            raise _Stopped()
        if now > deadline or (stall is not None and now - last > stall):
            raise TimeoutError("the peer read nothing before the deadline")


def _read(sock: socket.socket, fmt: struct.Struct, deadline: float,
          stop: Optional[threading.Event] = None, stall: Optional[float] = None) -> tuple:
    buf = bytearray(fmt.size)
    _recv_exact(sock, memoryview(buf), deadline, stop, stall)
    return fmt.unpack(buf)


def _close(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()


def peer_open(sock: socket.socket) -> bool:
    """Whether the peer of ``sock`` has not closed it (nor reset it), looked at
    without consuming anything and without blocking."""
    try:
        return sock.recv(1, socket.MSG_PEEK | getattr(socket, "MSG_DONTWAIT", 0)) != b""
    except (BlockingIOError, InterruptedError):
        return True  # nothing to read: still connected
    except OSError:
        return False


__all__ = ["POLL_SLICE", "KEEPALIVE_IDLE", "KEEPALIVE_INTERVAL", "KEEPALIVE_COUNT",
           "USER_TIMEOUT_MS", "consume", "peer_open"]
