"""Socket primitives of every raw-TCP connection: deadlines, stop requests and liveness.

Sockets here stay in blocking mode with kernel-level timeouts (``SO_RCVTIMEO``,
``SO_SNDTIMEO``) of one *slice*: a blocked receive or send wakes up once per
slice to look at its deadline, at a stop request and at the caller's failure
check, and ``MSG_WAITALL`` receives still land whole in the caller's buffer.
The side channel (``bulk``, ``bulk_client``) and the collectives' links
(``collectives.tcp``) build their protocols on these, so every raw connection
gets the same keepalive and the same wakeup rules.
"""

from __future__ import annotations

import os
import socket
import ssl
import struct
import threading
import time
from typing import Callable, List, Optional, Sequence

# How often a blocked socket call wakes up to look at its deadline or a stop request.
POLL_SLICE = 0.1
# TCP keepalive, for a peer whose machine or network goes away between calls.
KEEPALIVE_IDLE, KEEPALIVE_INTERVAL, KEEPALIVE_COUNT = 2, 1, 3
USER_TIMEOUT_MS = 5000
try:
    _IOV_MAX = max(16, min(os.sysconf("SC_IOV_MAX"), 1024))
except (AttributeError, ValueError, OSError):
    _IOV_MAX = 16
# With TLS, parts smaller than this are joined before sending: each send is a TLS record.
_TLS_COALESCE = 64 << 10
# What a blocked call that woke up without progress raises (TLS: a timeout slice
# that ended inside OpenSSL's read or write, which is retried with the same buffer).
_NO_PROGRESS = (BlockingIOError, InterruptedError, socket.timeout, ssl.SSLWantReadError,
                ssl.SSLWantWriteError)


# Returns the error that ends a blocked call early (a collective group that failed), or None.
FailedCheck = Callable[[], Optional[BaseException]]


class _Stopped(Exception):
    """A stop request (or the caller's failure check) ended a blocked call.

    ``got`` bytes of the message had moved; ``cause`` is what the failure check returned.
    """

    def __init__(self, got: int = 0, cause: Optional[BaseException] = None):
        super().__init__("stopped")
        self.got = got
        self.cause = cause


class _Silent(Exception):
    """The peer sent nothing for the stall timeout while a message was due."""

    def __init__(self, got: int = 0):
        super().__init__(f"the peer sent nothing ({got} bytes into a message)")
        self.got = got


class _Stalled(TimeoutError):
    """The peer read nothing for the stall timeout; ``sent`` bytes had gone out."""

    def __init__(self, sent: int):
        super().__init__("the peer read nothing before the deadline")
        self.sent = sent


class _Eof(EOFError):
    """The peer closed the connection after ``got`` bytes of a message."""

    def __init__(self, got: int):
        super().__init__(f"the peer closed the connection ({got} bytes into a message)")
        self.got = got


def _timeval(seconds: float) -> bytes:
    sec = int(seconds)
    return struct.pack("ll", sec, int((seconds - sec) * 1e6))


def _configure(sock: socket.socket, slice_seconds: float = POLL_SLICE,
               buffer_bytes: Optional[int] = None,
               user_timeout_ms: Optional[int] = USER_TIMEOUT_MS) -> None:
    """Sets up a raw connection: no Nagle, timeout slices, keepalive.

    ``user_timeout_ms`` (``TCP_USER_TIMEOUT``) also ends a connection whose peer
    leaves sent data unacknowledged, or its receive window shut, that long; None
    leaves only keepalive, for peers that may rightly not read for long (a
    collective rank still computing) and whose waits have deadlines of their own.
    """
    if buffer_bytes:
        # Fixed buffers turn off the kernel's autotuning; bigger ones mean fewer wakeups.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, int(buffer_bytes))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, int(buffer_bytes))
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
                        ("TCP_KEEPCNT", KEEPALIVE_COUNT), ("TCP_USER_TIMEOUT", user_timeout_ms)):
        option = getattr(socket, name, None)
        if option is not None and value is not None:
            try:
                sock.setsockopt(socket.IPPROTO_TCP, option, value)
            except OSError:
                pass  # not supported here; the heartbeats still catch a silent peer


