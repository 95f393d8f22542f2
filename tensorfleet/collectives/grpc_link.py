"""A collectives link over the project's gRPC transport (``RpcServer``/``RpcClient``).

A ``transport.link.FrameLink``, as ``TcpLink``, so ``RingGroup(..., transport="grpc")`` runs the
same algorithms over it: each rank serves a small ``tensorfleet.Collective``
service on its own address, and a frame sent to a peer is one ``Deliver`` call
carrying ``(header, [tensor])`` as a ``wire`` message (streamed in chunks above
1 MiB by the transport) with the cluster token in its metadata. The handler only
files the frame in a per-sender mailbox; the receiving rank takes frames out
in order and checks each against the frame it expects.

It is slower than the TCP link (every frame is a separate call and a fresh
buffer, about 1.5 GB/s at best between processes), and useful where only the
gRPC port is open, or as a second implementation to test the algorithms on.
"""

from __future__ import annotations

import logging
import queue
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.transport.link import PeerAbort
from tensorfleet.transport import rpc

logger = logging.getLogger(__name__)

SERVICE = "tensorfleet.Collective"
POLL_SLICE = 0.1
# Frames a sender may have waiting in a receiver's mailbox; the ring keeps
# far fewer in flight, so only a misbehaving peer reaches it.
MAX_QUEUED_FRAMES = 4096

Message = Tuple[Dict[str, Any], List[np.ndarray]]


