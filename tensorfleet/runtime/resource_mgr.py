"""Per-task resource manager: variables, queues and accumulators keyed by name.

Resources live here rather than in a session, so that on a server they outlive
the client sessions that created them: two clients that create a variable of the
same name on ``/job:ps/task:0`` share it.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors

DEFAULT_CONTAINER = ""


class VariableResource:
    """The storage of one variable.

    ``value`` is always a *view* of an owning buffer, so that in-place updates
    (optimizers) stay cheap while any fetched value can be recognized as a view
    and copied before it is handed to a user.
    """

    __slots__ = ("name", "dtype", "shape", "value", "lock", "version")

    def __init__(self, name: str, dtype: _dtypes.DType, shape: Any):
        self.name = name
        self.dtype = dtype
        self.shape = shape
        self.value: Optional[np.ndarray] = None
        self.lock = threading.Lock()
        self.version = 0

    @property
    def initialized(self) -> bool:
        return self.value is not None

    def set(self, value: np.ndarray) -> None:
        """Replaces the stored value with a private copy of ``value``."""
        arr = np.array(value, dtype=self.dtype.np, copy=True)
        self.value = arr.view()
        self.version += 1

    def read(self) -> np.ndarray:
        v = self.value
        if v is None:
            raise errors.FailedPreconditionError(
                self.name, None, f"Attempting to use uninitialized value {self.name}")
        return v

    def nbytes(self) -> int:
        return 0 if self.value is None else int(self.value.nbytes)


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
