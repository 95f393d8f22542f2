"""The 8x8 handwritten digits that ship inside scikit-learn, read without importing it.

``sklearn.datasets.load_digits`` imports scikit-learn and SciPy first, about 1.4 s of CPU
in every process that calls it; the demo and the examples start one process per task, so
that import was most of a short run's cost. The data is one CSV file in scikit-learn's
package directory, which numpy reads in about 15 ms, to the same arrays.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Tuple

import numpy as np

_CSV = os.path.join("datasets", "data", "digits.csv.gz")


def digits_arrays() -> Tuple[np.ndarray, np.ndarray]:
    """``(data, target)`` as ``sklearn.datasets.load_digits()`` gives them: ``data`` float64
    ``[1797, 64]`` with values 0-16, ``target`` int64 ``[1797]``."""
    spec = importlib.util.find_spec("sklearn")
    if spec is None or spec.origin is None:
        raise ImportError("the digits ship inside scikit-learn, which is not installed: "
                          "pip install scikit-learn")
    path = os.path.join(os.path.dirname(spec.origin), _CSV)
    if not os.path.exists(path):
        raise FileNotFoundError(f"scikit-learn is installed but has no digits file at {path}")
    table = np.loadtxt(path, delimiter=",", dtype=np.float64, ndmin=2)
    if table.shape[1] != 65:
        raise ValueError(f"{path}: expected 65 columns (64 pixels and a label), "
                         f"found {table.shape[1]}")
    return table[:, :-1], table[:, -1].astype(np.int64)
