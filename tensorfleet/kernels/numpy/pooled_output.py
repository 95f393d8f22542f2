"""Big element-wise results written into reused memory instead of fresh pages.

A ufunc that allocates its own result takes fresh memory from the OS each step,
and on this project's VMs the first touch of fresh pages costs anything from a few
to hundreds of milliseconds per 64 MiB (see ``transport.buffers``): measured on a
two-task cluster, ``reduce_sum(big + 1.0)`` of a 16M-float tensor received from
another task spent 24 to 620 ms in the ``Add`` alone, against about 30 ms when the
same ``Add`` wrote into memory already mapped. So a result of at least
``buffers.MIN_POOLED_BYTES`` goes into a buffer of the process's pool, which takes
it back once the result and every view of it are gone.

Only float inputs of one dtype use the pool, and only with ufuncs whose result has
their dtype (arithmetic, not comparisons), so the buffer's dtype is known before
the call.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from tensorfleet.transport import buffers


def _pooled_result(xs: tuple) -> Any:
    """A pooled output array for ``xs``, or None when they do not qualify."""
    first = xs[0]
    if not isinstance(first, np.ndarray) or first.dtype.kind != "f":
        return None
    dtype = first.dtype
    shapes = []
    for x in xs:
        if not isinstance(x, np.ndarray) or x.dtype != dtype:
            return None
        shapes.append(x.shape)
    try:
        shape = shapes[0] if len(shapes) == 1 else np.broadcast_shapes(*shapes)
    except ValueError:
        return None  # the ufunc itself reports the mismatch
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if nbytes < buffers.MIN_POOLED_BYTES:
        return None
    return buffers.take(nbytes).view(dtype).reshape(shape)


def pooled_ufunc(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn(*xs)`` for a numpy ufunc ``fn``, writing a big float result into pooled
    memory (same values, same dtype and shape as ``fn(*xs)``)."""

    def call(*xs: Any) -> Any:
        out = _pooled_result(xs)
        if out is None:
            return fn(*xs)
        return fn(*xs, out=out)

    call.__name__ = getattr(fn, "__name__", "pooled_ufunc")
    return call


__all__ = ["pooled_ufunc"]
