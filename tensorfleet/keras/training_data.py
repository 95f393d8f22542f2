"""Numpy data handling of ``fit``/``evaluate``/``predict``: matching arrays to a
model's inputs and outputs, checking them, and cutting them into batches."""

from __future__ import annotations

from typing import Any, Iterator, List, Optional, Sequence

import numpy as np

from tensorfleet.framework.graph import Tensor


def standardize(data: Any, names: Sequence[str], tensors: Optional[Sequence[Tensor]],
                what: str) -> List[np.ndarray]:
    """``data`` (an array, a list of arrays or a dict by layer name) as a list of
    arrays in the order of ``names``.

    Raises:
      ValueError: a count, name or rank that does not fit.
    """
    if data is None:
        raise ValueError(f"Expected {what} data, got None")
    if isinstance(data, dict):
        missing = [n for n in names if n not in data]
        if missing:
            raise ValueError(f"No data provided for {missing}. Need data for each key in: "
                             f"{list(names)}")
        arrays = [np.asarray(data[n]) for n in names]
    elif isinstance(data, (list, tuple)) and len(names) > 1:
        arrays = [np.asarray(d) for d in data]
    else:
        arrays = [np.asarray(data)]
    if names and len(arrays) != len(names):
        raise ValueError(f"Error when checking model {what}: the list of Numpy arrays that "
                         f"you are passing to your model is not the size the model expected. "
                         f"Expected to see {len(names)} array(s), but instead got "
                         f"{len(arrays)} array(s)")
    if tensors is not None:
        for name, arr, t in zip(names, arrays, tensors):
            shape = t.shape
            if shape.ndims is None:
                continue
            if arr.ndim != shape.ndims:
                raise ValueError(f"Error when checking {what}: expected {name} to have "
                                 f"{shape.ndims} dimensions, but got array with shape "
                                 f"{arr.shape}")
            for i, d in enumerate(shape.as_list()[1:], start=1):
                if d is not None and arr.shape[i] != d:
                    raise ValueError(f"Error when checking {what}: expected {name} to have "
                                     f"shape {tuple(shape.as_list()[1:])} but got array with "
                                     f"shape {arr.shape[1:]}")
    return arrays


def expand_targets(ys: List[np.ndarray], outputs: Sequence[Tensor],
                   sparse: Sequence[bool]) -> List[np.ndarray]:
    """Targets one rank short of their output (``(n,)`` for ``(n, 1)``) get a last axis."""
    out = []
    for y, t, is_sparse in zip(ys, outputs, sparse):
        if not is_sparse and t.shape.ndims is not None and y.ndim == t.shape.ndims - 1:
            y = y[..., None]
        out.append(y)
    return out


def check_lengths(arrays: Sequence[np.ndarray]) -> int:
    """The common number of samples of ``arrays``.

    Raises:
      ValueError: arrays with different numbers of samples, or scalars.
    """
    if not arrays:
        raise ValueError("No data")
    lengths = set()
    for a in arrays:
        if a.ndim == 0:
            raise ValueError("Input arrays must have a batch dimension, got a scalar")
        lengths.add(a.shape[0])
    if len(lengths) > 1:
        raise ValueError(f"All input arrays (x) and target arrays (y) should have the same "
                         f"number of samples. Got array shapes: "
                         f"{[a.shape for a in arrays]}")
    return lengths.pop()


def batches(n: int, batch_size: int, shuffle: Any = False) -> Iterator[np.ndarray]:
    """Index arrays of consecutive batches; ``shuffle=True`` permutes the samples,
    ``'batch'`` only the order of the batches."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size}")
    index = np.arange(n)
    if shuffle is True:
        np.random.shuffle(index)
    starts = np.arange(0, n, batch_size)
    if shuffle == "batch":
        np.random.shuffle(starts)
    for s in starts:
        yield index[s:s + batch_size]


def split_validation(arrays: List[np.ndarray], fraction: float) -> tuple:
    """The last ``fraction`` of every array split off, as Keras's ``validation_split``."""
    if not 0.0 < fraction < 1.0:
        raise ValueError(f"validation_split must be in (0, 1), got {fraction}")
    n = arrays[0].shape[0]
    at = int(n * (1.0 - fraction))
    return [a[:at] for a in arrays], [a[at:] for a in arrays]


__all__ = ["standardize", "expand_targets", "check_lengths", "batches", "split_validation"]
