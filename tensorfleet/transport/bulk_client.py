"""The client side of the tensor side channel (see ``bulk``): authenticated
connections to other tasks' listeners, pooled and reused, over which a client
redeems parked replies and makes side-channel calls.

A call's deadline is looked at after every wakeup of its receive (at least every
``POLL_SLICE``), whether or not bytes arrived: heartbeats, or a reply trickling
in, never carry a call past its deadline. ``BulkPool.close_all`` wakes the calls
still waiting on the pool's connections.
"""

from __future__ import annotations

import hashlib
import logging
import socket
import ssl
import threading
import time
import weakref
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.runtime import process
from tensorfleet.transport import auth, buffers, handshake, local_read
from tensorfleet.transport.bulk import (  # noqa: F401 - the wire protocol is bulk's
    ANSWER_READ, ANSWER_SEND, BULK_VERSION, Buffer, BulkUnavailable, CONNECT_TIMEOUT,
    Endpoint, HEARTBEAT_INTERVAL, KIND_CALL, KIND_CALL_LOCAL, KIND_FETCH, KIND_FETCH_LOCAL,
    LIVENESS_TIMEOUT, MAGIC, MAX_CALL_REQUEST, MAX_ERROR_PAYLOAD, MAX_IDLE_PER_ENDPOINT,
    MAX_NAME_BYTES, NONCE_BYTES, RETRY_AFTER, STATUS_ERROR, STATUS_LOCAL, STATUS_NOT_FOUND,
    STATUS_OK, STATUS_PENDING, VERDICT_ACCEPTED, _CALL, _CHALLENGE, _HELLO, _NAME_RE, _PROOF,
    _REPLY, _REQUEST, _VERDICT, transcript)
from tensorfleet.transport.sockio import (
    _Eof, _Silent, _close, _configure, _read, _recv_exact, _send_all, peek,
    tls_handshake)

# One logger for the whole side channel, server and client halves.
logger = logging.getLogger("tensorfleet.transport.bulk")


