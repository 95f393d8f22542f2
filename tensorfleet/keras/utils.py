"""``tf.keras.utils``: ``to_categorical``, ``normalize`` and ``get_file`` for files
already on disk (there is no download here)."""

from __future__ import annotations

import os
from typing import Any, Optional

import numpy as np


def to_categorical(y: Any, num_classes: Optional[int] = None,
                   dtype: str = "float32") -> np.ndarray:
    """One-hot rows for the integer class labels ``y``; a trailing axis of size 1 is
    dropped first, so ``(n, 1)`` labels give ``(n, num_classes)``.

    Raises:
      ValueError: negative labels, or labels not below ``num_classes``.
    """
    y = np.array(y, dtype="int64")
    shape = y.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    y = y.ravel()
    if y.size and y.min() < 0:
        raise ValueError(f"to_categorical: labels must be non-negative, got {y.min()}")
    if num_classes is None:
        num_classes = int(y.max()) + 1 if y.size else 0
    elif y.size and y.max() >= num_classes:
        raise ValueError(f"to_categorical: label {y.max()} is out of range for "
                         f"num_classes={num_classes}")
    out = np.zeros((y.shape[0], num_classes), dtype=dtype)
    out[np.arange(y.shape[0]), y] = 1
    return out.reshape(shape + (num_classes,))


def normalize(x: Any, axis: int = -1, order: int = 2) -> np.ndarray:
    """``x`` divided by its ``order``-norm along ``axis`` (zero norms left as they are)."""
    x = np.asarray(x)
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis)


def get_file(fname: str, origin: Optional[str] = None, cache_subdir: str = "datasets",
             cache_dir: Optional[str] = None, **kwargs: Any) -> str:
    """The path of ``fname`` in the Keras cache (``~/.keras/<cache_subdir>``).

    Nothing is downloaded: the file must already be there.

    Raises:
      FileNotFoundError: the file is not in the cache, naming where to put it.
    """
    base = cache_dir or os.path.join(os.path.expanduser("~"), ".keras")
    path = os.path.join(base, cache_subdir, fname)
    if not os.path.exists(path):
        where = f" (it is published at {origin})" if origin else ""
        raise FileNotFoundError(f"{path} does not exist and tensorfleet does not download "
                                f"files; copy {fname}{where} to that path")
    return path


__all__ = ["to_categorical", "normalize", "get_file"]
