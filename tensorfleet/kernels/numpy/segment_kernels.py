"""numpy kernels of the segment reductions (``ops/segment_ops.py``).

Rows of one segment are contiguous once the ids are sorted (they already are for
the sorted ops), so every reduction is one ``ufunc.reduceat`` over the run starts,
written into the rows of the segments that occur; the others keep the value of an
empty segment.
"""

from __future__ import annotations

from typing import Any, Tuple

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel

_UFUNCS = {"sum": np.add, "mean": np.add, "max": np.maximum, "min": np.minimum,
           "prod": np.multiply}


def _runs(ids: np.ndarray) -> np.ndarray:
    """Start index of each run of equal ids."""
    return np.flatnonzero(np.concatenate([[True], ids[1:] != ids[:-1]]))


def _reduce(kind: str, rows: np.ndarray, ids: np.ndarray, num: int, empty: Any
            ) -> np.ndarray:
    """Reduces the rows of ``rows`` (sorted by ``ids``) into ``num`` segments."""
    out = np.full((num,) + rows.shape[1:], empty, dtype=rows.dtype)
    if ids.size == 0:
        return out
    starts = _runs(ids)
    seg = ids[starts]
    vals = _UFUNCS[kind].reduceat(rows, starts, axis=0)
    if kind == "mean":
        counts = np.diff(np.append(starts, ids.size)).reshape((-1,) + (1,) * (rows.ndim - 1))
        if rows.dtype.kind in "iu":
            vals = np.fix(vals / counts).astype(rows.dtype)
        else:
            vals = vals / counts.astype(rows.dtype)
    out[seg] = vals
    return out


def _sorted_kernel(kind: str):
    def kernel(ctx: KernelContext, data: Any, segment_ids: Any) -> np.ndarray:
        x, ids = np.asarray(data), np.asarray(segment_ids).astype(np.int64)
        if ids.ndim != 1:
            raise invalid(ctx, f"segment_ids should be a vector, got shape {list(ids.shape)}")
        if x.ndim == 0 or x.shape[0] != ids.size:
            raise invalid(ctx, f"segment_ids should be the same size as dimension 0 of data: "
                               f"{ids.size} vs. data shape {list(x.shape)}")
        if ids.size and ids[0] < 0:
            raise invalid(ctx, f"segment ids must be non-negative, got {ids[0]}")
        down = np.flatnonzero(ids[1:] < ids[:-1])
        if down.size:
            i = int(down[0]) + 1
            raise invalid(ctx, f"segment ids are not increasing: ids[{i - 1}] = {ids[i - 1]} > "
                               f"ids[{i}] = {ids[i]}")
        num = int(ids[-1]) + 1 if ids.size else 0
        return _reduce(kind, x, ids, num, 1 if kind == "prod" else 0)

    return kernel


for _kind in ("sum", "mean", "max", "min", "prod"):
    register_kernel("Segment" + _kind.capitalize())(_sorted_kernel(_kind))


def _unsorted_args(ctx: KernelContext, data: Any, segment_ids: Any, num_segments: Any
                   ) -> Tuple[np.ndarray, np.ndarray, int]:
    x, ids = np.asarray(data), np.asarray(segment_ids).astype(np.int64)
    num = int(num_segments)
    if num < 0:
        raise invalid(ctx, f"num_segments must be non-negative, got {num}")
    if x.shape[:ids.ndim] != ids.shape:
        raise invalid(ctx, f"data.shape = {list(x.shape)} does not start with "
                           f"segment_ids.shape = {list(ids.shape)}")
    rows = x.reshape((ids.size,) + x.shape[ids.ndim:])
    flat = ids.reshape(-1)
    if flat.size and flat.max() >= num:
        raise invalid(ctx, f"segment_ids[{int(np.argmax(flat))}] = {int(flat.max())} is out "
                           f"of range [0, {num})")
    keep = flat >= 0  # negative ids drop their rows
    rows, flat = rows[keep], flat[keep]
    order = np.argsort(flat, kind="stable")
    return rows[order], flat[order], num


def _limits(dtype: np.dtype) -> Tuple[Any, Any]:
    if dtype.kind == "f":
        return np.finfo(dtype).min, np.finfo(dtype).max
    if dtype.kind in "iu":
        return np.iinfo(dtype).min, np.iinfo(dtype).max
    return False, True


def _unsorted_kernel(kind: str):
    def kernel(ctx: KernelContext, data: Any, segment_ids: Any, num_segments: Any
               ) -> np.ndarray:
        rows, ids, num = _unsorted_args(ctx, data, segment_ids, num_segments)
        lo, hi = _limits(rows.dtype)
        empty = {"max": lo, "min": hi, "prod": 1}[kind]
        return _reduce(kind, rows, ids, num, empty)

    return kernel


for _kind in ("max", "min", "prod"):
    register_kernel("UnsortedSegment" + _kind.capitalize())(_unsorted_kernel(_kind))