def _recv_exact(sock: socket.socket, view: memoryview, deadline: float,
                stop: Optional[threading.Event] = None, stall: Optional[float] = None,
                failed: Optional[FailedCheck] = None) -> None:
    """Fills ``view`` from ``sock``.

    Raises:
      TimeoutError: ``deadline`` passed, looked at after every wakeup, so bytes
        trickling in never carry a call past it.
      _Silent: ``stall`` seconds went by without a byte.
      _Stopped: ``stop`` was set, or ``failed()`` returned an error (its ``cause``).
      _Eof: the peer closed the connection.
      OSError: the connection broke.
    """
    need, got = len(view), 0
    last = time.monotonic()
    # TLS takes no flags: each receive yields at most one record (16 KiB), decrypted
    # by OpenSSL straight into the caller's buffer, still without holding the GIL.
    flags = 0 if isinstance(sock, ssl.SSLSocket) else socket.MSG_WAITALL
    while got < need:
        try:
            k = sock.recv_into(view[got:], need - got, flags)
        except _NO_PROGRESS:
            k = -1
        if k == 0:
            raise _Eof(got)
        now = time.monotonic()
        if k > 0:
            got += k
            last = now
            if got == need:
                return
        elif stop is not None and stop.is_set():
            raise _Stopped(got)
        elif failed is not None:
            cause = failed()
            if cause is not None:
                raise _Stopped(got, cause)
        if now > deadline:
            raise TimeoutError(f"received {got} of {need} bytes before the deadline")
        if stall is not None and now - last > stall:
            raise _Silent(got)


def consume(views: List[memoryview], sent: int) -> None:
    """Drops the first ``sent`` bytes from ``views`` after a partial ``sendmsg``."""
    while sent:
        if sent >= len(views[0]):
            sent -= len(views.pop(0))
        else:
            views[0] = views[0][sent:]
            sent = 0


def _send_all(sock: socket.socket, parts: Sequence[memoryview], deadline: float,
              stop: Optional[threading.Event] = None, stall: Optional[float] = None,
              failed: Optional[FailedCheck] = None) -> None:
    """Sends every byte of ``parts``.

    Raises:
      TimeoutError: ``deadline`` passed; ``_Stalled`` (a TimeoutError) when the
        peer read nothing for ``stall`` seconds.
      _Stopped: ``stop`` was set, or ``failed()`` returned an error (its ``cause``).
      OSError: the connection broke.
    """
    views = [p for p in parts if len(p)]
    tls = isinstance(sock, ssl.SSLSocket)
    if tls:
        views = _coalesce(views)
    last = time.monotonic()
    total = 0
    while views:
        try:
            if tls:
                # No sendmsg over TLS; a write that a timeout slice interrupts is
                # retried with the same buffer, as OpenSSL requires.
                sent = sock.send(views[0])
            else:
                # A reply of many tensors has more parts than one sendmsg takes.
                sent = sock.sendmsg(views[:_IOV_MAX])
        except _NO_PROGRESS:
            sent = 0
        now = time.monotonic()
        if sent > 0:
            last = now
            total += sent
            consume(views, sent)
            continue
        if stop is not None and stop.is_set():
            raise _Stopped(total)
        if failed is not None:
            cause = failed()
            if cause is not None:
                raise _Stopped(total, cause)
        if now > deadline:
            raise TimeoutError("the peer read nothing before the deadline")
        if stall is not None and now - last > stall:
            raise _Stalled(total)


def _coalesce(views: List[memoryview]) -> List[memoryview]:
    """Joins runs of small parts, so that a head and its small tensors make one record."""
    out: List[memoryview] = []
    run: List[memoryview] = []
    for view in views:
        if len(view) < _TLS_COALESCE:
            run.append(view)
            continue
        if run:
            out.append(memoryview(b"".join(run)))
            run = []
        out.append(view)
    if run:
        out.append(memoryview(b"".join(run)))
    return out


def tls_handshake(sock: ssl.SSLSocket, deadline: float) -> ssl.SSLSocket:
    """Runs the TLS handshake of ``sock`` (blocking, with timeout slices) by ``deadline``.

    Raises:
      TimeoutError: ``deadline`` passed.
      ssl.SSLError: the handshake failed (a certificate that does not verify,
        a peer that does not speak TLS).
      OSError: the connection broke.
    """
    while True:
        try:
            sock.do_handshake()
            return sock
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError, BlockingIOError,
                InterruptedError, socket.timeout):
            if time.monotonic() > deadline:
                raise TimeoutError("the TLS handshake did not end before the deadline") from None


def peek(sock: socket.socket, flags: int) -> bytes:
    """``recv(1, MSG_PEEK | flags)`` on the connection itself, beneath any TLS layer
    (whose records are bytes like any other for telling whether the peer is there)."""
    return socket.socket.recv(sock, 1, socket.MSG_PEEK | flags)


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
        return peek(sock, getattr(socket, "MSG_DONTWAIT", 0)) != b""
    except (BlockingIOError, InterruptedError):
        return True  # nothing to read: still connected
    except OSError:
        return False


__all__ = ["FailedCheck", "POLL_SLICE", "KEEPALIVE_IDLE", "KEEPALIVE_INTERVAL", "KEEPALIVE_COUNT",
           "USER_TIMEOUT_MS", "consume", "peek", "peer_open", "tls_handshake"]
