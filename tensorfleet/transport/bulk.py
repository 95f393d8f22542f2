"""A raw-TCP side channel beside gRPC: big replies, and calls of chosen methods.

Why: gRPC Python hands every received message to Python as a fresh ``bytes``
and copies it again into place, which caps a big reply near 0.7-0.9 GB/s
between two processes; a plain socket that receives straight into a
preallocated numpy buffer (``recv_into`` with ``MSG_WAITALL``, which releases
the GIL) moves two to four times that, depending on the machine, at half the
CPU. A unary gRPC call also costs about half a millisecond of latency and of
CPU even when tiny. gRPC stays the control path; the side channel carries

* *parked replies*: a big reply is parked on the server as one contiguous
  snapshot and the unary reply is a small handle naming it (see ``rpc``); the
  client redeems the handle here, or with gRPC's ``_Fetch`` when this channel
  cannot be used;
* *calls* of the methods a service allows (the calls every step makes:
  RunStep, RunGraph, RecvTensor), sent here whole instead of over gRPC, as
  TensorFlow's "grpc+verbs" moves RecvTensor off gRPC and keeps it for control.

Protocol, all integers little-endian::

    client -> server  hello      magic b"TFLB" | version u16 | flags u16 | client nonce 16
    server -> client  challenge  magic | version | flags | server nonce 16 | server MAC 32
    client -> server  proof      magic | version | flags | client MAC 32
    server -> client  verdict    magic | version | status u16 (0 accepted, 1 refused)
    then, any number of times, one of:
    client -> server  fetch      magic | version | kind 0 u16 | response key 16
    client -> server  call       magic | version | kind 1 u16 | name length u16 | 0 u16 |
                                 request length u32 | 0 u64, then the name
                                 (``service/method``, ASCII), then a ``wire`` frame
    and its answer:
    server -> client  reply      magic | version | status u16 | total u64, then total bytes

Kinds 2 and 3 are a fetch and a call whose client, on the same host, can read a
big reply from the server's memory (``local_read``). The server may then answer
with status 4 and, in place of the bytes, where they lie: its pid | part count
u32 | 0 u32, then per part address u64 | length u64. The client reads them and
answers with magic | version | 0 u16 | 0 u64 (read: the server lets go of the
reply) or 1 (could not: the server sends the total bytes over the socket now).

A fetch is answered with status 0 (the parked bytes) or 1 (not found). A call
is answered with status 0 (the encoded reply message) or 2 (a JSON error:
code, message, node, task); while its handler runs, the server sends a reply
head of status 3 and total 0 every ``HEARTBEAT_INTERVAL`` seconds, so that a
client waiting on a long-poll notices within ``LIVENESS_TIMEOUT`` a server
that froze or a network that was cut (TCP keepalive cannot see a frozen
process: its kernel still answers), as gRPC's HTTP/2 pings do.

The handshake is the one of every raw connection (``handshake``): HMAC-SHA256
under the cluster token over one transcript of both nonces and the side's role,
so each side proves it holds the token, the token never travels and a recorded
handshake cannot be replayed. A server without a token (loopback only) runs
the same handshake with an empty key.
With TLS (``auth.server_credentials`` / ``auth.channel_credentials``) every
connection first runs a TLS handshake with the same certificates as gRPC
(mutual when gRPC's is), and everything above, the token handshake included,
travels inside it; a peer without TLS, or whose certificate does not verify,
never gets to the token handshake.

Every byte read here is untrusted: each message is checked field by field,
sizes are checked against limits (a parked reply's total against the size the
handle announced, a call request against ``MAX_CALL_REQUEST``, a call reply
against the client's ``max_message_bytes``) before anything is allocated, and
a malformed request closes that one connection. A connection must finish its
handshake within ``HANDSHAKE_TIMEOUT``, and strangers in their handshake never
take the place of authenticated clients (``BulkListener``; ``limits``).
"""

from __future__ import annotations

import logging
import os
import re
import socket
import ssl
import struct
import threading
import time
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple, Union

import numpy as np

from tensorfleet.transport import handshake, limits, local_read
# The socket primitives live in sockio; bulk_client takes them from here.
from tensorfleet.transport.sockio import (  # noqa: F401
    KEEPALIVE_COUNT, KEEPALIVE_IDLE, KEEPALIVE_INTERVAL, POLL_SLICE, USER_TIMEOUT_MS, _Eof,
    _Silent, _Stopped, _close, _configure, _read, _recv_exact, _send_all, consume,
    peer_open, tls_handshake)

