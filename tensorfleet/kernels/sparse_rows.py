"""Rows of a sparse gradient (``values`` with their row ``indices``), made unique.

Used by the sparse optimizer kernels and by the sparse accumulators, which sit beside
the kernel library rather than in it.
"""

from __future__ import annotations

from typing import Tuple

import numpy as np


def sum_duplicates(values: np.ndarray, indices: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """``(values, indices)`` with the rows of repeated indices summed, indices unique.

    Sort-based: ``np.add.reduceat`` over runs of equal indices is much faster than
    ``np.add.at`` and keeps the dtype of ``values``.
    """
    if indices.size < 2:
        return values, indices
    order = np.argsort(indices, kind="stable")
    s = indices[order]
    first = np.empty(s.size, dtype=bool)
    first[0] = True
    np.not_equal(s[1:], s[:-1], out=first[1:])
    if first.all():
        return values, indices
    starts = np.flatnonzero(first)
    return np.add.reduceat(values[order], starts, axis=0), s[starts]


__all__ = ["sum_duplicates"]