def connect(host: str, port: int, token: Optional[str], deadline: float,
            tls: Optional[ssl.SSLContext] = None) -> socket.socket:
    """An authenticated connection to the listener at ``host:port``.

    With ``tls`` (a client context, ``auth.side_channel_tls``) the connection
    carries TLS, its server's certificate checked against ``host``, and the token
    handshake runs inside it.

    Raises:
      BulkUnavailable: cannot connect, the TLS handshake failed (a certificate
        that does not verify, a listener without TLS) or the token handshake
        failed (wrong token, another protocol on that port).
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
    # A listener that accepted (its kernel does) but stays silent is frozen: give
    # up as soon as a call would, and let the caller fall back to gRPC.
    limit = min(deadline, time.monotonic() + LIVENESS_TIMEOUT)
    try:
        _configure(sock)
        if tls is not None:
            # Named at once: the plain socket is detached, and a failed handshake
            # must close the TLS one.
            sock = tls.wrap_socket(sock, server_hostname=host, do_handshake_on_connect=False)
            tls_handshake(sock, limit)
        client_nonce = handshake.new_nonce()
        _send_all(sock, [memoryview(_HELLO.pack(MAGIC, BULK_VERSION, 0, client_nonce))], limit)
        magic, version, flags, server_nonce, mac = _read(sock, _CHALLENGE, limit)
        if magic != MAGIC or version != BULK_VERSION or flags:
            raise BulkUnavailable(f"port {port} does not speak this release's bulk protocol")
        text = transcript(client_nonce, server_nonce)
        if not handshake.verify(key, handshake.ROLE_ACCEPTOR, text, mac):
            raise BulkUnavailable(f"the listener on port {port} did not prove it holds the "
                                  "cluster token")
        proof = handshake.mac(key, handshake.ROLE_CONNECTOR, text)
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
    if isinstance(sock, ssl.SSLSocket) and sock.pending():
        return False  # decrypted bytes nobody asked for
    try:
        # End of stream, or bytes nobody asked for: either way it cannot be reused.
        peek(sock, getattr(socket, "MSG_DONTWAIT", 0))
        return False
    except (BlockingIOError, InterruptedError):
        return True
    except OSError:
        return False


# Checks that a pid is the peer of a connection, and reads a reply from its memory.
LocalReader = Callable[[socket.socket, int, Sequence[Tuple[int, int]], np.ndarray], bool]


class BulkPool:
    """Idle authenticated connections per listener, reused across fetches and calls.

    A connection is taken for one fetch or call and returned after; any error
    closes it. A side channel that cannot be reached is remembered (per gRPC
    address and bulk port) and logged; fetches and calls then go over gRPC
    until ``retry_after`` seconds have passed, when it is tried again.
    ``close_all`` closes the idle connections and wakes the fetches and calls
    still waiting on the others (they fail with UnavailableError); ``discard``
    drops the idle connections to one server, as when it stopped.

    A connection to a server on this host asks for big replies by memory
    (``local_read``; ``local_reads`` False never asks). A server whose reply could
    not be read that way (its pid is not the connection's peer, the kernel
    refused) is not asked again by this pool.
    """

    def __init__(self, max_idle: int = MAX_IDLE_PER_ENDPOINT, retry_after: float = RETRY_AFTER,
                 local_reads: bool = True):
        self._local_reads = bool(local_reads)
        # Endpoints whose replies could not be read from memory; connections whose
        # peer was checked to be that pid.
        self._not_local: Set[Endpoint] = set()
        self._peer_pids: "weakref.WeakKeyDictionary[socket.socket, int]" = \
            weakref.WeakKeyDictionary()
        self.local_reads = 0
        self._max_idle = int(max_idle)
        self._retry_after = float(retry_after)
        self._lock = threading.Lock()
        self._idle: Dict[Endpoint, List[socket.socket]] = {}
        # Connections taken by a fetch or call, for close_all to wake.
        self._busy: Set[socket.socket] = set()
        # gRPC address -> the endpoints of its side channel this pool has used.
        self._endpoints: Dict[str, Set[Endpoint]] = {}
        # How many times close_all ran: a call woken by it must not retry.
        self._closes = 0
        # (address, port) -> (why, when to try again)
        self._unreachable: Dict[Tuple[str, int], Tuple[str, float]] = {}
        self._logged: set = set()

    def usable(self, address: str, port: int) -> bool:
        """False for ``retry_after`` seconds after the side channel of ``address`` on
        ``port`` failed to connect."""
        entry = self._unreachable.get((address, port))
        return entry is None or time.monotonic() >= entry[1]

    def unreachable(self) -> Dict[Tuple[str, int], str]:
        """(address, bulk port) -> why, for every side channel whose last connection
        attempt failed."""
        with self._lock:
            return {k: why for k, (why, _) in self._unreachable.items()}

    def fetch(self, address: str, port: int, token: Optional[str], key: bytes, total: int,
              deadline: float, tls: Optional[ssl.SSLContext] = None) -> np.ndarray:
        """Fetches the parked response ``key`` of exactly ``total`` bytes from ``address``'s
        side channel on ``port``, into a fresh uint8 array.

        ``total`` must already be checked against the caller's size limit; ``tls``:
        the client context when the side channel carries TLS (see ``connect``).

        Raises:
          BulkUnavailable: the side channel cannot be used; nothing was fetched.
          AbortedError: the server does not have the response (expired or fetched).
          UnavailableError: the connection broke during the transfer.
          InvalidArgumentError: the server broke the protocol.
          TimeoutError: ``deadline`` passed.
        """
        host, _ = auth.split_address(address)
        endpoint = self._endpoint(address, host, port, token, tls)
        while True:
            closes = self._closes
            sock = self._checkout(endpoint)
            reused = sock is not None
            if sock is None:
                sock = self._connect(address, host, port, token, deadline, tls)
            try:
                out = _fetch_on(sock, key, total, deadline, reused, f"{host}:{port}",
                                self._reader(endpoint, sock))
            except _Stale:
                self._drop(sock)
                self._check_not_closed(closes, host, port)
                continue
            except errors.AbortedError:
                self._checkin(endpoint, sock)  # a clean "not found" leaves it usable
                raise
            except BaseException:
                self._drop(sock)
                raise
            self._checkin(endpoint, sock)
            return out

    def call(self, address: str, port: int, token: Optional[str], name: str,
             parts: Sequence[Buffer], total: int, deadline: float,
             max_reply: int, tls: Optional[ssl.SSLContext] = None) -> Tuple[int, np.ndarray]:
        """Calls ``name`` (``service/method``) with the encoded request ``parts`` of
        ``total`` bytes (at most ``MAX_CALL_REQUEST``) on ``address``'s side channel
        (over TLS with the client context ``tls``).

        Returns ``(STATUS_OK, reply frame)`` or ``(STATUS_ERROR, JSON error)``, each
        a fresh uint8 array. Waits for the reply until ``deadline`` as long as the
        server's heartbeats say it is working on it.

        Raises:
          BulkUnavailable: the side channel cannot be used; nothing was sent.
          UnavailableError: the connection broke, or the server went silent
            (frozen, or the network cut) for ``LIVENESS_TIMEOUT`` seconds.
          ResourceExhaustedError: the reply is bigger than ``max_reply``.
          InvalidArgumentError: the server broke the protocol.
          TimeoutError: ``deadline`` passed.
        """
        if not _NAME_RE.fullmatch(name) or len(name) > MAX_NAME_BYTES \
                or total > MAX_CALL_REQUEST:
            raise errors.InvalidArgumentError(
                None, None, f"cannot call {name!r} with {total} bytes over the side channel")
        raw = name.encode("ascii")
        host, _ = auth.split_address(address)
        endpoint = self._endpoint(address, host, port, token, tls)
        views = [memoryview(b""), memoryview(raw)]
        views.extend(memoryview(p).cast("B") for p in parts)
        stale = False
        while True:
            closes = self._closes
            sock = self._checkout(endpoint)
            reused = sock is not None
            if sock is None:
                try:
                    sock = self._connect(address, host, port, token, deadline, tls)
                except BulkUnavailable as e:
                    if not stale:
                        raise
                    # The server closed a pooled connection under this call and now
                    # refuses new ones: it is gone, and a fallback call over gRPC
                    # would only put that channel into reconnect backoff, failing
                    # the calls made once it is back.
                    raise errors.UnavailableError(
                        None, None, f"lost the bulk connection to {host}:{port}: {e}") from None
            reader = self._reader(endpoint, sock)
            kind = KIND_CALL if reader is None else KIND_CALL_LOCAL
            views[0] = memoryview(_CALL.pack(MAGIC, BULK_VERSION, kind, len(raw), 0, total, 0))
            try:
                out = _call_on(sock, list(views), deadline, max_reply, reused,
                               f"{host}:{port}", reader)
            except _Stale:
                self._drop(sock)
                self._check_not_closed(closes, host, port)
                stale = True
                continue
            except BaseException:
                # Timed out, broken or refused: its state is unknown, never reuse it.
                self._drop(sock)
                raise
            if out[0] == STATUS_OK:
                self._checkin(endpoint, sock)
            else:
                self._drop(sock)
            return out

    def _reader(self, endpoint: Endpoint, sock: socket.socket) -> Optional[LocalReader]:
        """How a reply on ``sock`` may be read from the server's memory, or None when
        this connection should not ask for that."""
        if not self._local_reads or endpoint in self._not_local or not local_read.wanted(sock):
            return None

        def read(conn: socket.socket, pid: int, parts: Sequence[Tuple[int, int]],
                 out: np.ndarray) -> bool:
            if self._peer_pids.get(conn) != pid:
                if not local_read.peer_is(conn, pid):
                    return self._refuse(endpoint, f"pid {pid} is not the peer of the connection")
                self._peer_pids[conn] = pid
            try:
                local_read.read(pid, parts, out)
            except OSError as e:
                return self._refuse(endpoint, f"reading pid {pid}'s memory failed: {e}")
            self.local_reads += 1
            return True
        return read

    def _refuse(self, endpoint: Endpoint, why: str) -> bool:
        with self._lock:
            first = endpoint not in self._not_local
            self._not_local.add(endpoint)
        if first:
            logger.info("big replies from %s:%d come over the socket: %s", endpoint[0],
                        endpoint[1], why)
        return False

    def _endpoint(self, address: str, host: str, port: int, token: Optional[str],
                  tls: Optional[ssl.SSLContext] = None) -> Endpoint:
        # Connections made with other credentials (or none) are never reused for these.
        ident = (token or "").encode("utf-8") + b"\0" + str(id(tls) if tls else "").encode()
        endpoint = (host, port, hashlib.sha256(ident).digest())
        with self._lock:
            self._endpoints.setdefault(address, set()).add(endpoint)
        return endpoint

    def _check_not_closed(self, closes: int, host: str, port: int) -> None:
        """A connection that close_all shut down looks like one the server closed
        while idle; the call must fail then, not go on over a new connection."""
        if self._closes != closes:
            raise errors.UnavailableError(
                None, None, f"lost the bulk connection to {host}:{port}: the connection "
                "pool was closed")

    def _connect(self, address: str, host: str, port: int, token: Optional[str],
                 deadline: float, tls: Optional[ssl.SSLContext] = None) -> socket.socket:
        try:
            sock = connect(host, port, token, deadline, tls)
        except BulkUnavailable as e:
            self._mark_unreachable(address, port, str(e))
            raise
        with self._lock:
            self._busy.add(sock)
        if (address, port) in self._unreachable:
            with self._lock:
                self._unreachable.pop((address, port), None)
            logger.info("the bulk side channel of %s is usable again", address)
        return sock

    def _mark_unreachable(self, address: str, port: int, reason: str) -> None:
        with self._lock:
            self._unreachable[(address, port)] = (reason, time.monotonic() + self._retry_after)
            first = (address, port) not in self._logged
            self._logged.add((address, port))
        # Loud once; a side channel that stays unreachable would otherwise log every retry.
        logger.log(logging.INFO if first else logging.DEBUG,
                   "the bulk side channel of %s is unusable (%s); its big replies and calls "
                   "go over gRPC for the next %g s", address, reason, self._retry_after)

    def _checkout(self, endpoint: Endpoint) -> Optional[socket.socket]:
        while True:
            with self._lock:
                idle = self._idle.get(endpoint)
                if not idle:
                    return None
                sock = idle.pop()
                self._busy.add(sock)
            if _alive(sock):
                return sock
            self._drop(sock)  # the server closed it (idle timeout, restart): try the next

    def _checkin(self, endpoint: Endpoint, sock: socket.socket) -> None:
        with self._lock:
            self._busy.discard(sock)
            idle = self._idle.setdefault(endpoint, [])
            if len(idle) < self._max_idle:
                idle.append(sock)
                return
        _close(sock)

    def _drop(self, sock: socket.socket) -> None:
        with self._lock:
            self._busy.discard(sock)
        _close(sock)

    def discard(self, address: str) -> None:
        """Closes the idle connections to the side channel of the server at ``address``
        (it stopped: they are dead, and would hold their descriptors until reused)."""
        with self._lock:
            endpoints = self._endpoints.pop(address, set())
            socks = [sock for endpoint in endpoints for sock in self._idle.pop(endpoint, [])]
        for sock in socks:
            _close(sock)

    def close_all(self) -> None:
        """Closes every idle connection, wakes the fetches and calls waiting on the
        others (they fail with UnavailableError), and forgets which side channels
        failed."""
        with self._lock:
            idle, self._idle = self._idle, {}
            busy = list(self._busy)
            self._endpoints.clear()
            self._unreachable.clear()
            self._logged.clear()
            self._closes += 1
        for socks in idle.values():
            for sock in socks:
                _close(sock)
        for sock in busy:
            # Only shut down: the thread waiting on it closes it, so its descriptor
            # cannot be reused under that thread.
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _lost(where: str, e: BaseException, during: str = "") -> errors.UnavailableError:
    if isinstance(e, _Silent):
        why = f"it sent nothing for {LIVENESS_TIMEOUT:g} s (frozen, or the network is cut)"
    else:
        why = str(e) or type(e).__name__
    return errors.UnavailableError(
        None, None, f"lost the bulk connection to {where}{during}: {why}")


def _fetch_on(sock: socket.socket, key: bytes, total: int, deadline: float, reused: bool,
              where: str, reader: Optional[LocalReader] = None) -> np.ndarray:
    kind = KIND_FETCH if reader is None else KIND_FETCH_LOCAL
    try:
        _send_all(sock, [memoryview(_REQUEST.pack(MAGIC, BULK_VERSION, kind, key))], deadline)
        magic, version, status, declared = _read(sock, _REPLY, deadline)
    except TimeoutError:
        raise
    except (_Eof, OSError) as e:
        # A pooled connection the server has just closed fails here before a
        # reply byte arrives; a fresh one takes its place.
        if reused and (isinstance(e, ConnectionError) or (isinstance(e, _Eof) and e.got == 0)):
            raise _Stale() from None
        raise _lost(where, e) from None
    if magic != MAGIC or version != BULK_VERSION:
        raise errors.InvalidArgumentError(
            None, None, f"malformed bulk reply from {where} (magic {magic!r}, version {version})")
    if status == STATUS_NOT_FOUND and declared == 0:
        raise errors.AbortedError(
            None, None, f"the response was not found on {where}: it expired or was already "
            "fetched")
    by_memory = status == STATUS_LOCAL and reader is not None
    if (status != STATUS_OK and not by_memory) or declared != total:
        raise errors.InvalidArgumentError(
            None, None, f"malformed bulk reply from {where}: status {status}, {declared} bytes "
            f"where the response handle announced {total}")
    return _receive(sock, total, deadline, None, where, reader if by_memory else None)


def _receive(sock: socket.socket, total: int, deadline: float, stall: Optional[float],
             where: str, reader: Optional[LocalReader]) -> np.ndarray:
    """The ``total`` bytes of a reply whose head was read (and checked against the
    caller's limit): from the socket, or with ``reader`` (a reply by memory) from the
    server's memory, or from the socket after all when that cannot be read."""
    out = buffers.take(total)  # reused memory: no page faults for a recurring size
    try:
        if reader is not None:
            pid, count, zero = _read(sock, local_read.LOCAL_HEAD, deadline, stall=stall)
            if zero or not 0 < count <= local_read.MAX_PARTS:
                raise errors.InvalidArgumentError(
                    None, None, f"malformed bulk reply from {where}: a reply by memory "
                    f"in {count} parts")
            raw = bytearray(count * local_read.LOCAL_PART.size)
            _recv_exact(sock, memoryview(raw), deadline, stall=stall)
            try:
                parts = local_read.parse_parts(bytes(raw), count, total)
            except ValueError as e:
                raise errors.InvalidArgumentError(
                    None, None, f"malformed bulk reply from {where}: {e}") from None
            done = reader(sock, pid, parts, out)
            _send_all(sock, [memoryview(_REPLY.pack(MAGIC, BULK_VERSION,
                                                    ANSWER_READ if done else ANSWER_SEND, 0))],
                      deadline)
            if done:
                return out
        _recv_exact(sock, memoryview(out), deadline, stall=stall)
    except TimeoutError:
        raise
    except (_Eof, _Silent, OSError) as e:
        raise _lost(where, e, f" during a {total}-byte reply") from None
    return out


def _call_on(sock: socket.socket, views: List[memoryview], deadline: float, max_reply: int,
             reused: bool, where: str,
             reader: Optional[LocalReader] = None) -> Tuple[int, np.ndarray]:
    sent_at = time.monotonic()
    beats = 0
    try:
        _send_all(sock, views, deadline)
        while True:
            magic, version, status, declared = _read(sock, _REPLY, deadline,
                                                     stall=LIVENESS_TIMEOUT)
            if magic == MAGIC and version == BULK_VERSION and status == STATUS_PENDING \
                    and declared == 0:
                beats += 1  # the handler is still running (a long-poll, say)
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the deadline passed after {beats} heartbeats")
                continue
            break
    except TimeoutError:
        raise
    except (_Eof, _Silent, OSError) as e:
        # A pooled connection the server closed as idle just before this call
        # fails at once, before any heartbeat: the call never ran, so it is
        # safe to make it again on a fresh connection.
        early = not beats and time.monotonic() - sent_at < HEARTBEAT_INTERVAL
        if reused and early and (isinstance(e, ConnectionError)
                                 or (isinstance(e, _Eof) and e.got == 0)):
            raise _Stale() from None
        raise _lost(where, e) from None
    by_memory = status == STATUS_LOCAL and reader is not None
    if magic != MAGIC or version != BULK_VERSION or \
            (status not in (STATUS_OK, STATUS_ERROR) and not by_memory):
        raise errors.InvalidArgumentError(
            None, None, f"malformed bulk reply from {where} (magic {magic!r}, version "
            f"{version}, status {status})")
    if status != STATUS_ERROR and declared > max_reply:
        raise errors.ResourceExhaustedError(
            None, None, f"a message of {declared} bytes exceeds this client's limit of "
            f"{max_reply} bytes (max_message_bytes)")
    if status != STATUS_ERROR:
        # A reply lands in a message buffer: its tensors reach the user without a copy.
        return STATUS_OK, _receive(sock, declared, deadline, LIVENESS_TIMEOUT, where,
                                   reader if by_memory else None)
    if declared > MAX_ERROR_PAYLOAD:
        raise errors.InvalidArgumentError(
            None, None, f"malformed bulk reply from {where}: an error of {declared} bytes")
    out = np.empty(declared, np.uint8)
    try:
        _recv_exact(sock, memoryview(out), deadline, stall=LIVENESS_TIMEOUT)
    except TimeoutError:
        raise
    except (_Eof, _Silent, OSError) as e:
        raise _lost(where, e, f" during a {declared}-byte reply") from None
    return status, out


def pool() -> BulkPool:
    """The process's side-channel connections (a ``ProcessRuntime`` component)."""
    return process.current().component("transport.bulk_pool", BulkPool, BulkPool.close_all)


def __getattr__(name: str) -> object:
    # ``bulk_client.POOL`` still names the current runtime's pool.
    if name == "POOL":
        return pool()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")



__all__ = ["BulkPool", "pool", "connect", "tls_handshake"]
