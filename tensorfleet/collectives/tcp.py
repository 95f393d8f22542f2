"""The collectives' data plane: one authenticated TCP connection per pair of ranks.

Why not gRPC: a ring step moves megabytes between two neighbours, and Python
gRPC tops out near 1.5 GB/s between processes (each 4 MiB chunk becomes a
fresh ``bytes``), while a plain socket that receives straight into the
destination array (``recv_into`` with ``MSG_WAITALL``) moves about 3.9 GB/s on
loopback. The sockets release the GIL while they copy, so sending, receiving
and numpy's reductions overlap on different threads.

Every byte still travels as a ``transport.wire`` frame. Control frames (the
handshake, aborts) are decoded with ``wire.decode``. A data frame carries one
1-D tensor; its receiver knows the exact frame it expects (the collective's
sequence number, kind, dtype and element count), so it checks the frame's head
byte for byte against the head it would have encoded itself and only then
receives the payload into place. A frame of another size or dtype is refused
before a byte of its payload is read.

Forming the group: the rank with the higher index connects; both sides prove
they hold the cluster token with an HMAC handshake (``formation``), whose
acceptor serves any number of connections at once, each with one deadline for
its whole handshake, so strangers on a rank's port (silent, slow or malformed)
never hold up a real rank; connecting ranks retry until the group's formation
deadline. A listener on a non-loopback address refuses to start without a
token (``auth.require_token_for``).

Deadlines: sockets are blocking with ``SO_RCVTIMEO``/``SO_SNDTIMEO`` slices, so
a blocked call wakes up regularly to check the group's failure flag and its
own progress deadline: a peer that sends (or reads) nothing for ``timeout``
seconds is reported by rank and address.
"""

from __future__ import annotations

import logging
import selectors
import socket
import struct
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from tensorfleet import errors
from tensorfleet.collectives import formation
from tensorfleet.collectives.formation import PROTOCOL, PROTOCOL_VERSION  # noqa: F401
from tensorfleet.transport import auth, sockio, wire
from tensorfleet.transport.link import PeerAbort

logger = logging.getLogger(__name__)

MAX_CONTROL_BYTES = 64 << 10
# How often a blocked socket call wakes up to look at the group's failure flag.
POLL_SLICE = sockio.POLL_SLICE
_PREFIX = struct.Struct("<4sHHII")


