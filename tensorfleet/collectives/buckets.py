"""Fusion buckets: which tensors one collective reduces together, so that many small
gradients travel as a few large messages."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from tensorfleet.framework.graph import Tensor


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


def static_nbytes(t: Tensor) -> Optional[int]:
    """The bytes of ``t`` if its shape is fully known, else None."""
    shape = t.shape
    if not shape.is_fully_defined():
        return None
    return int(shape.num_elements()) * t.dtype.size


__all__ = ["plan_buckets", "static_nbytes"]