class GrpcLink:
    """Mailboxes fed by a gRPC service, one per peer; see the module docstring.

    Args:
      addresses, rank, name, token, connect_timeout, is_failed: as ``TcpLink``.
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
        self._closed = False
        self._boxes: Dict[int, "queue.Queue[Message]"] = {
            p: queue.Queue(MAX_QUEUED_FRAMES) for p in range(self.size) if p != rank}
        self._server = rpc.RpcServer(self.addresses[rank], SERVICE,
                                     {"Hello": self._hello, "Deliver": self._deliver},
                                     token=token, task=f"collective {name} rank {rank}")
        self._clients: Dict[int, rpc.RpcClient] = {}
        if self.size > 1:
            self._server.start()
            try:
                self._connect_all(token, connect_timeout)
            except BaseException:
                self.close()
                raise

    def describe(self, peer: int) -> str:
        """``rank p (host:port)``, for messages."""
        return f"rank {peer} ({self.addresses[peer]})"

    # ------------------------------------------------------------------ service side
    def _hello(self, header: Dict[str, Any], tensors: List[np.ndarray]) -> Message:
        if header.get("group") != self.name or header.get("size") != self.size:
            raise errors.InvalidArgumentError(
                None, None, f"hello for group {header.get('group')!r} of size "
                f"{header.get('size')} reached group {self.name!r} of size {self.size}")
        return {"rank": self.rank}, []

    def _deliver(self, header: Dict[str, Any], tensors: List[np.ndarray]) -> Message:
        src = header.get("src")
        frame = header.get("frame")
        if isinstance(src, bool) or src not in self._boxes or not isinstance(frame, dict) \
                or len(tensors) > 1 or header.get("group") != self.name:
            raise errors.InvalidArgumentError(
                None, None, f"malformed collective frame for group {self.name!r}")
        try:
            self._boxes[src].put_nowait((frame, tensors))
        except queue.Full:
            raise errors.ResourceExhaustedError(
                None, None, f"{self.describe(src)} has {MAX_QUEUED_FRAMES} frames queued at "
                f"rank {self.rank}") from None
        return {}, []

    # ------------------------------------------------------------------ client side
    def _connect_all(self, token: Optional[str], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        for peer in range(self.size):
            if peer == self.rank:
                continue
            client = rpc.RpcClient(self.addresses[peer], SERVICE, token=token,
                                   default_timeout=max(1.0, timeout))
            remaining = max(0.5, deadline - time.monotonic())
            try:
                reply, _ = client.call("Hello", {"group": self.name, "size": self.size,
                                                 "rank": self.rank},
                                       timeout=remaining, wait_for_ready=True)
            except errors.DeadlineExceededError:
                raise errors.DeadlineExceededError(
                    None, None, f"collective group {self.name!r}: {self.describe(peer)} did "
                    f"not answer rank {self.rank} within {timeout:g} s") from None
            except errors.CancelledError as e:
                # The peer's server stopped while this call waited on it (its own
                # connect failed first): for this rank the peer is simply gone.
                raise errors.UnavailableError(
                    None, None, f"collective group {self.name!r}: {self.describe(peer)} "
                    f"stopped serving before it answered rank {self.rank} ({e.message})") \
                    from None
            if reply.get("rank") != peer:
                raise errors.InvalidArgumentError(
                    None, None, f"{self.describe(peer)} answered as rank {reply.get('rank')}")
            self._clients[peer] = client
        logger.info("collective group %r: rank %d of %d connected over gRPC", self.name,
                    self.rank, self.size)

    def send(self, peer: int, header: Dict[str, Any], array: np.ndarray,
             timeout: float) -> None:
        """Delivers ``(header, [array])`` into ``peer``'s mailbox for this rank."""
        try:
            self._clients[peer].call("Deliver", {"src": self.rank, "group": self.name,
                                                 "frame": header}, [array], timeout=timeout)
        except errors.DeadlineExceededError as e:
            raise errors.DeadlineExceededError(
                None, None, f"{self.describe(peer)} did not take a frame within "
                f"{timeout:g} s: {e.message}") from None
        except errors.UnavailableError as e:
            raise errors.UnavailableError(
                None, None, f"lost the connection to {self.describe(peer)}: {e.message}") \
                from None

    def _take(self, peer: int, timeout: float) -> Message:
        box = self._boxes[peer]
        last = time.monotonic()
        while True:
            try:
                return box.get(timeout=POLL_SLICE)
            except queue.Empty:
                pass
            failed = self._is_failed()
            if failed is not None:
                raise failed
            if self._closed:
                raise errors.CancelledError(None, None, "the collective link was closed")
            if time.monotonic() - last > timeout:
                raise errors.DeadlineExceededError(
                    None, None, f"{self.describe(peer)} sent nothing for {timeout:g} s "
                    "(stopped, hung or too slow)")

    def recv_into(self, peer: int, header: Dict[str, Any], out: np.ndarray,
                  timeout: float) -> None:
        """Takes ``peer``'s next frame, checks it is the expected one, copies it into ``out``."""
        frame, tensors = self._take(peer, timeout)
        if isinstance(frame.get("abort"), dict):
            raise PeerAbort(peer, frame["abort"])
        got = tensors[0] if tensors else None
        if frame != header or got is None or got.dtype != out.dtype or got.size != out.size:
            what = None if got is None else f"{got.size} x {got.dtype}"
            raise errors.InvalidArgumentError(
                None, None, f"{self.describe(peer)} sent {frame} with {what} where rank "
                f"{self.rank} expected {header} with {out.size} x {out.dtype}: the ranks are "
                "running different collectives (every rank must call the same collectives, "
                "in the same order, with tensors of the same dtype and shape)")
        np.copyto(out.reshape(-1), got.reshape(-1))

    # ------------------------------------------------------------------ failure path
    def send_abort(self, payload: Dict[str, Any], lock_timeout: float = 1.0) -> None:
        """Tells every peer that the group failed (best effort, bounded time)."""
        for peer, client in list(self._clients.items()):
            try:
                client.call("Deliver", {"src": self.rank, "group": self.name,
                                        "frame": {"abort": payload}}, [],
                            timeout=lock_timeout)
            except errors.OpError:
                pass

    def poll_aborts(self, seconds: float) -> List[PeerAbort]:
        """Abort frames that arrive from any peer within ``seconds``."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for peer, box in self._boxes.items():
                try:
                    frame, _ = box.get_nowait()
                except queue.Empty:
                    continue
                if isinstance(frame.get("abort"), dict):
                    return [PeerAbort(peer, frame["abort"])]
            time.sleep(0.02)
        return []

    def shutdown_sockets(self) -> None:
        """Stops taking frames (blocked receives end at their next poll)."""
        self._closed = True

    def close(self) -> None:
        """Stops the service."""
        self._closed = True
        self._server.stop(0)


__all__ = ["GrpcLink", "SERVICE"]