class TcpLink:
    """Connections from this rank to every other rank of a group (a ``link.FrameLink``).

    Args:
      addresses: ``host:port`` of every rank; this rank listens on its own.
      rank: this process's index in ``addresses``.
      name: the group's name; both ends of a connection must agree on it.
      token: cluster token (None reads ``$TENSORFLEET_TOKEN``).
      connect_timeout: the formation deadline: how long ranks keep trying to
        connect (a rank may start this much later than the others).
      is_failed: returns the group's error once it has failed (blocked calls
        then stop waiting), else None.
      buffer_bytes: fixed socket send/receive buffer size (None: kernel autotuning).
    """

    def __init__(self, addresses: Sequence[str], rank: int, name: str = "default", *,
                 token: Optional[str] = None, connect_timeout: float = 120.0,
                 is_failed: Callable[[], Optional[BaseException]] = lambda: None,
                 buffer_bytes: Optional[int] = None):
        self.addresses = list(addresses)
        self.rank = rank
        self.size = len(self.addresses)
        self.name = name
        self._is_failed = is_failed
        self._buffer_bytes = buffer_bytes
        self._key = (auth.require_token_for(self.addresses[rank], token) or "").encode("utf-8")
        self._socks: Dict[int, socket.socket] = {}
        self._send_locks = {p: threading.Lock() for p in range(self.size) if p != rank}
        # Connections whose byte stream is mid-frame after an interrupted call; they
        # can carry no further frame (an abort would be read as payload).
        self._broken_send: set = set()
        self._broken_recv: set = set()
        self._heads: Dict[Any, bytes] = {}
        if self.size > 1:
            self._connect_all(connect_timeout)

    # ------------------------------------------------------------------ bootstrap
    def describe(self, peer: int) -> str:
        """``rank p (host:port)``, for messages."""
        return f"rank {peer} ({self.addresses[peer]})"

    def _connect_all(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        # Lower ranks accept, higher ranks connect: each pair gets one connection.
        acceptor = formation.Acceptor(
            formation.listen(self.addresses[self.rank]), name=self.name, size=self.size,
            rank=self.rank, key=self._key, deadline=deadline, on_peer=self._add_peer).start()
        try:
            for peer in range(self.rank):
                self._add_peer(peer, formation.dial(
                    self.addresses[peer], name=self.name, size=self.size, rank=self.rank,
                    peer=peer, key=self._key, deadline=deadline, total=timeout))
            acceptor.join(max(0.0, deadline - time.monotonic()) + 1.0)
            missing = sorted(acceptor.missing())
            if missing:
                strangers = (f"; {acceptor.rejected} other connections were rejected (see the "
                             "log)") if acceptor.rejected else ""
                raise errors.DeadlineExceededError(
                    None, None, f"collective group {self.name!r}: "
                    f"{', '.join(self.describe(p) for p in missing)} did not connect to rank "
                    f"{self.rank} within the {timeout:g} s formation deadline{strangers}")
        except BaseException:
            # Stopped first, so that it hands over no socket after the close.
            acceptor.stop()
            self.close()
            raise
        acceptor.stop()
        logger.info("collective group %r: rank %d of %d connected", self.name, self.rank,
                    self.size)

    def _add_peer(self, peer: int, sock: socket.socket) -> None:
        """Takes an authenticated connection to ``peer`` into use."""
        # Keepalive on, as on every raw connection: a crashed machine shows up in seconds.
        # No TCP_USER_TIMEOUT: a rank may rightly leave its window shut for longer than
        # seconds (still computing); the group's own timeout judges that.
        sockio._configure(sock, POLL_SLICE, self._buffer_bytes, user_timeout_ms=None)
        old = self._socks.get(peer)
        self._socks[peer] = sock
        if old is not None:
            # The peer connected again (its side gave up on the first connection).
            old.close()

    # ------------------------------------------------------------------ data frames
    def _head(self, header: Dict[str, Any], dtype: np.dtype, count: int) -> bytes:
        key = (repr(header), dtype.str, count)
        head = self._heads.get(key)
        if head is None:
            # The wire module's own encoding of the frame this receiver expects.
            parts, _ = wire.encode_parts(header, [np.empty(count, dtype)])
            head = parts[0]
            if len(self._heads) > 4096:
                self._heads.clear()
            self._heads[key] = head
        return head

    def send(self, peer: int, header: Dict[str, Any], array: np.ndarray,
             timeout: float) -> None:
        """Sends ``array`` (1-D, contiguous) to ``peer`` as one wire frame."""
        parts, _ = wire.encode_parts(header, [array])
        with self._send_locks[peer]:
            self._send_parts(peer, parts, timeout)

    def recv_into(self, peer: int, header: Dict[str, Any], out: np.ndarray,
                  timeout: float) -> None:
        """Receives the frame ``(header, [out-like tensor])`` from ``peer`` into ``out``.

        Raises:
          PeerAbort: the peer sent an abort instead (the group failed elsewhere).
          InvalidArgumentError: the peer sent another frame (a different collective).
          UnavailableError / DeadlineExceededError: as ``_recv_exact``.
        """
        expected = self._head(header, out.dtype, out.size)
        prefix = bytearray(wire.PREFIX_BYTES)
        self._recv(peer, memoryview(prefix), timeout)
        if bytes(prefix) != expected[:wire.PREFIX_BYTES]:
            self._unexpected(peer, prefix, header, out, timeout)
        rest = bytearray(len(expected) - wire.PREFIX_BYTES)
        self._recv(peer, memoryview(rest), timeout)
        if bytes(prefix) + bytes(rest) != expected:
            self._broken_recv.add(peer)
            raise errors.InvalidArgumentError(
                None, None, f"{self.describe(peer)} sent a frame other than the expected "
                f"{header} with {out.size} x {out.dtype}: the ranks are running different "
                "collectives (every rank must call the same collectives in the same order)")
        if out.nbytes:
            self._recv(peer, memoryview(out.reshape(-1)).cast("B"), timeout)
        pad = -out.nbytes % wire.ALIGN
        if pad:
            tail = bytearray(pad)
            self._recv(peer, memoryview(tail), timeout)
            if any(tail):
                raise errors.InvalidArgumentError(
                    None, None, f"{self.describe(peer)} sent nonzero frame padding")

    def _unexpected(self, peer: int, prefix: bytearray, header: Dict[str, Any],
                    out: np.ndarray, timeout: float) -> None:
        """Reads the frame that was not the expected one and raises what it means."""
        magic, version, flags, header_len, count = _PREFIX.unpack(bytes(prefix))
        if magic != wire.MAGIC or version != wire.WIRE_VERSION or flags \
                or header_len > MAX_CONTROL_BYTES:
            self._broken_recv.add(peer)
            raise errors.InvalidArgumentError(
                None, None, f"{self.describe(peer)} sent a malformed frame (magic {magic!r}, "
                f"version {version}): is it a tensorfleet collective peer of the same release?")
        raw = bytearray(header_len + (-(wire.PREFIX_BYTES + header_len) % wire.ALIGN))
        self._recv(peer, memoryview(raw), timeout)
        if count == 0:
            got, _ = wire.decode(bytes(prefix) + bytes(raw), MAX_CONTROL_BYTES)
            if isinstance(got.get("abort"), dict):
                raise PeerAbort(peer, got["abort"])
            what = got
        else:
            # Diagnostics only: the header of the frame that arrived, as text.
            what = bytes(raw[:header_len]).decode("utf-8", "replace")[:200]
        self._broken_recv.add(peer)
        raise errors.InvalidArgumentError(
            None, None, f"{self.describe(peer)} sent {what} where rank {self.rank} expected "
            f"{header} with {out.size} x {out.dtype}: the ranks are running different "
            "collectives (every rank must call the same collectives, in the same order, with "
            "tensors of the same dtype and shape)")

    # ------------------------------------------------------------------ socket loops
    def _recv(self, peer: int, view: memoryview, timeout: float) -> None:
        """Fills ``view`` from ``peer``; a failure mid-frame marks the connection broken."""
        try:
            sockio._recv_exact(self._socks[peer], view, float("inf"), stall=timeout,
                               failed=self._is_failed)
        except sockio._Stopped as e:
            if e.got:
                self._broken_recv.add(peer)
            raise e.cause from None
        except sockio._Silent as e:
            if e.got:
                self._broken_recv.add(peer)
            raise errors.DeadlineExceededError(
                None, None, f"{self.describe(peer)} sent nothing for {timeout:g} s "
                "(stopped, hung or too slow)") from None
        except sockio._Eof:
            self._broken_recv.add(peer)
            raise errors.UnavailableError(
                None, None, f"{self.describe(peer)} closed its connection (the process "
                "exited or was killed)") from None
        except OSError as e:
            self._broken_recv.add(peer)
            raise errors.UnavailableError(
                None, None, f"lost the connection to {self.describe(peer)}: {e}") from None

    def _send_parts(self, peer: int, parts: Sequence[Any], timeout: float) -> None:
        views = [memoryview(p).cast("B") for p in parts if len(p)]
        try:
            sockio._send_all(self._socks[peer], views, float("inf"), stall=timeout,
                             failed=self._is_failed)
        except sockio._Stopped as e:
            if e.got:
                self._broken_send.add(peer)
            raise e.cause from None
        except sockio._Stalled:
            self._broken_send.add(peer)
            raise errors.DeadlineExceededError(
                None, None, f"{self.describe(peer)} read nothing for {timeout:g} s "
                "(stopped, hung or too slow)") from None
        except OSError as e:
            self._broken_send.add(peer)
            raise errors.UnavailableError(
                None, None, f"lost the connection to {self.describe(peer)}: {e}") from None

    # ------------------------------------------------------------------ failure path
    def send_abort(self, payload: Dict[str, Any], lock_timeout: float = 1.0) -> None:
        """Tells every reachable peer that the group failed (best effort, bounded time)."""
        frame = wire.encode({"abort": payload})
        for peer in list(self._socks):
            if peer in self._broken_send:
                continue
            lock = self._send_locks[peer]
            if not lock.acquire(timeout=lock_timeout):
                continue
            try:
                self._send_parts(peer, [frame], min(lock_timeout, 1.0))
            except (errors.OpError, OSError):
                pass
            finally:
                lock.release()

    def poll_aborts(self, seconds: float) -> List[PeerAbort]:
        """Abort frames that arrive from any peer within ``seconds`` (grace period)."""
        found: List[PeerAbort] = []
        sel = selectors.DefaultSelector()
        for peer, sock in self._socks.items():
            if peer not in self._broken_recv:
                sel.register(sock, selectors.EVENT_READ, peer)
        deadline = time.monotonic() + seconds
        try:
            while sel.get_map() and time.monotonic() < deadline:
                for key, _ in sel.select(max(0.0, deadline - time.monotonic())):
                    peer = key.data
                    sel.unregister(key.fileobj)
                    try:
                        found.append(PeerAbort(peer, self._read_abort(peer)))
                    except (errors.OpError, OSError, ValueError):
                        self._broken_recv.add(peer)
                if found:
                    break
        finally:
            sel.close()
        return found

    def _read_abort(self, peer: int) -> Dict[str, Any]:
        prefix = bytearray(wire.PREFIX_BYTES)
        self._recv(peer, memoryview(prefix), 1.0)
        magic, version, flags, header_len, count = _PREFIX.unpack(bytes(prefix))
        if magic != wire.MAGIC or count or header_len > MAX_CONTROL_BYTES:
            raise ValueError("not a control frame")
        raw = bytearray(header_len + (-(wire.PREFIX_BYTES + header_len) % wire.ALIGN))
        self._recv(peer, memoryview(raw), 1.0)
        header, _ = wire.decode(bytes(prefix) + bytes(raw), MAX_CONTROL_BYTES)
        if not isinstance(header.get("abort"), dict):
            raise ValueError("not an abort frame")
        return header["abort"]

    def close(self) -> None:
        """Closes every connection; peers then see end of stream."""
        socks, self._socks = dict(self._socks), {}
        for sock in socks.values():
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def shutdown_sockets(self) -> None:
        """Wakes every blocked call at once (used after a failure, before ``close``)."""
        for sock in list(self._socks.values()):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


__all__ = ["TcpLink", "PeerAbort", "PROTOCOL", "PROTOCOL_VERSION", "POLL_SLICE"]
