"""Tensor fusion: many small tensors reduced as one buffer.

A reduction of a few kilobytes costs about as much as one of a megabyte (it is
dominated by round trips), so a model with many small variables spends its
step in latency unless its gradients travel together. ``plan_buckets`` groups
tensors, in the order backprop produces them, into buckets of one dtype up to
a byte threshold; ``pack`` and ``unpack`` move a bucket's tensors in and out of
one flat buffer. The planning is pure, so tests check it directly.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from tensorfleet import errors

DEFAULT_FUSION_THRESHOLD = 64 << 20


def plan_buckets(items: Sequence[Tuple[Optional[int], Any]], threshold: int) -> List[List[int]]:
    """Indices of ``items`` grouped into buckets, keeping their order.

    Args:
      items: ``(nbytes, dtype)`` per tensor, in the order the tensors become
        ready; ``nbytes`` None (shape unknown when the graph is built) puts the
        tensor in a bucket of its own.
      threshold: the largest bucket in bytes; 0 or less disables fusion (one
        bucket per tensor). A tensor bigger than the threshold gets its own.

    A bucket closes when the next tensor has another dtype or would take it
    past ``threshold``: a bucket's reduction can start as soon as its last
    tensor is ready, so buckets are consecutive runs rather than a packing.
    """
    buckets: List[List[int]] = []
    current: List[int] = []
    size, dtype = 0, None
    for i, (nbytes, dt) in enumerate(items):
        fits = (threshold > 0 and nbytes is not None and current and dt == dtype
                and size + nbytes <= threshold)
        if not fits:
            if current:
                buckets.append(current)
            current, size, dtype = [], 0, dt
        current.append(i)
        size += nbytes or 0
        if nbytes is None or threshold <= 0:
            buckets.append(current)
            current, size, dtype = [], 0, None
    if current:
        buckets.append(current)
    return buckets


def pack(arrays: Sequence[np.ndarray], out: Optional[np.ndarray] = None) -> np.ndarray:
    """The arrays' elements back to back in one flat buffer (``out`` reused if it fits).

    Raises:
      InvalidArgumentError: the arrays do not share one dtype.
    """
    if not arrays:
        return np.empty(0, np.float32)
    dtype = arrays[0].dtype
    total = 0
    for a in arrays:
        if a.dtype != dtype:
            raise errors.InvalidArgumentError(
                None, None, f"a fused buffer holds one dtype, got {dtype} and {a.dtype}")
        total += a.size
    if out is None or out.dtype != dtype or out.size != total:
        out = np.empty(total, dtype)
    pos = 0
    for a in arrays:
        out[pos:pos + a.size] = a.reshape(-1)
        pos += a.size
    return out


def unpack(buffer: np.ndarray, shapes: Sequence[Sequence[int]]) -> List[np.ndarray]:
    """Views of ``buffer`` with the given shapes, in order.

    Raises:
      InvalidArgumentError: the shapes do not add up to the buffer's size.
    """
    out: List[np.ndarray] = []
    pos = 0
    for shape in shapes:
        n = int(np.prod(shape, dtype=np.int64)) if len(shape) else 1
        out.append(buffer[pos:pos + n].reshape(shape))
        pos += n
    if pos != buffer.size:
        raise errors.InvalidArgumentError(
            None, None, f"fused buffer of {buffer.size} elements does not match the shapes "
            f"{[list(s) for s in shapes]} ({pos} elements)")
    return out


def group_by_dtype(arrays: Sequence[np.ndarray]) -> List[List[int]]:
    """Indices of ``arrays`` grouped by dtype, in order of first appearance."""
    groups: dict = {}
    for i, a in enumerate(arrays):
        groups.setdefault(a.dtype.str, []).append(i)
    return list(groups.values())


__all__ = ["DEFAULT_FUSION_THRESHOLD", "plan_buckets", "pack", "unpack", "group_by_dtype"]
