"""The process's runtime: one object owning everything that lives as long as the process.

Thread pools, gRPC channels, side-channel connections, receive buffers, the
servers started in this process, the collective groups, and the table of
session targets (``grpc://`` -> its backend) used to live in module globals
scattered over four packages. They are now the *components* of one
``ProcessRuntime``:

* created on first use (``component(name, factory, close)``), so importing
  tensorfleet starts no thread and opens no socket;
* closed together, in the reverse order of their creation, by ``close()``
  (servers stop before the channels and pools they use are closed);
* replaceable for tests: ``with isolated() as rt:`` makes a fresh runtime the
  current one (its own pools, channels, servers and groups), then closes it and
  restores the previous one, so several "processes" run side by side in one.

This module sits in the runtime layer and knows nothing of the layers above:
each layer names its own components (``"transport.channels"``, ...) and says how
to make and close them.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from tensorfleet.runtime.threads import DaemonPool

logger = logging.getLogger(__name__)

# Threads that wait on receives (``_Recv`` ops) of a running step; see ``executor``.
ASYNC_THREADS = 256


class ProcessRuntime:
    """Process-wide state; see the module docstring.

    Attributes:
      local_servers: servers running in this runtime, by ``host:port``; a session
        whose target is one of them talks to its master without gRPC.
      session_factories: target prefix -> ``factory(target, graph, config)`` of a
        session backend; registered by the layer that provides the backend.
      session_resetters: target prefix -> ``reset(target, containers, config)``.
    """

    def __init__(self, name: str = "process", *, inherit: Optional["ProcessRuntime"] = None):
        self.name = name
        self._lock = threading.RLock()
        self._components: Dict[str, Any] = {}
        self._closers: List[Tuple[str, Optional[Callable[[Any], None]]]] = []
        self._closed = False
        self.local_servers: Dict[str, Any] = {}
        # Registrations are code, not state: a runtime made for a test keeps them.
        self.session_factories: Dict[str, Callable[..., Any]] = \
            dict(inherit.session_factories) if inherit is not None else {}
        self.session_resetters: Dict[str, Callable[..., None]] = \
            dict(inherit.session_resetters) if inherit is not None else {}

    @property
    def closed(self) -> bool:
        """Whether ``close`` ran."""
        return self._closed

    def component(self, name: str, factory: Callable[[], Any],
                  close: Optional[Callable[[Any], None]] = None) -> Any:
        """The component ``name``, made by ``factory()`` on first use.

        ``close(component)`` runs when the runtime closes (components close in the
        reverse order of their creation).

        Raises:
          RuntimeError: the runtime is closed.
        """
        got = self._components.get(name)
        if got is not None:
            return got
        with self._lock:
            got = self._components.get(name)
            if got is None:
                if self._closed:
                    raise RuntimeError(f"the tensorfleet runtime {self.name!r} is closed")
                got = factory()
                self._components[name] = got
                self._closers.append((name, close))
            return got

    def has(self, name: str) -> bool:
        """Whether component ``name`` was created."""
        return name in self._components

    @property
    def async_pool(self) -> DaemonPool:
        """The executor's pool for ops that wait (receives), shared by every step."""
        return self.component("runtime.async_pool", lambda: DaemonPool(ASYNC_THREADS, "tf-recv"),
                              _shutdown_pool)

    def close(self) -> None:
        """Stops the local servers, then closes every component (newest first)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            servers = list(self.local_servers.values())
            closers = list(reversed(self._closers))
        for server in servers:
            try:
                server.stop()
            except Exception:  # noqa: BLE001 - closing goes on for the rest
                logger.exception("runtime %r: stopping a local server failed", self.name)
        self.local_servers.clear()
        for name, close in closers:
            if close is None:
                continue
            try:
                close(self._components[name])
            except Exception:  # noqa: BLE001 - closing goes on for the rest
                logger.exception("runtime %r: closing %s failed", self.name, name)
        with self._lock:
            self._components.clear()
            self._closers.clear()


def _shutdown_pool(pool: DaemonPool) -> None:
    # Threads blocked in a wait end with their calls; nothing waits for them here.
    pool.shutdown(wait=False)


_lock = threading.Lock()
_current: Optional[ProcessRuntime] = None


def current() -> ProcessRuntime:
    """The current runtime, created on first use (and again after it was closed)."""
    global _current
    rt = _current
    if rt is not None and not rt.closed:
        return rt
    with _lock:
        if _current is None or _current.closed:
            _current = ProcessRuntime(inherit=_current)
        return _current


def set_current(rt: ProcessRuntime) -> Optional[ProcessRuntime]:
    """Makes ``rt`` the current runtime; returns the one it replaces (not closed; None
    if there was none yet)."""
    global _current
    with _lock:
        previous, _current = _current, rt
    return previous


@contextlib.contextmanager
def isolated(name: str = "isolated") -> Iterator[ProcessRuntime]:
    """A fresh runtime as the current one for the ``with`` block; closed at its end."""
    rt = ProcessRuntime(name, inherit=current())
    previous = set_current(rt)
    try:
        yield rt
    finally:
        if previous is not None:
            set_current(previous)
        rt.close()


def shutdown() -> None:
    """Closes the current runtime (the next use creates a new one)."""
    current().close()


__all__ = ["ProcessRuntime", "current", "isolated", "set_current", "shutdown"]
