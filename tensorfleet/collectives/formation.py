"""How the ranks of a collective group connect: the authenticated handshake.

Each pair of ranks gets one TCP connection: the higher rank connects, the lower
accepts. Both prove they hold the cluster token with the handshake of every
raw connection (``transport.handshake``): HMAC-SHA256 over one transcript of two
fresh nonces, with the group's name and size and both ranks as its context, so
the token never travels and a recorded handshake cannot be replayed::

    connector -> acceptor   hello   {proto, version, group, size, rank, to, nonce}
    acceptor  -> connector  {nonce, mac}     (or {refused: why} for a hello that does not fit)
    connector -> acceptor   {mac}
    acceptor  -> connector  {ok: true | false}

A rank's port is reachable before anyone has authenticated, so the acceptor
expects strangers. It is one thread multiplexing non-blocking sockets: any
number of connections may be silent or slow at once while a real rank's
handshake goes on beside them. Each connection has one deadline for its whole
handshake (``HANDSHAKE_TIMEOUT``), however it trickles its bytes; at most
``MAX_PENDING`` are held, and a newcomer pushes out the oldest that has not
sent a valid hello. Every field of a hello is checked for type, range and size
before it is used; a bad one closes that connection with a warning naming the
field and the peer address (at most ``LOG_BURST`` lines per ``LOG_INTERVAL``,
the rest counted).

The connecting rank retries, with a backoff of at most ``MAX_RETRY_DELAY``,
until the group's formation deadline: a peer that does not listen yet, a port
that accepts but does not answer (a hung previous process), a reset, a refused
hello. Only a token mismatch ends it at once, since no retry can fix that.
"""

from __future__ import annotations

import collections
import errno
import hmac
import logging
import random
import selectors
import socket
import struct
import threading
import time
from typing import Any, Callable, Dict, Optional, Set, Tuple

from tensorfleet import errors
from tensorfleet.transport import auth, handshake, wire

logger = logging.getLogger(__name__)

PROTOCOL = "tensorfleet.collective"
PROTOCOL_VERSION = 2
# Deadline for one whole handshake, from accept (or connect) to the last frame.
HANDSHAKE_TIMEOUT = 10.0
MAX_PENDING = 128
LISTEN_BACKLOG = 1024
MAX_RETRY_DELAY = 1.0
LOG_BURST = 5
LOG_INTERVAL = 10.0
NONCE_HEX = 2 * handshake.NONCE_BYTES
MAC_HEX = 2 * handshake.MAC_BYTES
MAX_REPLY_BYTES = 4096
HELLO_FIELDS = frozenset(("proto", "version", "group", "size", "rank", "to", "nonce"))

_PREFIX = struct.Struct("<4sHHII")
_HEX = frozenset("0123456789abcdef")
_FD_ERRNOS = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


def mac(key: bytes, role: str, text: bytes) -> str:
    """``role``'s proof over a transcript (``handshake.mac``), as hex for a control frame."""
    return handshake.mac(key, role, text).hex()


def transcript(name: str, size: int, connector: int, acceptor: int, cn: str, sn: str) -> bytes:
    """What both sides' MACs cover: the shared handshake transcript of this protocol, with
    the group, its size, both ranks and both nonces (hex, as the frames carry them)."""
    return handshake.transcript(PROTOCOL, PROTOCOL_VERSION, (name, size, connector, acceptor),
                                bytes.fromhex(cn), bytes.fromhex(sn))


def hello_limit(name: str) -> int:
    """The largest hello frame a group called ``name`` accepts, in header bytes."""
    # JSON escapes a control character as six bytes; nothing else grows more.
    return 1024 + 6 * len(name.encode("utf-8"))


