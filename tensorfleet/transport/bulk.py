"""A raw-TCP side channel for big RPC replies, beside gRPC.

Why: gRPC Python hands every received message to Python as a fresh ``bytes``
and copies it again into place, which caps a big reply near 0.7-0.9 GB/s
between two processes; a plain socket that receives straight into a
preallocated numpy buffer (``recv_into`` with ``MSG_WAITALL``, which releases
the GIL) moves two to four times that, depending on the machine, at half the
CPU. gRPC stays the control path: a big reply is parked on the server as one
contiguous snapshot and the unary reply is a small handle naming it (see
``rpc``); the client redeems the handle here, or with gRPC's ``_Fetch`` when
this channel cannot be used.

Protocol, all integers little-endian, every message of fixed size::

    client -> server  hello      magic b"TFLB" | version u16 | flags u16 | client nonce 16
    server -> client  challenge  magic | version | flags | server nonce 16 | server MAC 32
    client -> server  proof      magic | version | flags | client MAC 32
    server -> client  verdict    magic | version | status u16 (0 accepted, 1 refused)
    then, any number of times:
    client -> server  request    magic | version | flags | response key 16
    server -> client  reply      magic | version | status u16 | total u64, then total bytes

The MACs are HMAC-SHA256 with the cluster token as key over a transcript of
both nonces and the side's role, so each side proves it holds the token, the
token never travels and a recorded handshake cannot be replayed. A server
without a token (loopback only) runs the same handshake with an empty key.
The data itself is not encrypted: with TLS the side channel is never used.

Every byte read here is untrusted: each message is checked field by field, a
reply's total must equal the size the handle announced (itself checked against
the client's ``max_message_bytes``) before anything is allocated, and a
malformed request closes that one connection.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import socket
import struct
import threading
import time
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.transport import auth

logger = logging.getLogger(__name__)

BULK_ENV = "TENSORFLEET_BULK"
BULK_VERSION = 1
MAGIC = b"TFLB"
NONCE_BYTES = 16
# How often a blocked socket call wakes up to look at its deadline or a stop request.
POLL_SLICE = 0.1
# The same for the listener's connections: longer, because an idle pooled connection
# would otherwise cost its thread ten wakeups a second, and stop() wakes them anyway.
SERVER_SLICE = 1.0
HANDSHAKE_TIMEOUT = 10.0
# Short: on a LAN a connect takes well under a millisecond, and a firewall that
# drops packets must not stall the first big reply for long before the fallback.
CONNECT_TIMEOUT = 2.0
IDLE_TIMEOUT = 300.0
# A client that reads nothing of a reply for this long is dropped.
SEND_STALL_TIMEOUT = 60.0
MAX_CONNECTIONS = 512
MAX_IDLE_PER_ENDPOINT = 8

STATUS_OK = 0
STATUS_NOT_FOUND = 1
VERDICT_ACCEPTED = 0
VERDICT_REFUSED = 1

_HELLO = struct.Struct("<4sHH16s")
_CHALLENGE = struct.Struct("<4sHH16s32s")
_PROOF = struct.Struct("<4sHH32s")
_VERDICT = struct.Struct("<4sHH")
_REQUEST = struct.Struct("<4sHH16s")
_REPLY = struct.Struct("<4sHHQ")

Endpoint = Tuple[str, int, bytes]


def enabled() -> bool:
    """Whether the side channel may be used (``TENSORFLEET_BULK=0`` turns it off)."""
    return os.environ.get(BULK_ENV, "1").strip() != "0"


class BulkUnavailable(Exception):
    """The side channel of a server cannot be used (unreachable, or the handshake failed)."""


class _Stopped(Exception):
    """The listener is stopping; the connection's thread should end."""


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


def _mac(key: bytes, role: bytes, client_nonce: bytes, server_nonce: bytes) -> bytes:
    # The role keeps a MAC the server computed from being replayed as the client's.
    transcript = b"tensorfleet.bulk|%d|%s|" % (BULK_VERSION, role)
    return hmac.new(key, transcript + client_nonce + server_nonce, hashlib.sha256).digest()


