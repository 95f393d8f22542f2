"""``tf.keras.datasets``: MNIST and Fashion-MNIST from ``.npz`` files already on disk.

Nothing is downloaded: ``load_data`` reads ``~/.keras/datasets/<file>`` (or the
``path`` given, absolute or relative to that folder) and raises a
``FileNotFoundError`` saying where to put the file when it is missing.
"""

from __future__ import annotations

import os
import types
from typing import Tuple

import numpy as np

Split = Tuple[np.ndarray, np.ndarray]


def _locate(path: str) -> str:
    if os.path.isabs(path) or os.path.exists(path):
        full = path
    else:
        full = os.path.join(os.path.expanduser("~"), ".keras", "datasets", path)
    if not os.path.exists(full):
        raise FileNotFoundError(
            f"{full} does not exist and tensorfleet does not download data sets; put the "
            f"file there (an .npz with arrays x_train, y_train, x_test, y_test) or pass its "
            f"location as load_data(path=...)")
    return full


def _load_npz(path: str) -> Tuple[Split, Split]:
    with np.load(_locate(path), allow_pickle=False) as f:
        missing = [k for k in ("x_train", "y_train", "x_test", "y_test") if k not in f]
        if missing:
            raise ValueError(f"{path}: the .npz file lacks the arrays {missing}")
        return (f["x_train"], f["y_train"]), (f["x_test"], f["y_test"])


def load_mnist(path: str = "mnist.npz") -> Tuple[Split, Split]:
    """``(x_train, y_train), (x_test, y_test)``: uint8 28x28 digit images and labels."""
    return _load_npz(path)


def load_fashion_mnist(path: str = "fashion-mnist.npz") -> Tuple[Split, Split]:
    """Fashion-MNIST from one ``.npz`` with the same four arrays as MNIST's."""
    return _load_npz(path)


mnist = types.SimpleNamespace(load_data=load_mnist)
fashion_mnist = types.SimpleNamespace(load_data=load_fashion_mnist)

__all__ = ["mnist", "fashion_mnist", "load_mnist", "load_fashion_mnist"]
