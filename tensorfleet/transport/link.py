"""The connection interface of a collective group: frames between the ranks of a group.

A *link* connects one rank to every other rank of a group and moves ``wire``
frames between them: a data frame carries one 1-D tensor that its receiver
expects exactly (same header, dtype and element count), a control frame
announces that the group failed. The collectives' algorithms (``collectives.ring``)
are written against ``FrameLink`` only, so they run unchanged over each backend:

* ``collectives.tcp.TcpLink``: one raw-TCP connection per pair of ranks, built
  on ``sockio`` and authenticated with the ``handshake`` of every raw connection
  (the fast path);
* ``collectives.grpc_link.GrpcLink``: one gRPC service per rank (where only the
  gRPC port is open).

Both are constructed as ``Link(addresses, rank, name, *, token, connect_timeout,
is_failed, buffer_bytes)`` (``LinkFactory``) and return once every pair of ranks
is connected.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Protocol, runtime_checkable

import numpy as np


class PeerAbort(Exception):
    """A peer announced that the group failed; carries its verdict (who and why)."""

    def __init__(self, sender: int, payload: Dict[str, Any]):
        super().__init__(payload.get("message", ""))
        self.sender = sender
        self.payload = payload


@runtime_checkable
class FrameLink(Protocol):
    """What a collective group needs from its connections; see the module docstring.

    Attributes:
      addresses: ``host:port`` of every rank.
      rank: this process's index in ``addresses``.
      size: the number of ranks.
      name: the group's name (both ends of a connection agree on it).
    """

    addresses: List[str]
    rank: int
    size: int
    name: str

    def describe(self, peer: int) -> str:
        """``rank p (host:port)``, for messages."""
        ...

    def send(self, peer: int, header: Dict[str, Any], array: np.ndarray,
             timeout: float) -> None:
        """Sends ``array`` (1-D, contiguous) to ``peer`` as one frame with ``header``.

        Raises:
          UnavailableError: the connection to ``peer`` is lost.
          DeadlineExceededError: ``peer`` took nothing for ``timeout`` seconds.
          The group's error, once ``is_failed`` returns one.
        """
        ...

    def recv_into(self, peer: int, header: Dict[str, Any], out: np.ndarray,
                  timeout: float) -> None:
        """Receives ``peer``'s next frame, which must be ``(header, [out-like tensor])``,
        into ``out``.

        Raises:
          PeerAbort: the peer sent an abort instead.
          InvalidArgumentError: the peer sent another frame (a different collective).
          UnavailableError / DeadlineExceededError: as ``send``.
        """
        ...

    def send_abort(self, payload: Dict[str, Any], lock_timeout: float = 1.0) -> None:
        """Tells every reachable peer that the group failed (best effort, bounded time)."""
        ...

    def poll_aborts(self, seconds: float) -> List[PeerAbort]:
        """Abort frames that arrive from any peer within ``seconds``."""
        ...

    def shutdown_sockets(self) -> None:
        """Wakes every blocked call at once (after a failure, before ``close``)."""
        ...

    def close(self) -> None:
        """Ends every connection; peers then see end of stream."""
        ...


# Link(addresses, rank, name, *, token, connect_timeout, is_failed, buffer_bytes)
LinkFactory = Callable[..., FrameLink]
FailedCheck = Callable[[], Optional[BaseException]]

__all__ = ["FailedCheck", "FrameLink", "LinkFactory", "PeerAbort"]

