"""The storage of one variable, the resource that state and training kernels update.

It lives with the kernels that use it; the task's ResourceManager (runtime/)
holds the instances, keyed by name.
"""

from __future__ import annotations

import threading
from typing import Any, Optional

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors


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


__all__ = ["VariableResource"]