logger = logging.getLogger(__name__)

BULK_ENV = "TENSORFLEET_BULK"
BULK_VERSION = 3
PROTOCOL = "tensorfleet.bulk"
MAGIC = b"TFLB"
NONCE_BYTES = handshake.NONCE_BYTES
# The same for the listener's connections: longer, because an idle pooled connection
# would otherwise cost its thread ten wakeups a second, and stop() wakes them anyway.
SERVER_SLICE = 1.0
# A connection must prove it holds the token within this (limits).
HANDSHAKE_TIMEOUT = limits.HANDSHAKE_TIMEOUT_SECS
# Short: on a LAN a connect takes well under a millisecond, and a firewall that
# drops packets must not stall the first big reply for long before the fallback.
CONNECT_TIMEOUT = 2.0
IDLE_TIMEOUT = 300.0
# A client that reads nothing of a reply for this long is dropped.
SEND_STALL_TIMEOUT = 60.0
# Authenticated connections; a low descriptor limit lowers it (limits.connection_caps).
MAX_CONNECTIONS = limits.MAX_BULK_CONNECTIONS
MAX_IDLE_PER_ENDPOINT = 8
# Bigger call requests (a step that feeds a big batch) go over gRPC.
MAX_CALL_REQUEST = 1 << 20
MAX_NAME_BYTES = 256
MAX_ERROR_PAYLOAD = 64 << 10
# The whole request of a call must arrive within this once its head has.
REQUEST_TIMEOUT = 30.0
# While a handler runs, the server says so this often; a client that hears nothing
# for LIVENESS_TIMEOUT takes the server for frozen or cut off (gRPC: 2 s + 3 s).
HEARTBEAT_INTERVAL = 1.0
LIVENESS_TIMEOUT = 5.0
# A side channel that could not be reached is tried again after this long, so a
# server that was frozen or partitioned gets its fast path back.
RETRY_AFTER = 30.0

KIND_FETCH = 0
KIND_CALL = 1
# The same, from a client that can read a big reply from this process's memory.
KIND_FETCH_LOCAL = 2
KIND_CALL_LOCAL = 3
STATUS_OK = 0
STATUS_NOT_FOUND = 1
STATUS_ERROR = 2
STATUS_PENDING = 3
STATUS_LOCAL = 4
# The client's answer to a STATUS_LOCAL reply.
ANSWER_READ = 0
ANSWER_SEND = 1
VERDICT_ACCEPTED = 0
VERDICT_REFUSED = 1

_HELLO = struct.Struct("<4sHH16s")
_CHALLENGE = struct.Struct("<4sHH16s32s")
_PROOF = struct.Struct("<4sHH32s")
_VERDICT = struct.Struct("<4sHH")
_REQUEST = struct.Struct("<4sHH16s")
_CALL = struct.Struct("<4sHHHHIQ")
_REPLY = struct.Struct("<4sHHQ")
_HEARTBEAT = _REPLY.pack(MAGIC, BULK_VERSION, STATUS_PENDING, 0)
_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_.]*/[A-Za-z][A-Za-z0-9_]*")

Endpoint = Tuple[str, int, bytes]
Buffer = Union[bytes, bytearray, memoryview, np.ndarray]
# (full method name, request frame) -> (STATUS_OK or STATUS_ERROR, reply parts, total bytes)
CallHandler = Callable[[str, memoryview], Tuple[int, Sequence[Buffer], int]]


def enabled() -> bool:
    """Whether the side channel may be used (``TENSORFLEET_BULK=0`` turns it off)."""
    return os.environ.get(BULK_ENV, "1").strip() != "0"


class BulkUnavailable(Exception):
    """The side channel of a server cannot be used (unreachable, or the handshake failed)."""


def transcript(client_nonce: bytes, server_nonce: bytes) -> bytes:
    """What both MACs of a side-channel handshake cover (``handshake.transcript``)."""
    return handshake.transcript(PROTOCOL, BULK_VERSION, (), client_nonce, server_nonce)


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