def _recv_exact(sock: socket.socket, view: memoryview, deadline: float,
                stop: Optional[threading.Event] = None) -> None:
    """Fills ``view`` from ``sock``; TimeoutError after ``deadline``, _Eof on a close."""
    need, got = len(view), 0
    while got < need:
        try:
            k = sock.recv_into(view[got:], need - got, socket.MSG_WAITALL)
        except (BlockingIOError, InterruptedError):
            k = -1
        if k == 0:
            raise _Eof(got)
        if k > 0:
            got += k
            continue
        if stop is not None and stop.is_set():
            raise _Stopped()
        if time.monotonic() > deadline:
            raise TimeoutError(f"received {got} of {need} bytes before the deadline")


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
            sent = sock.sendmsg(views)
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
          stop: Optional[threading.Event] = None) -> tuple:
    buf = bytearray(fmt.size)
    _recv_exact(sock, memoryview(buf), deadline, stop)
    return fmt.unpack(buf)


def _close(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()


# ------------------------------------------------------------------------------ server


def _bind(host: str) -> socket.socket:
    """A listening socket on ``host`` and an ephemeral port."""
    if host in ("", "::") and socket.has_dualstack_ipv6():
        # gRPC serves IPv4 peers too on a wildcard address; so must the side channel.
        return socket.create_server(("::", 0), family=socket.AF_INET6, dualstack_ipv6=True,
                                    backlog=128)
    last: Optional[OSError] = None
    for family, kind, proto, _, sockaddr in socket.getaddrinfo(
            host or None, 0, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE):
        sock = socket.socket(family, kind, proto)
        try:
            sock.bind(sockaddr)
            sock.listen(128)
            return sock
        except OSError as e:
            sock.close()
            last = e
    raise last or OSError(f"cannot resolve {host!r}")


class BulkListener:
    """Serves parked responses over authenticated TCP connections.

    Args:
      host: the host to bind (the RPC server's own host); the port is ephemeral.
      token: cluster token; None means none (the handshake then uses an empty key).
      take: pops the parked response of a 16-byte key (a contiguous uint8 array),
        or returns None for an unknown or expired key.
      max_connections: connections served at once; more are closed on accept.
      idle_timeout: an authenticated connection with no request for this long is closed.
    """

    def __init__(self, host: str, token: Optional[str],
                 take: Callable[[bytes], Optional[np.ndarray]], *,
                 max_connections: int = MAX_CONNECTIONS,
                 idle_timeout: float = IDLE_TIMEOUT):
        self._host = host
        self._key = (token or "").encode("utf-8")
        self._take = take
        self._max_connections = int(max_connections)
        self._idle_timeout = float(idle_timeout)
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._conns: Dict[socket.socket, threading.Thread] = {}
        self._sock: Optional[socket.socket] = None
        self._acceptor: Optional[threading.Thread] = None
        self._port = 0
        self._stats = {"accepted": 0, "refused": 0, "bad_requests": 0, "served": 0,
                       "bytes_served": 0, "not_found": 0}

    @property
    def port(self) -> int:
        """The bound port (0 before ``start``); kept after ``stop``."""
        return self._port

    @property
    def stats(self) -> Dict[str, int]:
        """Counters: connections accepted and refused, bad requests, responses served
        (counted as their sending starts) and keys not found."""
        with self._lock:
            return dict(self._stats)

    def _count(self, name: str, n: int = 1) -> None:
        with self._lock:
            self._stats[name] += n

    def start(self) -> "BulkListener":
        """Binds and starts accepting; returns self. Raises OSError if it cannot bind."""
        sock = _bind(self._host)
        # Accept wakes up regularly so that stop() never depends on close() waking it.
        sock.settimeout(POLL_SLICE * 2)
        self._sock, self._port = sock, sock.getsockname()[1]
        self._acceptor = threading.Thread(target=self._accept_loop, daemon=True,
                                          name=f"tf-bulk-accept-{self._port}")
        self._acceptor.start()
        logger.debug("bulk side channel listening on port %d", self._port)
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stops accepting, closes every connection and waits for the threads to end."""
        self._stopping.set()
        if self._acceptor is not None:
            self._acceptor.join(timeout)
        if self._sock is not None:
            self._sock.close()
        with self._lock:
            conns = list(self._conns.items())
        for sock, _ in conns:
            try:
                # Wakes a thread blocked in a send or receive at once.
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        end = time.monotonic() + timeout
        for _, thread in conns:
            thread.join(max(0.0, end - time.monotonic()))

    def _accept_loop(self) -> None:
        assert self._sock is not None
        while not self._stopping.is_set():
            try:
                sock, peer = self._sock.accept()
            except (socket.timeout, BlockingIOError, InterruptedError):
                continue
            except OSError as e:
                if self._stopping.is_set():
                    break
                # Out of descriptors, say: back off instead of spinning.
                logger.warning("bulk side channel: accept failed: %s", e)
                time.sleep(POLL_SLICE)
                continue
            with self._lock:
                full = len(self._conns) >= self._max_connections
                if not full and not self._stopping.is_set():
                    thread = threading.Thread(target=self._serve, args=(sock, peer),
                                              daemon=True, name=f"tf-bulk-conn-{self._port}")
                    self._conns[sock] = thread
                    self._stats["accepted"] += 1
            if full or self._stopping.is_set():
                logger.warning("bulk side channel: closed a connection from %s (%d connections "
                               "open)", peer, self._max_connections)
                _close(sock)
                continue
            thread.start()

    def _serve(self, sock: socket.socket, peer: object) -> None:
        authenticated = False
        try:
            _configure(sock, min(SERVER_SLICE, self._idle_timeout))
            authenticated = self._handshake(sock, peer)
            if authenticated:
                self._serve_requests(sock, peer)
        except _Stopped:
            pass
        except (OSError, EOFError) as e:
            if not authenticated:
                # Also what a client that found this listener's proof wrong does: hang up.
                self._count("refused")
            # TimeoutError is an OSError: an idle or stalled client; nothing to report.
            logger.debug("bulk side channel: connection from %s ended: %s", peer, e)
        finally:
            _close(sock)
            with self._lock:
                self._conns.pop(sock, None)

    def _handshake(self, sock: socket.socket, peer: object) -> bool:
        deadline = time.monotonic() + HANDSHAKE_TIMEOUT
        magic, version, flags, client_nonce = _read(sock, _HELLO, deadline, self._stopping)
        if magic != MAGIC or version != BULK_VERSION or flags:
            self._count("refused")
            logger.warning("bulk side channel: %s is not a tensorfleet bulk client of this "
                           "release (magic %r, version %d); closed", peer, magic, version)
            return False
        server_nonce = os.urandom(NONCE_BYTES)
        mac = _mac(self._key, b"server", client_nonce, server_nonce)
        _send_all(sock, [memoryview(_CHALLENGE.pack(MAGIC, BULK_VERSION, 0, server_nonce, mac))],
                  deadline, self._stopping)
        magic, version, flags, proof = _read(sock, _PROOF, deadline, self._stopping)
        expected = _mac(self._key, b"client", client_nonce, server_nonce)
        ok = magic == MAGIC and version == BULK_VERSION and not flags \
            and hmac.compare_digest(proof, expected)
        verdict = VERDICT_ACCEPTED if ok else VERDICT_REFUSED
        _send_all(sock, [memoryview(_VERDICT.pack(MAGIC, BULK_VERSION, verdict))], deadline,
                  self._stopping)
        if not ok:
            self._count("refused")
            logger.warning("bulk side channel: rejected %s: invalid cluster token", peer)
        return ok

    def _serve_requests(self, sock: socket.socket, peer: object) -> None:
        while True:
            try:
                magic, version, flags, key = _read(
                    sock, _REQUEST, time.monotonic() + self._idle_timeout, self._stopping)
            except _Eof as e:
                if e.got:
                    raise
                return  # the client closed an idle connection: the normal end
            if magic != MAGIC or version != BULK_VERSION or flags:
                self._count("bad_requests")
                logger.warning("bulk side channel: malformed request from %s; closed", peer)
                return
            buf = self._take(bytes(key))
            status, total = (STATUS_NOT_FOUND, 0) if buf is None else (STATUS_OK, buf.nbytes)
            parts = [memoryview(_REPLY.pack(MAGIC, BULK_VERSION, status, total))]
            if buf is not None:
                parts.append(memoryview(buf).cast("B"))
            with self._lock:
                # Counted before sending, so a client that has its reply sees the count.
                self._stats["not_found" if buf is None else "served"] += 1
                self._stats["bytes_served"] += total
            _send_all(sock, parts, float("inf"), self._stopping, SEND_STALL_TIMEOUT)


# ------------------------------------------------------------------------------ client


def connect(host: str, port: int, token: Optional[str], deadline: float) -> socket.socket:
    """An authenticated connection to the listener at ``host:port``.

    Raises:
      BulkUnavailable: cannot connect, or the handshake failed (wrong token,
        another protocol on that port).
      TimeoutError: the call's ``deadline`` passed first.
    """
    key = (token or "").encode("utf-8")
    timeout = min(CONNECT_TIMEOUT, deadline - time.monotonic())
    if timeout <= 0:
        raise TimeoutError("no time left to connect")
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as e:
        if time.monotonic() >= deadline:
            raise TimeoutError("no time left to connect") from None
        raise BulkUnavailable(f"cannot connect to port {port}: {e}") from None
    limit = min(deadline, time.monotonic() + HANDSHAKE_TIMEOUT)
    try:
        _configure(sock)
        client_nonce = os.urandom(NONCE_BYTES)
        _send_all(sock, [memoryview(_HELLO.pack(MAGIC, BULK_VERSION, 0, client_nonce))], limit)
        magic, version, flags, server_nonce, mac = _read(sock, _CHALLENGE, limit)
        if magic != MAGIC or version != BULK_VERSION or flags:
            raise BulkUnavailable(f"port {port} does not speak this release's bulk protocol")
        if not hmac.compare_digest(mac, _mac(key, b"server", client_nonce, server_nonce)):
            raise BulkUnavailable(f"the listener on port {port} did not prove it holds the "
                                  "cluster token")
        proof = _mac(key, b"client", client_nonce, server_nonce)
        _send_all(sock, [memoryview(_PROOF.pack(MAGIC, BULK_VERSION, 0, proof))], limit)
        magic, version, verdict = _read(sock, _VERDICT, limit)
        if magic != MAGIC or version != BULK_VERSION or verdict != VERDICT_ACCEPTED:
            raise BulkUnavailable(f"the listener on port {port} refused this process's "
                                  "cluster token")
    except BaseException as e:
        _close(sock)
        if isinstance(e, (BulkUnavailable, KeyboardInterrupt, SystemExit)):
            raise
        if time.monotonic() >= deadline:
            raise TimeoutError("the deadline passed during the bulk handshake") from None
        if isinstance(e, (OSError, EOFError)):
            raise BulkUnavailable(f"handshake on port {port} failed: {e}") from None
        raise
    return sock


class _Stale(Exception):
    """A pooled connection turned out closed before its reply began; retry on a fresh one."""


def _alive(sock: socket.socket) -> bool:
    """Whether an idle connection is still open with nothing unread on it."""
    try:
        # End of stream, or bytes nobody asked for: either way it cannot be reused.
        sock.recv(1, socket.MSG_PEEK | getattr(socket, "MSG_DONTWAIT", 0))
        return False
    except (BlockingIOError, InterruptedError):
        return True
    except OSError:
        return False


class BulkPool:
    """Idle authenticated connections per listener, reused across calls.

    A connection is taken for one fetch and returned after; any error closes
    it. An address whose side channel cannot be reached is remembered (per
    gRPC address and bulk port) and logged once; its big replies then come
    over gRPC.
    """

    def __init__(self, max_idle: int = MAX_IDLE_PER_ENDPOINT):
        self._max_idle = int(max_idle)
        self._lock = threading.Lock()
        self._idle: Dict[Endpoint, List[socket.socket]] = {}
        self._unreachable: Dict[Tuple[str, int], str] = {}

    def usable(self, address: str, port: int) -> bool:
        """False once the side channel of ``address`` on ``port`` has failed to connect."""
        return (address, port) not in self._unreachable

    def unreachable(self) -> Dict[Tuple[str, int], str]:
        """(address, bulk port) -> why, for every side channel found unusable."""
        with self._lock:
            return dict(self._unreachable)

    def fetch(self, address: str, port: int, token: Optional[str], key: bytes, total: int,
              deadline: float) -> np.ndarray:
        """Fetches the parked response ``key`` of exactly ``total`` bytes from ``address``'s
        side channel on ``port``, into a fresh uint8 array.

        ``total`` must already be checked against the caller's size limit.

        Raises:
          BulkUnavailable: the side channel cannot be used; nothing was fetched.
          AbortedError: the server does not have the response (expired or fetched).
          UnavailableError: the connection broke during the transfer.
          InvalidArgumentError: the server broke the protocol.
          TimeoutError: ``deadline`` passed.
        """
        host, _ = auth.split_address(address)
        endpoint = (host, port, hashlib.sha256((token or "").encode("utf-8")).digest())
        while True:
            sock = self._checkout(endpoint)
            reused = sock is not None
            if sock is None:
                try:
                    sock = connect(host, port, token, deadline)
                except BulkUnavailable as e:
                    self._mark_unreachable(address, port, str(e))
                    raise
            try:
                out = _fetch_on(sock, key, total, deadline, reused, f"{host}:{port}")
            except _Stale:
                _close(sock)
                continue
            except errors.AbortedError:
                self._checkin(endpoint, sock)  # a clean "not found" leaves it usable
                raise
            except BaseException:
                _close(sock)
                raise
            self._checkin(endpoint, sock)
            return out

    def _mark_unreachable(self, address: str, port: int, reason: str) -> None:
        with self._lock:
            first = (address, port) not in self._unreachable
            self._unreachable[(address, port)] = reason
        if first:
            logger.info("the bulk side channel of %s is unusable (%s); its big replies come "
                        "over gRPC from now on", address, reason)

    def _checkout(self, endpoint: Endpoint) -> Optional[socket.socket]:
        while True:
            with self._lock:
                idle = self._idle.get(endpoint)
                if not idle:
                    return None
                sock = idle.pop()
            if _alive(sock):
                return sock
            _close(sock)  # the server closed it (idle timeout, restart): try the next

    def _checkin(self, endpoint: Endpoint, sock: socket.socket) -> None:
        with self._lock:
            idle = self._idle.setdefault(endpoint, [])
            if len(idle) < self._max_idle:
                idle.append(sock)
                return
        _close(sock)

    def close_all(self) -> None:
        """Closes every idle connection and forgets which side channels failed."""
        with self._lock:
            idle, self._idle = self._idle, {}
            self._unreachable.clear()
        for socks in idle.values():
            for sock in socks:
                _close(sock)


def _fetch_on(sock: socket.socket, key: bytes, total: int, deadline: float, reused: bool,
              where: str) -> np.ndarray:
    try:
        _send_all(sock, [memoryview(_REQUEST.pack(MAGIC, BULK_VERSION, 0, key))], deadline)
        magic, version, status, declared = _read(sock, _REPLY, deadline)
    except TimeoutError:
        raise
    except (_Eof, OSError) as e:
        # A pooled connection the server has just closed fails here before a
        # reply byte arrives; a fresh one takes its place.
        if reused and (isinstance(e, ConnectionError) or (isinstance(e, _Eof) and e.got == 0)):
            raise _Stale() from None
        raise errors.UnavailableError(
            None, None, f"lost the bulk connection to {where}: {e}") from None
    if magic != MAGIC or version != BULK_VERSION:
        raise errors.InvalidArgumentError(
            None, None, f"malformed bulk reply from {where} (magic {magic!r}, version {version})")
    if status == STATUS_NOT_FOUND and declared == 0:
        raise errors.AbortedError(
            None, None, f"the response was not found on {where}: it expired or was already "
            "fetched")
    if status != STATUS_OK or declared != total:
        raise errors.InvalidArgumentError(
            None, None, f"malformed bulk reply from {where}: status {status}, {declared} bytes "
            f"where the response handle announced {total}")
    out = np.empty(total, dtype=np.uint8)
    try:
        _recv_exact(sock, memoryview(out), deadline)
    except TimeoutError:
        raise
    except (_Eof, OSError) as e:
        raise errors.UnavailableError(
            None, None, f"lost the bulk connection to {where} during a {total}-byte reply: "
            f"{e}") from None
    return out


POOL = BulkPool()

__all__ = [
    "BULK_ENV", "BULK_VERSION", "BulkListener", "BulkPool", "BulkUnavailable", "POOL",
    "connect", "enabled",
]
