"""What a server holds for its peers, and for how long, at most.

A server reachable from a network is open to peers that never authenticate
(a port scan, a misconfigured task, an attacker) and to authenticated peers
that ask for too much (a wait with a huge timeout). Neither may take away the
descriptors, threads or log space that the cluster's own calls need:

* **Connections.** gRPC's port and the bulk side channel each cap the
  connections they hold (``connection_caps``, derived from the process's
  descriptor limit, which ``raise_fd_limit`` first raises to its hard limit as
  Go's runtime does), and a connection must finish its handshake within
  ``HANDSHAKE_TIMEOUT_SECS`` (gRPC's own default is 120 s) or be closed. An
  HTTP/2 connection with no call for ``MAX_CONNECTION_IDLE_SECS`` is closed
  too; a client reconnects on its next call without noticing. gRPC's
  ``max_concurrent_streams`` is left at its default: a lower cap would queue a
  step's RunGraph behind the receives that wait for it on the same channel.
* **Waits.** A handler runs inside a ``CallScope`` that tells it the caller's
  deadline and whether the caller is still there. A wait for a tensor lasts at
  most ``MAX_WAIT_SECS`` per call (the receiver asks again, see
  ``wait_was_cut``), and a step at most ``MAX_STEP_SECS``; both end earlier at
  the caller's own deadline. At most ``MAX_WAITING_CALLS`` calls of one task
  wait for tensors at once, so waiting calls never hold every thread that
  status calls and steps need (``WaitSlots``).
* **Logs.** A refused connection or call is logged once, then at most once per
  ``REFUSAL_LOG_INTERVAL`` seconds with the count since (``RefusalLog``): a
  peer hammering the port with the wrong token cannot fill the disk.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from typing import Callable, Iterator, List, Optional, Set, Tuple

try:
    import resource
except ImportError:  # not on this platform: the limits below use their defaults
    resource = None  # type: ignore[assignment]

from tensorfleet import errors

logger = logging.getLogger(__name__)

# A handshake on a LAN takes milliseconds; a peer that sends nothing for this long
# is not a tensorfleet task and gives its descriptor back.
HANDSHAKE_TIMEOUT_SECS = 5.0
MAX_CONNECTION_IDLE_SECS = 300.0
# Upper bounds of the connection caps; a low descriptor limit lowers them.
MAX_GRPC_CONNECTIONS = 4096
MAX_BULK_CONNECTIONS = 512
# Side channel connections still in their handshake: beyond this the oldest is
# dropped, so silent connections never keep a real client out.
MAX_BULK_HANDSHAKES = 64
# Descriptors kept for everything but incoming connections: files, checkpoints,
# outgoing channels, the runtime's own pipes.
FD_RESERVE = 256
# raise_fd_limit raises the soft limit this far at most.
FD_LIMIT_TARGET = 1 << 16
# The longest one call waits for a tensor on a server; the receiver asks again.
MAX_WAIT_SECS = 60.0
# The longest a step (RunStep, RunGraph) runs on a server, whatever its caller's
# deadline: the clients' default step deadline (TENSORFLEET_STEP_TIMEOUT), at least.
MAX_STEP_SECS = max(86400.0, float(os.environ.get("TENSORFLEET_STEP_TIMEOUT", "0") or 0))
# Calls of one task waiting for tensors at once (half of the RPC server's threads).
MAX_WAITING_CALLS = 32
REFUSAL_LOG_INTERVAL = 60.0
# In the message of a wait that a server limit ended: the receiver may ask again.
WAIT_CUT_NOTE = "[a server wait limit ended the wait; ask again]"
# gRPC reports "no deadline" as a remaining time of about 2**63 ns.
_NO_DEADLINE = 1e15


def fd_limit() -> int:
    """The process's soft limit of open descriptors (1024 where it cannot be read)."""
    if resource is None:
        return 1024
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if soft != resource.RLIM_INFINITY else FD_LIMIT_TARGET


def raise_fd_limit() -> int:
    """Raises the soft descriptor limit toward the hard one (at most ``FD_LIMIT_TARGET``);
    returns the soft limit in effect. Never lowers it."""
    if resource is None:
        return fd_limit()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = FD_LIMIT_TARGET if hard == resource.RLIM_INFINITY else min(hard, FD_LIMIT_TARGET)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            logger.debug("raised the descriptor limit from %d to %d", soft, want)
        except (ValueError, OSError) as e:
            logger.debug("could not raise the descriptor limit from %d: %s", soft, e)
    return fd_limit()