def _show(value: Any) -> str:
    """A short description of an untrusted value, for messages."""
    text = repr(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{type(value).__name__} {text}"


def _bad(field: str, want: str, value: Any) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(
        None, None, f"hello field {field!r} must be {want}, got {_show(value)}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_hex(value: Any, length: int) -> bool:
    return isinstance(value, str) and len(value) == length and set(value) <= _HEX


def check_hello(hello: Dict[str, Any], name: str, size: int, rank: int) -> Tuple[int, str]:
    """The connecting rank and its nonce from a hello sent to ``rank`` of group ``name``.

    Raises:
      InvalidArgumentError: a field is missing, unexpected, of the wrong type, out
        of range or does not match this group; the message names the field.
      FailedPreconditionError: the peer speaks another protocol or version.
    """
    keys = set(hello)
    if keys != HELLO_FIELDS:
        extra = sorted(str(k)[:32] for k in keys - HELLO_FIELDS)[:5]
        missing = sorted(HELLO_FIELDS - keys)
        parts = ([f"unexpected fields {extra}"] if extra else []) + \
            ([f"no field {', '.join(repr(m) for m in missing)}"] if missing else [])
        raise errors.InvalidArgumentError(None, None, f"hello has {' and '.join(parts)}")
    proto, version = hello["proto"], hello["version"]
    if proto != PROTOCOL or not _is_int(version) or version != PROTOCOL_VERSION:
        raise errors.FailedPreconditionError(
            None, None, f"peer speaks {_show(proto)} version {_show(version)}, this rank "
            f"{PROTOCOL} version {PROTOCOL_VERSION}")
    if not isinstance(hello["group"], str) or hello["group"] != name:
        raise _bad("group", f"this group's name {name!r}", hello["group"])
    if not _is_int(hello["size"]) or hello["size"] != size:
        raise _bad("size", f"the group size {size}", hello["size"])
    if not _is_int(hello["to"]) or hello["to"] != rank:
        raise _bad("to", f"this rank, {rank}", hello["to"])
    peer = hello["rank"]
    if not _is_int(peer) or not rank < peer < size:
        want = (f"{rank + 1}, the only rank that connects to rank {rank}" if rank + 2 == size
                else f"an integer in {rank + 1}..{size - 1}, the ranks that connect to rank "
                f"{rank}")
        raise _bad("rank", want, peer)
    if not _is_hex(hello["nonce"], NONCE_HEX):
        raise _bad("nonce", f"{NONCE_HEX} lowercase hex digits", hello["nonce"])
    return peer, hello["nonce"]


class FrameReader:
    """Collects one control frame (a header, no tensors) from exactly the bytes it needs.

    It never asks for a byte past the frame, so the data that follows a
    handshake stays in the socket for its real reader.
    """

    def __init__(self, limit: int):
        self._limit = limit
        self._buf = bytearray()
        self._need = wire.PREFIX_BYTES
        self._prefixed = False

    def want(self) -> int:
        """How many more bytes the current frame needs."""
        return self._need - len(self._buf)

    def feed(self, data: bytes) -> Optional[Dict[str, Any]]:
        """Adds received bytes; returns the header once the frame is complete.

        Raises:
          InvalidArgumentError: not a control frame, or one larger than the limit.
        """
        self._buf += data
        if len(self._buf) < self._need:
            return None
        if not self._prefixed:
            magic, _, _, header_len, count = _PREFIX.unpack(bytes(self._buf[:_PREFIX.size]))
            if magic != wire.MAGIC or count:
                raise errors.InvalidArgumentError(
                    None, None, "the peer did not send a tensorfleet control frame")
            if header_len > self._limit:
                raise errors.InvalidArgumentError(
                    None, None, f"a handshake frame of {header_len} bytes is over the "
                    f"{self._limit} bytes allowed")
            self._prefixed = True
            self._need = wire.PREFIX_BYTES + header_len + \
                (-(wire.PREFIX_BYTES + header_len) % wire.ALIGN)
            if len(self._buf) < self._need:
                return None
        header, _ = wire.decode(bytes(self._buf), self._need)
        self._buf, self._need, self._prefixed = bytearray(), wire.PREFIX_BYTES, False
        return header


class RateLimitedLog:
    """Warnings of one kind: the first ``burst`` of every ``interval`` seconds, then a count."""

    def __init__(self, log: logging.Logger, what: str, burst: int = LOG_BURST,
                 interval: float = LOG_INTERVAL):
        self._log = log
        self._what = what
        self._burst = burst
        self._interval = interval
        self._window = time.monotonic()
        self._logged = 0
        self._suppressed = 0

    def warning(self, msg: str, *args: Any) -> None:
        """Logs ``msg`` unless this interval's lines are used up (then counts it)."""
        now = time.monotonic()
        if now - self._window >= self._interval:
            self.flush()
            self._window, self._logged = now, 0
        if self._logged < self._burst:
            self._logged += 1
            self._log.warning(msg, *args)
        else:
            self._suppressed += 1

    def flush(self) -> None:
        """Logs how many warnings were counted and not logged, if any."""
        if self._suppressed:
            self._log.warning("%s: %d more were not logged (at most %d lines every %g s)",
                              self._what, self._suppressed, self._burst, self._interval)
            self._suppressed = 0


def _peer_text(addr: Any) -> str:
    if isinstance(addr, tuple) and len(addr) >= 2:
        host = str(addr[0])
        return f"[{host}]:{addr[1]}" if ":" in host else f"{host}:{addr[1]}"
    return str(addr)


class _Pending:
    """A connection that has not finished its handshake."""

    __slots__ = ("sock", "addr", "due", "reader", "peer", "transcript")

    def __init__(self, sock: socket.socket, addr: str, due: float, limit: int):
        self.sock = sock
        self.addr = addr
        self.due = due
        self.reader = FrameReader(limit)
        self.peer = -1
        self.transcript = b""


class Acceptor:
    """Accepts the ranks above ``rank`` on ``listener`` until all are in, the deadline or stop.

    Args:
      listener: a bound, listening socket; the acceptor closes it when it ends.
      name, size, rank: the group and this rank.
      key: the cluster token as bytes (empty without a token).
      deadline: ``time.monotonic()`` value at which the group must have formed.
      on_peer: called on the acceptor's thread with ``(rank, socket)`` for each
        authenticated rank (a rank that connects again replaces its old socket).
    """

    def __init__(self, listener: socket.socket, *, name: str, size: int, rank: int,
                 key: bytes, deadline: float,
                 on_peer: Callable[[int, socket.socket], None]):
        self._listener = listener
        self._name, self._size, self._rank = name, size, rank
        self._key = key
        self._deadline = deadline
        self._on_peer = on_peer
        self._missing: Set[int] = set(range(rank + 1, size))
        self._pending: "collections.OrderedDict[int, _Pending]" = collections.OrderedDict()
        self._stop = threading.Event()
        self._limit = hello_limit(name)
        self.rejected = 0
        self._log = RateLimitedLog(
            logger, f"collective group {name!r} rank {rank}: rejected connections")
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name=f"tf-coll-accept-{name}-{rank}")

    def start(self) -> "Acceptor":
        """Starts accepting on a daemon thread."""
        self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        """Stops accepting; closes the listener and every unfinished handshake."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def join(self, timeout: float) -> None:
        """Waits until every rank above this one connected (or the deadline, or stop)."""
        self._thread.join(timeout)

    def missing(self) -> Set[int]:
        """The ranks that have not connected (yet)."""
        return set(self._missing)

    # ------------------------------------------------------------------ the loop
    def _run(self) -> None:
        sel = selectors.DefaultSelector()
        try:
            self._listener.setblocking(False)
            sel.register(self._listener, selectors.EVENT_READ, None)
            while self._missing and not self._stop.is_set():
                now = time.monotonic()
                if now >= self._deadline:
                    break
                wake = min(self._deadline, now + 0.2)
                if self._pending:
                    wake = min(wake, next(iter(self._pending.values())).due)
                for key, _ in sel.select(max(0.0, wake - now)):
                    if key.data is None:
                        self._accept_ready(sel)
                    elif key.data.sock.fileno() in self._pending:
                        self._progress(sel, key.data)
                self._expire(sel, time.monotonic())
        except Exception:  # noqa: BLE001 - the loop must end with its sockets closed
            logger.exception("collective group %r rank %d: the acceptor failed", self._name,
                             self._rank)
        finally:
            for p in list(self._pending.values()):
                p.sock.close()
            self._pending.clear()
            sel.close()
            self._listener.close()
            self._log.flush()

    def _accept_ready(self, sel: selectors.BaseSelector) -> None:
        for _ in range(64):
            try:
                sock, addr = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as e:
                if e.errno in _FD_ERRNOS:
                    if self._pending:
                        # Out of descriptors: a stranger's connection makes room for the next.
                        self._reject(sel, self._oldest(), f"dropped to free a descriptor ({e})")
                    else:
                        # The listener stays readable: do not spin until descriptors free up.
                        self._stop.wait(0.05)
                return
            try:
                sock.setblocking(False)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                # Reset by its peer before it could be set up.
                sock.close()
                continue
            if len(self._pending) >= MAX_PENDING:
                self._reject(sel, self._oldest(), f"dropped: {MAX_PENDING} handshakes were "
                             "already pending")
            p = _Pending(sock, _peer_text(addr), time.monotonic() + HANDSHAKE_TIMEOUT,
                         self._limit)
            self._pending[sock.fileno()] = p
            sel.register(sock, selectors.EVENT_READ, p)

    def _oldest(self) -> _Pending:
        """The oldest pending connection that has not sent a valid hello (else the oldest)."""
        for p in self._pending.values():
            if p.peer < 0:
                return p
        return next(iter(self._pending.values()))

    def _expire(self, sel: selectors.BaseSelector, now: float) -> None:
        while self._pending:
            p = next(iter(self._pending.values()))
            if p.due > now:
                return
            self._reject(sel, p, f"did not complete the handshake within "
                         f"{HANDSHAKE_TIMEOUT:g} s")

    def _progress(self, sel: selectors.BaseSelector, p: _Pending) -> None:
        try:
            data = p.sock.recv(p.reader.want())
        except (BlockingIOError, InterruptedError):
            return
        except OSError as e:
            self._reject(sel, p, f"connection error during the handshake: {e}")
            return
        if not data:
            self._reject(sel, p, "closed the connection during the handshake")
            return
        try:
            frame = p.reader.feed(data)
            if frame is None:
                return
            if p.peer < 0:
                self._on_hello(sel, p, frame)
            else:
                self._on_proof(sel, p, frame)
        except errors.OpError as e:
            self._reject(sel, p, e.message)
        except Exception as e:  # noqa: BLE001 - one bad connection must not end the acceptor
            self._reject(sel, p, f"{type(e).__name__}: {e}")

    def _on_hello(self, sel: selectors.BaseSelector, p: _Pending,
                  hello: Dict[str, Any]) -> None:
        try:
            peer, cn = check_hello(hello, self._name, self._size, self._rank)
        except errors.OpError as e:
            # A real rank that is misconfigured learns why; it retries until its deadline.
            self._send(p, {"refused": e.message})
            raise
        sn = handshake.new_nonce().hex()
        p.transcript = transcript(self._name, self._size, peer, self._rank, cn, sn)
        if not self._send(p, {"nonce": sn, "mac": mac(self._key, handshake.ROLE_ACCEPTOR, p.transcript)}):
            raise errors.UnavailableError(None, None, "does not read what it is sent")
        p.peer = peer

    def _on_proof(self, sel: selectors.BaseSelector, p: _Pending,
                  proof: Dict[str, Any]) -> None:
        want = mac(self._key, handshake.ROLE_CONNECTOR, p.transcript)
        if set(proof) != {"mac"} or not _is_hex(proof["mac"], MAC_HEX) \
                or not hmac.compare_digest(proof["mac"], want):
            self._send(p, {"ok": False})
            raise errors.UnauthenticatedError(
                None, None, f"claimed to be rank {p.peer} but did not prove it holds the "
                f"cluster token (every rank must use the same {auth.TOKEN_ENV})")
        if not self._send(p, {"ok": True}):
            raise errors.UnavailableError(None, None, "does not read what it is sent")
        peer = p.peer
        try:
            self._on_peer(peer, p.sock)
        except OSError as e:
            raise errors.UnavailableError(None, None, f"rank {peer}'s connection failed as "
                                          f"it was taken into use: {e}") from None
        sel.unregister(p.sock)
        del self._pending[p.sock.fileno()]
        self._missing.discard(peer)
        logger.debug("collective group %r rank %d: rank %d connected from %s", self._name,
                     self._rank, peer, p.addr)

    @staticmethod
    def _send(p: _Pending, header: Dict[str, Any]) -> bool:
        # A handshake frame is far smaller than any socket buffer: a peer that
        # cannot take it at once is not reading, and is not waited for.
        data = wire.encode(header)
        try:
            return p.sock.send(data) == len(data)
        except OSError:
            return False

    def _reject(self, sel: selectors.BaseSelector, p: _Pending, why: str) -> None:
        fd = p.sock.fileno()
        if self._pending.pop(fd, None) is None:
            return
        sel.unregister(p.sock)
        # Counted and logged before the peer can see the close, so that whoever
        # watches the peer finds the reason already written.
        self.rejected += 1
        self._log.warning("collective group %r rank %d: rejected a connection from %s: %s",
                          self._name, self._rank, p.addr, why)
        p.sock.close()


class _Retry(Exception):
    """A handshake attempt failed in a way that another attempt may not."""


def _read_frame(sock: socket.socket, due: float, limit: int, what: str) -> Dict[str, Any]:
    reader = FrameReader(limit)
    while True:
        left = due - time.monotonic()
        if left <= 0:
            raise _Retry(f"{what} did not answer the handshake in time")
        sock.settimeout(left)
        try:
            data = sock.recv(reader.want())
        except socket.timeout:
            raise _Retry(f"{what} did not answer the handshake in time") from None
        except OSError as e:
            raise _Retry(f"the connection to {what} failed during the handshake: {e}") \
                from None
        if not data:
            raise _Retry(f"{what} closed the connection during the handshake")
        try:
            frame = reader.feed(data)
        except errors.OpError as e:
            raise _Retry(f"{what} answered with something other than a tensorfleet "
                         f"collective handshake ({e.message})") from None
        if frame is not None:
            return frame


def dial(address: str, *, name: str, size: int, rank: int, peer: int, key: bytes,
         deadline: float, total: float) -> socket.socket:
    """An authenticated connection from ``rank`` to ``peer`` at ``address``.

    Retries with backoff until ``deadline`` (``time.monotonic()``; ``total``
    seconds after formation began, for the message).

    Raises:
      UnauthenticatedError: the peer proved another token, or refused this one.
      DeadlineExceededError: no attempt succeeded before the deadline; the message
        names the peer and why the last attempt failed.
    """
    host, port = auth.split_address(address)
    what = f"rank {peer} ({address})"
    delay, attempts, last, warned = 0.05, 0, "", False
    while not attempts or time.monotonic() < deadline:
        attempts += 1
        try:
            return _attempt(host, port, name=name, size=size, rank=rank, peer=peer, key=key,
                            due=min(deadline, time.monotonic() + HANDSHAKE_TIMEOUT),
                            deadline=deadline, what=what)
        except _Retry as e:
            last = str(e)
            if "refused the hello" in last and not warned:
                warned = True
                logger.warning("collective group %r rank %d: %s; retrying until the group's "
                               "formation deadline", name, rank, last)
        time.sleep(max(0.0, min(delay * random.uniform(0.5, 1.0),
                                deadline - time.monotonic())))
        delay = min(delay * 2, MAX_RETRY_DELAY)
    raise errors.DeadlineExceededError(
        None, None, f"collective group {name!r}: rank {rank} could not connect to {what} "
        f"within the {total:g} s formation deadline ({attempts} "
        f"attempt{'s' if attempts != 1 else ''}; the last: {last})")


def _attempt(host: str, port: int, *, name: str, size: int, rank: int, peer: int,
             key: bytes, due: float, deadline: float, what: str) -> socket.socket:
    try:
        sock = socket.create_connection((host, port), timeout=max(0.01, due - time.monotonic()))
    except OSError as e:
        raise _Retry(f"cannot connect to {what}: {e}") from None
    try:
        if sock.getsockname() == sock.getpeername():
            # A loopback connect to a port nobody listens on can meet itself.
            raise _Retry(f"nothing listens at {what} yet")
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        cn = handshake.new_nonce().hex()
        sock.settimeout(max(0.01, due - time.monotonic()))
        sock.sendall(wire.encode({"proto": PROTOCOL, "version": PROTOCOL_VERSION, "group": name,
                                  "size": size, "rank": rank, "to": peer, "nonce": cn}))
        reply = _read_frame(sock, due, MAX_REPLY_BYTES, what)
        if set(reply) == {"refused"}:
            why = "".join(c if c.isprintable() else "?" for c in str(reply["refused"])[:300])
            raise _Retry(f"{what} refused the hello: {why}")
        if set(reply) != {"nonce", "mac"} or not _is_hex(reply["nonce"], NONCE_HEX) \
                or not _is_hex(reply["mac"], MAC_HEX):
            raise _Retry(f"{what} answered with something other than a tensorfleet "
                         "collective handshake")
        text = transcript(name, size, rank, peer, cn, reply["nonce"])
        if not hmac.compare_digest(reply["mac"], mac(key, handshake.ROLE_ACCEPTOR, text)):
            raise errors.UnauthenticatedError(
                None, None, f"{what} did not prove it holds the cluster token: every rank "
                f"must use the same {auth.TOKEN_ENV}")
        sock.sendall(wire.encode({"mac": mac(key, handshake.ROLE_CONNECTOR, text)}))
        # The peer proved the token: its verdict is worth waiting for until the deadline.
        verdict = _read_frame(sock, deadline, MAX_REPLY_BYTES, what)
        if verdict != {"ok": True}:
            raise errors.UnauthenticatedError(
                None, None, f"{what} refused this rank's cluster token: every rank must use "
                f"the same {auth.TOKEN_ENV}")
        return sock
    except OSError as e:
        sock.close()
        raise _Retry(f"the connection to {what} failed during the handshake: {e}") from None
    except BaseException:
        sock.close()
        raise


def listen(address: str) -> socket.socket:
    """A listening socket on ``address`` for a rank's acceptor.

    Raises:
      UnavailableError: the address cannot be bound (in use, not this host's).
    """
    host, port = auth.split_address(address)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, port), family=family, backlog=LISTEN_BACKLOG)
    except OSError as e:
        raise errors.UnavailableError(
            None, None, f"cannot listen on {address} for the collective group: {e}") from None


__all__ = ["PROTOCOL", "PROTOCOL_VERSION", "HANDSHAKE_TIMEOUT", "MAX_PENDING", "Acceptor",
           "FrameReader", "RateLimitedLog", "check_hello", "dial", "listen", "mac",
           "transcript", "hello_limit"]
