"""scipy's submodules for the kernels that need them, imported on first use.

Importing ``scipy.linalg`` costs about half a second (more on a busy machine) of every
program's start, and only a few linear-algebra kernels use it."""

from __future__ import annotations

from types import ModuleType


def linalg() -> ModuleType:
    """``scipy.linalg``, imported on the first call."""
    import scipy.linalg
    return scipy.linalg


__all__ = ["linalg"]