def connection_caps(limit: Optional[int] = None) -> Tuple[int, int]:
    """(gRPC connections, bulk side channel connections) a server holds at most, so
    that both together stay ``FD_RESERVE`` descriptors below ``limit`` (default: the
    process's soft limit)."""
    usable = max(64, (fd_limit() if limit is None else int(limit)) - FD_RESERVE
                 - MAX_BULK_HANDSHAKES)
    return (max(32, min(MAX_GRPC_CONNECTIONS, usable * 3 // 4)),
            max(16, min(MAX_BULK_CONNECTIONS, usable // 4)))


def grpc_server_options() -> List[Tuple[str, int]]:
    """gRPC server options for the connection cap, handshake and idle timeouts."""
    cap, _ = connection_caps()
    return [
        ("grpc.max_allowed_incoming_connections", cap),
        ("grpc.server_handshake_timeout_ms", int(HANDSHAKE_TIMEOUT_SECS * 1000)),
        ("grpc.max_connection_idle_ms", int(MAX_CONNECTION_IDLE_SECS * 1000)),
    ]


class RefusalLog:
    """Logs refusals (a wrong token, a stranger's handshake) rate-limited.

    The first refusal is logged as it comes; after it, at most one line per
    ``interval`` seconds, which tells how many were refused since the last line
    and from how many peers. ``total`` counts every refusal.
    """

    _MAX_PEERS = 64

    def __init__(self, log: logging.Logger, interval: float = REFUSAL_LOG_INTERVAL):
        self._log = log
        self.interval = float(interval)
        self._lock = threading.Lock()
        self._last: Optional[float] = None
        self._since = 0
        self._peers: Set[str] = set()
        self.total = 0

    def refused(self, peer: str, message: str) -> bool:
        """Counts one refusal of ``peer``; logs ``message`` (which names the peer)
        if a line is due. Returns whether it logged."""
        now = time.monotonic()
        with self._lock:
            self.total += 1
            if self._last is not None and now - self._last < self.interval:
                self._since += 1
                if len(self._peers) < self._MAX_PEERS:
                    self._peers.add(peer)
                return False
            since, peers, last = self._since, len(self._peers), self._last
            self._last, self._since, self._peers = now, 0, set()
        if since:
            self._log.warning("%s (and %d more refused from %s%d peer(s) in the last %.0f s, "
                              "not logged one by one)", message, since,
                              "at least " if peers >= self._MAX_PEERS else "", peers,
                              now - (last or now))
        else:
            self._log.warning("%s", message)
        return True


class CallScope:
    """The call a handler is serving: the caller's deadline, and whether it is there.

    Args:
      deadline: ``time.monotonic()`` time at which the caller gives up; None if
        the call carries none.
      alive: tells whether the caller still waits for the answer (gRPC: the
        call is active; side channel: the connection is open).
    """

    __slots__ = ("deadline", "_alive")

    def __init__(self, deadline: Optional[float] = None,
                 alive: Optional[Callable[[], bool]] = None):
        self.deadline = deadline
        self._alive = alive

    @classmethod
    def of_grpc(cls, context: object) -> "CallScope":
        """The scope of a gRPC call from its ``grpc.ServicerContext``."""
        remaining = context.time_remaining()  # type: ignore[attr-defined]
        deadline = None
        if remaining is not None and remaining < _NO_DEADLINE:
            deadline = time.monotonic() + max(0.0, remaining)
        return cls(deadline, context.is_active)  # type: ignore[attr-defined]

    def remaining(self) -> Optional[float]:
        """Seconds until the caller's deadline (None: no deadline)."""
        return None if self.deadline is None else self.deadline - time.monotonic()

    def alive(self) -> bool:
        """Whether the caller still waits for this call's answer."""
        if self._alive is None:
            return True
        try:
            return bool(self._alive())
        except Exception:  # noqa: BLE001 - a transport that cannot tell: assume it waits
            return True


_local = threading.local()


def current() -> Optional[CallScope]:
    """The scope of the call this thread serves, or None outside a handler."""
    return getattr(_local, "scope", None)


@contextlib.contextmanager
def serving(scope: CallScope) -> Iterator[CallScope]:
    """Makes ``scope`` this thread's current call while the block runs."""
    outer = getattr(_local, "scope", None)
    _local.scope = scope
    try:
        yield scope
    finally:
        _local.scope = outer


def bound(requested: float, cap: float) -> Tuple[float, str]:
    """How long a server may wait for something asked to take ``requested``
    seconds: at most ``cap`` and the current caller's deadline. Returns the
    seconds and what bounds them: ``"request"``, ``"server"`` or ``"caller"``."""
    wait, what = float(requested), "request"
    if cap < wait:
        wait, what = float(cap), "server"
    scope = current()
    left = None if scope is None else scope.remaining()
    if left is not None and left < wait:
        wait, what = max(0.0, left), "caller"
    return wait, what


def check_wait(value: object, what: str) -> float:
    """``value`` as a number of seconds to wait: finite and not negative, else
    InvalidArgumentError naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise errors.InvalidArgumentError(
            None, None, f"{what} must be a number of seconds, got {type(value).__name__}")
    seconds = float(value)
    if not 0.0 <= seconds < float("inf"):
        raise errors.InvalidArgumentError(
            None, None, f"{what} must be a finite number of seconds, 0 or more; got {value!r}")
    return seconds


def wait_was_cut(error: BaseException) -> bool:
    """Whether ``error`` says a server limit (not the asked timeout) ended a wait,
    so the same wait may be asked for again."""
    return isinstance(error, errors.DeadlineExceededError) and \
        WAIT_CUT_NOTE in str(getattr(error, "message", ""))


class WaitSlots:
    """A count of calls waiting at once, refused past ``limit`` instead of queued:
    a queued call would hold its thread all the same."""

    def __init__(self, limit: int = MAX_WAITING_CALLS):
        self.limit = int(limit)
        self._lock = threading.Lock()
        self.in_use = 0

    def try_acquire(self) -> bool:
        """Takes a slot if one is free."""
        with self._lock:
            if self.in_use >= self.limit:
                return False
            self.in_use += 1
            return True

    def release(self) -> None:
        """Gives back a slot taken with ``try_acquire``."""
        with self._lock:
            self.in_use = max(0, self.in_use - 1)


__all__ = [
    "HANDSHAKE_TIMEOUT_SECS", "MAX_CONNECTION_IDLE_SECS", "MAX_GRPC_CONNECTIONS",
    "MAX_BULK_CONNECTIONS", "MAX_BULK_HANDSHAKES", "FD_RESERVE", "MAX_WAIT_SECS",
    "MAX_STEP_SECS", "MAX_WAITING_CALLS", "REFUSAL_LOG_INTERVAL", "WAIT_CUT_NOTE",
    "fd_limit", "raise_fd_limit", "connection_caps", "grpc_server_options", "RefusalLog",
    "CallScope", "current", "serving", "bound", "check_wait", "wait_was_cut", "WaitSlots",
]
