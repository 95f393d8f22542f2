"""Per-task resource manager: variables, queues and accumulators keyed by name.

Resources live here rather than in a session, so that on a server they outlive
the client sessions that created them: two clients that create a variable of the
same name on ``/job:ps/task:0`` share it.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Dict, List, Optional, Tuple


from tensorfleet import errors
from tensorfleet.kernels.variable_resource import VariableResource

DEFAULT_CONTAINER = ""


class ResourceManager:
    """Named resources grouped by container; thread-safe."""

    def __init__(self) -> None:
        self._containers: Dict[str, Dict[str, Any]] = {}
        self._lock = threading.Lock()

    def lookup_or_create(self, container: str, name: str, factory: Callable[[], Any]) -> Any:
        with self._lock:
            c = self._containers.setdefault(container or DEFAULT_CONTAINER, {})
            r = c.get(name)
            if r is None:
                r = c[name] = factory()
            return r

    def lookup(self, container: str, name: str) -> Any:
        with self._lock:
            r = self._containers.get(container or DEFAULT_CONTAINER, {}).get(name)
        if r is None:
            raise errors.NotFoundError(name, None, f"Resource {container}/{name} does not exist.")
        return r

    def find(self, container: str, name: str) -> Any:
        with self._lock:
            return self._containers.get(container or DEFAULT_CONTAINER, {}).get(name)

    def delete(self, container: str, name: str) -> None:
        with self._lock:
            self._containers.get(container or DEFAULT_CONTAINER, {}).pop(name, None)

    def clear(self, containers: Optional[List[str]] = None) -> None:
        """Drops every resource in ``containers`` (all containers when None)."""
        with self._lock:
            victims = list(self._containers) if not containers else containers
            for c in victims:
                for r in self._containers.pop(c, {}).values():
                    close = getattr(r, "close_for_reset", None)
                    if close is not None:
                        close()

    def items(self) -> List[Tuple[str, str, Any]]:
        with self._lock:
            return [(c, n, r) for c, d in self._containers.items() for n, r in d.items()]

    def variables(self) -> List[VariableResource]:
        return [r for _, _, r in self.items() if isinstance(r, VariableResource)]


__all__ = ["ResourceManager", "VariableResource", "DEFAULT_CONTAINER"]