class _Busy:
    """A connection whose call handler is running: when its next heartbeat is due,
    and the socket to send it on (the TLS layer of the connection, if any)."""

    __slots__ = ("lock", "due", "conn")

    def __init__(self, due: float, conn: socket.socket):
        # Held while a heartbeat is being sent, so the reply never starts inside one.
        self.lock = threading.Lock()
        self.due = due
        self.conn = conn


class BulkListener:
    """Serves parked responses, and calls of allowed methods, over authenticated TCP.

    Each connection has one thread, which also runs the handlers of the calls
    made on it. At most ``max_connections`` authenticated connections and
    ``max_handshakes`` connections still in their handshake are held at once;
    a handshake must end within ``HANDSHAKE_TIMEOUT``. When the handshakes are
    full, a new connection displaces the oldest one: silent or slow strangers
    never keep a real client out, as a client's handshake takes milliseconds.

    Args:
      host: the host to bind (the RPC server's own host); the port is ephemeral.
      token: cluster token; None means none (the handshake then uses an empty key).
      take: pops the parked response of a 16-byte key (a contiguous uint8 array),
        or returns None for an unknown or expired key.
      call: serves a call: ``call(name, frame) -> (status, parts, total)`` with
        ``name`` the checked ``service/method`` and ``frame`` the request; the
        status is ``STATUS_OK`` (parts: the reply message) or ``STATUS_ERROR``
        (parts: the JSON error). It decides which methods may be called, and must
        not raise (an exception closes the connection). None refuses every call.
      max_connections: authenticated connections served at once; more are closed
        on accept. None: ``limits.connection_caps`` (from the descriptor limit).
      max_handshakes: connections in their handshake at once.
      idle_timeout: an authenticated connection with no request for this long is closed.
      max_call_request: the largest call request (name and frame) accepted.
      tls: a server ``ssl`` context (``auth.side_channel_tls``): every connection
        then carries TLS, and one that does not complete a TLS handshake is refused.
      local_replies: whether a client on this host that asks for it may read a big
        reply from this process's memory (``local_read``) instead of the socket.
    """

    def __init__(self, host: str, token: Optional[str],
                 take: Callable[[bytes], Optional[np.ndarray]], *,
                 call: Optional[CallHandler] = None,
                 max_connections: Optional[int] = None,
                 max_handshakes: int = limits.MAX_BULK_HANDSHAKES,
                 idle_timeout: float = IDLE_TIMEOUT,
                 max_call_request: int = MAX_CALL_REQUEST,
                 tls: Optional[ssl.SSLContext] = None, local_replies: bool = True):
        self._host = host
        self._tls = tls
        self._local_replies = bool(local_replies) and tls is None
        self._key = (token or "").encode("utf-8")
        self._take = take
        self._call = call
        self._max_connections = int(max_connections if max_connections is not None
                                    else limits.connection_caps()[1])
        self._max_handshakes = max(1, int(max_handshakes))
        self._idle_timeout = float(idle_timeout)
        self._max_call_request = int(max_call_request)
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._conns: Dict[socket.socket, threading.Thread] = {}
        self._busy: Dict[socket.socket, _Busy] = {}
        # In arrival order, so the oldest is the one displaced.
        self._handshaking: Dict[socket.socket, None] = {}
        self._authenticated: Set[socket.socket] = set()
        self._refusals = limits.RefusalLog(logger)
        self._sock: Optional[socket.socket] = None
        self._threads: List[threading.Thread] = []
        self._port = 0
        self._stats = {"accepted": 0, "refused": 0, "bad_requests": 0, "served": 0,
                       "bytes_served": 0, "not_found": 0, "calls": 0, "call_errors": 0,
                       "call_bytes": 0, "local_reads": 0, "local_refused": 0}

    @property
    def port(self) -> int:
        """The bound port (0 before ``start``); kept after ``stop``."""
        return self._port

    @property
    def stats(self) -> Dict[str, int]:
        """Counters: connections accepted and refused, bad requests, parked responses
        served (counted as their sending starts) and keys not found; calls answered,
        those answered with an error, and the reply bytes of calls; replies its
        clients read from this process's memory, and those they could not read."""
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
        self._threads = [
            threading.Thread(target=self._accept_loop, daemon=True,
                             name=f"tf-bulk-accept-{self._port}"),
            threading.Thread(target=self._heartbeat_loop, daemon=True,
                             name=f"tf-bulk-beat-{self._port}")]
        for thread in self._threads:
            thread.start()
        logger.debug("bulk side channel listening on port %d", self._port)
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stops accepting, closes every connection and waits for the threads to end.

        A thread running a call's handler is not waited for (as gRPC does not wait
        for its handlers): its client has already seen the connection close, and
        the handler's reply goes nowhere.
        """
        self._stopping.set()
        for thread in self._threads:
            thread.join(timeout)
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
        for sock, thread in conns:
            with self._lock:
                busy = sock in self._busy
            if not busy:
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
                self._refusals.refused("-", f"bulk side channel: accept failed: {e}")
                time.sleep(POLL_SLICE)
                continue
            with self._lock:
                refuse = len(self._authenticated) >= self._max_connections \
                    or self._stopping.is_set()
                if not refuse:
                    if len(self._handshaking) >= self._max_handshakes:
                        oldest = next(iter(self._handshaking))
                        del self._handshaking[oldest]
                        # Under the lock: its thread closes it only after leaving
                        # _handshaking, so this never hits a reused descriptor.
                        _shutdown(oldest)
                    thread = threading.Thread(target=self._serve, args=(sock, peer),
                                              daemon=True, name=f"tf-bulk-conn-{self._port}")
                    self._conns[sock] = thread
                    self._handshaking[sock] = None
                    self._stats["accepted"] += 1
            if refuse:
                self._count("refused")
                if not self._stopping.is_set():
                    self._refusals.refused(
                        str(peer), f"bulk side channel: closed a connection from {peer} "
                        f"({self._max_connections} connections open)")
                _close(sock)
                continue
            thread.start()

    def _heartbeat_loop(self) -> None:
        while not self._stopping.wait(HEARTBEAT_INTERVAL / 4):
            now = time.monotonic()
            with self._lock:
                due = [(s, b) for s, b in self._busy.items() if b.due <= now]
            for sock, busy in due:
                # Never wait: the connection's thread holds the lock only to finish the call.
                if not busy.lock.acquire(blocking=False):
                    continue
                try:
                    with self._lock:
                        current = self._busy.get(sock) is busy
                    if current:
                        busy.due = now + HEARTBEAT_INTERVAL
                        _heartbeat(busy.conn)
                finally:
                    busy.lock.release()

    def _serve(self, sock: socket.socket, peer: object) -> None:
        authenticated = False
        # ``sock`` stays the raw connection, which the bookkeeping (displacement,
        # stop) shuts down; ``conn`` is what the protocol talks over: a TLS layer on
        # a duplicate of its descriptor, or ``sock`` itself.
        conn = sock
        try:
            _configure(sock, min(SERVER_SLICE, self._idle_timeout))
            if self._tls is not None:
                conn = self._tls.wrap_socket(sock.dup(), server_side=True,
                                             do_handshake_on_connect=False)
                tls_handshake(conn, time.monotonic() + HANDSHAKE_TIMEOUT)
            authenticated = self._handshake(conn, peer) and self._admit(sock, peer)
            if authenticated:
                self._serve_requests(conn, sock, peer)
        except _Stopped:
            pass
        except (OSError, EOFError) as e:
            if not authenticated:
                # Also what a client that found this listener's proof wrong does: hang up.
                self._count("refused")
            # TimeoutError is an OSError: an idle or stalled client; nothing to report.
            logger.debug("bulk side channel: connection from %s ended: %s", peer, e)
        finally:
            with self._lock:
                self._handshaking.pop(sock, None)
                self._authenticated.discard(sock)
                self._busy.pop(sock, None)
            _close(sock)
            if conn is not sock:
                conn.close()
            with self._lock:
                self._conns.pop(sock, None)

    def _admit(self, sock: socket.socket, peer: object) -> bool:
        """Moves a connection that passed the handshake among the authenticated ones,
        if there is room; False if it was displaced meanwhile or there is none."""
        with self._lock:
            if sock not in self._handshaking:
                return False
            del self._handshaking[sock]
            full = len(self._authenticated) >= self._max_connections
            if not full:
                self._authenticated.add(sock)
        if full:
            self._refusals.refused(str(peer), f"bulk side channel: closed a connection from "
                                   f"{peer} ({self._max_connections} connections open)")
        return not full

    def _handshake(self, sock: socket.socket, peer: object) -> bool:
        deadline = time.monotonic() + HANDSHAKE_TIMEOUT
        magic, version, flags, client_nonce = _read(sock, _HELLO, deadline, self._stopping)
        if magic != MAGIC or version != BULK_VERSION or flags:
            self._count("refused")
            self._refusals.refused(str(peer), f"bulk side channel: {peer} is not a tensorfleet "
                                   f"bulk client of this release (magic {magic!r}, version "
                                   f"{version}); closed")
            return False
        server_nonce = handshake.new_nonce()
        text = transcript(client_nonce, server_nonce)
        mac = handshake.mac(self._key, handshake.ROLE_ACCEPTOR, text)
        _send_all(sock, [memoryview(_CHALLENGE.pack(MAGIC, BULK_VERSION, 0, server_nonce, mac))],
                  deadline, self._stopping)
        magic, version, flags, proof = _read(sock, _PROOF, deadline, self._stopping)
        ok = magic == MAGIC and version == BULK_VERSION and not flags \
            and handshake.verify(self._key, handshake.ROLE_CONNECTOR, text, proof)
        verdict = VERDICT_ACCEPTED if ok else VERDICT_REFUSED
        _send_all(sock, [memoryview(_VERDICT.pack(MAGIC, BULK_VERSION, verdict))], deadline,
                  self._stopping)
        if not ok:
            self._count("refused")
            self._refusals.refused(str(peer), f"bulk side channel: rejected {peer}: invalid "
                                   "cluster token")
        return ok

    def _bad_request(self, peer: object, why: str) -> None:
        self._count("bad_requests")
        logger.warning("bulk side channel: malformed request from %s (%s); closed", peer, why)

    def _serve_requests(self, sock: socket.socket, raw: socket.socket, peer: object) -> None:
        head = bytearray(_REQUEST.size)  # == _CALL.size: one read serves both kinds
        while True:
            try:
                _recv_exact(sock, memoryview(head), time.monotonic() + self._idle_timeout,
                            self._stopping)
            except _Eof as e:
                if e.got:
                    raise
                return  # the client closed an idle connection: the normal end
            magic, version, kind, key = _REQUEST.unpack(head)
            if magic != MAGIC or version != BULK_VERSION:
                return self._bad_request(peer, f"magic {bytes(magic)!r}, version {version}")
            local = kind in (KIND_FETCH_LOCAL, KIND_CALL_LOCAL)
            if kind in (KIND_FETCH, KIND_FETCH_LOCAL):
                if not self._serve_fetch(sock, bytes(key), local, peer):
                    return
            elif kind in (KIND_CALL, KIND_CALL_LOCAL) and self._call is not None:
                if not self._serve_call(sock, raw, peer, head, local):
                    return
            else:
                return self._bad_request(peer, f"kind {kind}")

    def _serve_fetch(self, sock: socket.socket, key: bytes, local: bool, peer: object) -> bool:
        buf = self._take(key)
        status, total = (STATUS_NOT_FOUND, 0) if buf is None else (STATUS_OK, buf.nbytes)
        with self._lock:
            # Counted before sending, so a client that has its reply sees the count.
            self._stats["not_found" if buf is None else "served"] += 1
            self._stats["bytes_served"] += total
        return self._reply(sock, status, [] if buf is None else [buf], total, local, peer)

    def _reply(self, sock: socket.socket, status: int, parts: Sequence[Buffer], total: int,
               local: bool, peer: object) -> bool:
        """Sends a reply: its bytes, or where they lie in this process's memory when
        its client asked for that (``local``); False when the connection must close."""
        views = [memoryview(p).cast("B") for p in parts]
        described: List[bytes] = []
        if local and self._local_replies and status == STATUS_OK \
                and total >= local_read.LOCAL_MIN_BYTES and local_read.supported():
            described = local_read.describe(os.getpid(), views)
        if not described or len(described) - 1 > local_read.MAX_PARTS:
            _send_all(sock, [memoryview(_REPLY.pack(MAGIC, BULK_VERSION, status, total))] + views,
                      float("inf"), self._stopping, SEND_STALL_TIMEOUT)
            return True
        _send_all(sock, [memoryview(_REPLY.pack(MAGIC, BULK_VERSION, STATUS_LOCAL, total))]
                  + [memoryview(d) for d in described], float("inf"), self._stopping,
                  SEND_STALL_TIMEOUT)
        # ``views`` keep the reply alive (and its memory where it was described) until
        # the client says it has read it.
        magic, version, answer, zero = _read(sock, _REPLY, time.monotonic() + SEND_STALL_TIMEOUT,
                                             self._stopping)
        if magic != MAGIC or version != BULK_VERSION or zero \
                or answer not in (ANSWER_READ, ANSWER_SEND):
            self._bad_request(peer, "bad answer to a reply by memory")
            return False
        self._count("local_reads" if answer == ANSWER_READ else "local_refused")
        if answer == ANSWER_SEND:
            _send_all(sock, views, float("inf"), self._stopping, SEND_STALL_TIMEOUT)
        return True

    def _serve_call(self, sock: socket.socket, raw: socket.socket, peer: object,
                    head: bytearray, local: bool) -> bool:
        """Reads, runs and answers one call; False when the connection must close."""
        _, _, _, name_len, reserved, length, reserved2 = _CALL.unpack(head)
        if reserved or reserved2 or not 0 < name_len <= MAX_NAME_BYTES:
            self._bad_request(peer, "bad call head")
            return False
        if length > self._max_call_request:
            self._bad_request(peer, f"a call request of {length} bytes, over the limit of "
                              f"{self._max_call_request}")
            return False
        buf = np.empty(name_len + length, dtype=np.uint8)
        _recv_exact(sock, memoryview(buf), time.monotonic() + REQUEST_TIMEOUT, self._stopping)
        name = buf[:name_len].tobytes().decode("ascii", "replace")
        if not _NAME_RE.fullmatch(name):
            self._bad_request(peer, "bad method name")
            return False
        if self._stopping.is_set():
            return False  # not started: its client sees the close and retries elsewhere
        busy = _Busy(time.monotonic() + HEARTBEAT_INTERVAL, sock)
        with self._lock:
            self._busy[raw] = busy
        # The handler's waits end when the client hangs up (limits.CallScope).
        scope = limits.CallScope(None, lambda: peer_open(raw))
        try:
            with limits.serving(scope):
                status, parts, total = self._call(name, memoryview(buf)[name_len:])
        except Exception:  # noqa: BLE001 - the contract says it does not raise; stay up anyway
            logger.exception("bulk side channel: the call handler of %s failed", name)
            return False
        finally:
            with busy.lock:
                with self._lock:
                    self._busy.pop(raw, None)
        with self._lock:
            self._stats["calls"] += 1
            self._stats["call_errors"] += status != STATUS_OK
            self._stats["call_bytes"] += total
        # Sent (or read) from the handler's own arrays (no copy): a method allowed here
        # must reply with tensors that nothing of their step updates meanwhile
        # (protocol.BULK_METHODS); a variable that RecvTensor hands over may still
        # change under a concurrent step (distributed/variable_sends.py).
        return self._reply(sock, status, parts, total, local, peer)


def _shutdown(sock: socket.socket) -> None:
    """Wakes the thread blocked on ``sock`` with an end of stream; it closes ``sock``."""
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def _heartbeat(sock: socket.socket) -> None:
    """Sends one heartbeat without blocking; one that does not fit is skipped."""
    if isinstance(sock, ssl.SSLSocket):
        # A TLS record cannot be sent in part and skipped: within a second, or never.
        try:
            _send_all(sock, [memoryview(_HEARTBEAT)], time.monotonic() + 1.0)
        except OSError:
            _shutdown(sock)
        return
    try:
        sent = sock.send(_HEARTBEAT, getattr(socket, "MSG_DONTWAIT", 0))
    except OSError:
        return  # full (the client reads nothing anyway) or broken: its thread finds out
    if sent < len(_HEARTBEAT):
        # Half a head would corrupt the stream: finish it, or end the connection.
        try:
            _send_all(sock, [memoryview(_HEARTBEAT)[sent:]], time.monotonic() + 1.0)
        except OSError:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


__all__ = [
    "ANSWER_READ", "ANSWER_SEND", "BULK_ENV", "BULK_VERSION", "BulkListener", "BulkUnavailable",
    "CallHandler",
    "HEARTBEAT_INTERVAL", "LIVENESS_TIMEOUT", "MAX_CALL_REQUEST", "RETRY_AFTER",
    "STATUS_ERROR", "STATUS_LOCAL", "STATUS_OK", "consume", "enabled",
]
