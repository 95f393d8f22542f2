"""``tf.keras.datasets``: the Keras data sets from the files Keras caches, already on disk.

Nothing is downloaded: ``load_data`` reads ``~/.keras/datasets/<file>`` (or the
``path`` given, absolute or relative to that folder) and raises a
``FileNotFoundError`` naming the path and the URL the file is published at when it is
missing. MNIST, Fashion-MNIST and Boston housing are here; the word-index data sets
(IMDB, Reuters) are in ``tensorfleet.keras.text_datasets``, CIFAR in
``tensorfleet.keras.cifar_datasets``.
"""

from __future__ import annotations

import os
from typing import Tuple

import numpy as np

Split = Tuple[np.ndarray, np.ndarray]


DATASETS_URL = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"


def locate(path: str, what: str = "an .npz with arrays x_train, y_train, x_test, "
                                  "y_test") -> str:
    """The path of the data set file ``path``: as given when it exists or is absolute,
    else in ``~/.keras/datasets``.

    Raises:
      FileNotFoundError: the file is not there; the message names the path and the URL
        Keras downloads it from.
    """
    if os.path.isabs(path) or os.path.exists(path):
        full = path
    else:
        full = os.path.join(os.path.expanduser("~"), ".keras", "datasets", path)
    if not os.path.exists(full):
        raise FileNotFoundError(
            f"{full} does not exist and tensorfleet does not download data sets; download "
            f"{DATASETS_URL}{os.path.basename(path)} ({what}) to that path or pass its "
            f"location as load_data(path=...)")
    return full


def _load_npz(path: str) -> Tuple[Split, Split]:
    with np.load(locate(path), allow_pickle=False) as f:
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


def load_boston_housing(path: str = "boston_housing.npz", test_split: float = 0.2,
                        seed: int = 113) -> Tuple[Split, Split]:
    """The Boston housing prices: ``(x_train, y_train), (x_test, y_test)`` from the
    ``x``/``y`` arrays of ``boston_housing.npz``, shuffled with ``seed`` as Keras
    shuffles them, the last ``test_split`` share for testing.

    Raises:
      ValueError: ``test_split`` outside [0, 1), or a file without ``x`` and ``y``.
    """
    if not 0 <= test_split < 1:
        raise ValueError(f"test_split must be between 0 and 1, got {test_split}")
    with np.load(locate(path, "an .npz with arrays x and y"), allow_pickle=False) as f:
        if "x" not in f or "y" not in f:
            raise ValueError(f"{path}: the .npz file lacks the arrays x and y")
        x, y = f["x"], f["y"]
    if len(x) != len(y):
        raise ValueError(f"{path}: x has {len(x)} rows but y has {len(y)}")
    order = np.arange(len(x))
    np.random.RandomState(seed).shuffle(order)
    x, y = x[order], y[order]
    n = int(len(x) * (1 - test_split))
    return (x[:n], y[:n]), (x[n:], y[n:])


__all__ = ["load_boston_housing", "load_fashion_mnist", "load_mnist"]
