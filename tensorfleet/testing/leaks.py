"""Finds threads, sockets and ports left behind by code under test.

``snapshot()`` records the threads and socket descriptors of this process;
``check(before, ports)`` waits a short grace period for what was started since to
end (threads finish their last call, closed connections drain), then raises
``LeakError`` naming every thread, socket and port still held.

Threads counted are the non-daemon ones (they keep the interpreter from exiting)
and tensorfleet's own (named ``tf-...``), daemon or not: a tensorfleet thread that
outlives what started it is a leak whatever its daemon flag says.
"""

from __future__ import annotations

import errno
import os
import socket
import threading
import time
from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, List, Set, Tuple

__all__ = ["LeakError", "Snapshot", "snapshot", "check", "socket_inodes"]

# Threads whose names start with this prefix are tensorfleet's own.
THREAD_PREFIX = "tf-"
# How long what was stopped may take to end before it counts as leaked. Sockets
# closed by a peer's stop and threads finishing their last call need a moment on
# a loaded machine.
GRACE_SECS = 5.0
_POLL_SECS = 0.02
_FD_DIR = "/proc/self/fd"
_TCP_STATES = {"01": "ESTABLISHED", "02": "SYN_SENT", "03": "SYN_RECV", "04": "FIN_WAIT1",
               "05": "FIN_WAIT2", "06": "TIME_WAIT", "07": "CLOSE", "08": "CLOSE_WAIT",
               "09": "LAST_ACK", "0A": "LISTEN", "0B": "CLOSING"}


class LeakError(AssertionError):
    """Threads, sockets or ports outlived the code that should have released them."""


@dataclass(frozen=True)
class Snapshot:
    """What this process held at one moment."""

    threads: FrozenSet[threading.Thread]
    sockets: FrozenSet[str]


def _tracked_threads() -> Set[threading.Thread]:
    return {t for t in threading.enumerate()
            if t.is_alive() and (not t.daemon or t.name.startswith(THREAD_PREFIX))}


def socket_inodes() -> Set[str]:
    """The inodes (``socket:[n]`` targets) of this process's open socket descriptors;
    empty where ``/proc`` is not available."""
    out: Set[str] = set()
    try:
        fds = os.listdir(_FD_DIR)
    except OSError:
        return out
    for fd in fds:
        try:
            target = os.readlink(os.path.join(_FD_DIR, fd))
        except OSError:  # closed between listing and reading
            continue
        if target.startswith("socket:["):
            out.add(target[len("socket:["):-1])
    return out


def snapshot() -> Snapshot:
    """The threads and sockets this process holds now."""
    return Snapshot(frozenset(_tracked_threads()), frozenset(socket_inodes()))


def _port_in_use(port: int) -> bool:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        # A listening socket conflicts even with SO_REUSEADDR; TIME_WAIT leftovers
        # of closed connections do not.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("localhost", port))
        return False
    except OSError as e:
        return e.errno == errno.EADDRINUSE
    finally:
        s.close()


def _describe_sockets(inodes: Iterable[str]) -> List[str]:
    """``inode: tcp 127.0.0.1:5000 -> 127.0.0.1:6000 ESTABLISHED`` where /proc tells."""
    table: Dict[str, str] = {}
    for kind in ("tcp", "tcp6", "udp", "udp6", "unix"):
        try:
            with open(f"/proc/net/{kind}") as f:
                lines = f.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            cols = line.split()
            if kind == "unix":
                if len(cols) >= 7:
                    table[cols[6]] = f"unix {cols[7] if len(cols) > 7 else '(unnamed)'}"
            elif len(cols) >= 10:
                table[cols[9]] = (f"{kind} {_addr(cols[1])} -> {_addr(cols[2])} "
                                  f"{_TCP_STATES.get(cols[3], cols[3])}")
    return [f"socket:[{i}] {table.get(i, '(not in /proc/net)')}" for i in sorted(inodes)]


def _addr(hex_addr: str) -> str:
    host, _, port = hex_addr.partition(":")
    if len(host) == 8:
        ip = ".".join(str(int(host[i:i + 2], 16)) for i in (6, 4, 2, 0))
    else:
        ip = "[" + host.lower() + "]"
    return f"{ip}:{int(port, 16)}"


def _leaks(before: Snapshot, ports: Tuple[int, ...]
           ) -> Tuple[List[threading.Thread], Set[str], List[int]]:
    threads = sorted((t for t in _tracked_threads() if t not in before.threads),
                     key=lambda t: t.name)
    sockets = socket_inodes() - before.sockets
    busy = [p for p in ports if _port_in_use(p)]
    return threads, sockets, busy


def check(before: Snapshot, ports: Iterable[int] = (), what: str = "the test",
          grace: float = GRACE_SECS) -> None:
    """Raises ``LeakError`` when, ``grace`` seconds at most after the call, threads or
    sockets made since ``before`` are still there or one of ``ports`` is still bound.

    Args:
      before: a ``snapshot()`` taken before the code under test started anything.
      ports: ports that must be free again.
      what: what started the resources, for the message.
      grace: how long to wait for them to go.
    """
    ports = tuple(ports)
    deadline = time.monotonic() + grace
    threads, sockets, busy = _leaks(before, ports)
    while (threads or sockets or busy) and time.monotonic() < deadline:
        time.sleep(_POLL_SECS)
        threads, sockets, busy = _leaks(before, ports)
    if not (threads or sockets or busy):
        return
    parts: List[str] = []
    if threads:
        parts.append(f"{len(threads)} thread(s): " + ", ".join(
            f"{t.name}{'' if t.daemon else ' (non-daemon)'}" for t in threads))
    if sockets:
        parts.append(f"{len(sockets)} socket(s): " + "; ".join(_describe_sockets(sockets)))
    if busy:
        parts.append(f"port(s) still bound: {busy}")
    raise LeakError(f"{what} leaked, {grace:g} s after it stopped: " + " | ".join(parts))

