"""Data for the examples: scikit-learn's 8x8 digits and a synthetic teacher task.

Plain numpy, so an example that imports it runs unchanged under TensorFlow too (the
digits are then read by scikit-learn, without tensorfleet's faster reader). Nothing is
downloaded: the digits ship inside scikit-learn.
"""

from __future__ import annotations

from typing import Iterator, Tuple

import numpy as np

Split = Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _digits_arrays() -> Tuple[np.ndarray, np.ndarray]:
    """``(data [N, 64], target [N])``: read from scikit-learn's data file by tensorfleet's
    reader where tensorfleet is installed (no import of scikit-learn, about 1.4 s of CPU in
    every task process), else by scikit-learn itself."""
    try:
        from tensorfleet.cli.digits import digits_arrays
    except ImportError:
        from sklearn.datasets import load_digits
        digits = load_digits()
        return digits.data, digits.target
    return digits_arrays()


def load_digits_split(test_fraction: float = 0.2, split_seed: int = 0) -> Split:
    """``(x_train, y_train, x_test, y_test)``: images ``[N, 8, 8, 1]`` in [0, 1], int labels.

    The samples are shuffled once with ``split_seed`` (the dataset is ordered by
    writer) and the last ``test_fraction`` of them is held out, so the test set
    does not depend on the training seed.
    """
    data, target = _digits_arrays()
    x = (data.astype(np.float32) / 16.0).reshape(-1, 8, 8, 1)
    y = target.astype(np.int64)
    order = np.random.RandomState(split_seed).permutation(len(y))
    x, y = x[order], y[order]
    n_test = int(round(len(y) * test_fraction))
    return x[:-n_test], y[:-n_test], x[-n_test:], y[-n_test:]


def teacher_task(n: int, dim: int = 784, classes: int = 10, seed: int = 0) -> Tuple[np.ndarray,
                                                                                       np.ndarray]:
    """Gaussian inputs labelled by a fixed random linear teacher: ``argmax(x @ W)``."""
    rng = np.random.RandomState(seed)
    w = rng.randn(dim, classes).astype(np.float32)
    x = rng.randn(n, dim).astype(np.float32)
    return x, np.argmax(x @ w, axis=1).astype(np.int64)


def one_hot(labels: np.ndarray, classes: int = 10) -> np.ndarray:
    """Labels as float32 one-hot rows."""
    out = np.zeros((len(labels), classes), dtype=np.float32)
    out[np.arange(len(labels)), labels] = 1.0
    return out


def batches(x: np.ndarray, y: np.ndarray, batch_size: int,
            seed: int) -> Iterator[Tuple[np.ndarray, np.ndarray]]:
    """Endless mini-batches, reshuffled every epoch."""
    rng = np.random.RandomState(seed)
    n = len(y)
    while True:
        order = rng.permutation(n)
        for start in range(0, n - batch_size + 1, batch_size):
            idx = order[start:start + batch_size]
            yield x[idx], y[idx]
