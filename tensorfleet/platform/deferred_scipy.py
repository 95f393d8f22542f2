"""``scipy.special``, ``scipy.fft``, ``scipy.fftpack`` and ``scipy.linalg``, imported
when one of their functions is first called.

Importing them takes about a third of a second (``scipy.linalg`` brings numpy's f2py),
and every tensorfleet process (each task of a cluster, each launched rank) would pay it
at start for ops that most programs never run. Modules name the functions here at
import time and get callables that import the scipy module on their first call.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable


class _Deferred:
    """A function of a scipy module, looked up on its first call."""

    __slots__ = ("_module", "_name", "_fn")

    def __init__(self, module: str, name: str) -> None:
        self._module, self._name = module, name
        self._fn: Callable[..., Any] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._fn is None:
            self._fn = getattr(importlib.import_module(self._module), self._name)
        return self._fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"{self._module}.{self._name} (imported on first call)"


class _DeferredModule:
    def __init__(self, module: str) -> None:
        self._module = module

    def __getattr__(self, name: str) -> _Deferred:
        if name.startswith("_"):
            raise AttributeError(name)
        return _Deferred(self._module, name)


special = _DeferredModule("scipy.special")
fft = _DeferredModule("scipy.fft")
fftpack = _DeferredModule("scipy.fftpack")
linalg = _DeferredModule("scipy.linalg")
