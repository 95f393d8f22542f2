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

A result of ``SPLIT_MIN_BYTES`` or more whose inputs are each either a scalar or a
C-contiguous array of the result's shape is computed a block of ``SPLIT_BLOCK``
elements at a time on the kernel threads (``parallel_tasks``; numpy releases the GIL
in the loop): the ``Add`` of a 16M-float tensor received from another task, 10 ms on
one thread, is bound by memory bandwidth that one core does not use up. The values
are those of the one call, element by element. It uses the cores that other processes
leave free (``parallel_tasks.spare_thread_count``), also beyond the task's share of a
host that it shares with other tasks: in a step where the task that sent the tensor
waits, its core is free. With one such core the one call runs.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from tensorfleet.kernels.numpy import parallel_tasks
from tensorfleet.transport import buffers

SPLIT_MIN_BYTES = 16 << 20
SPLIT_BLOCK = 1 << 20


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
        if out.nbytes >= SPLIT_MIN_BYTES and parallel_tasks.spare_thread_count() > 1 \
                and all(x.size == 1 or (x.shape == out.shape and x.flags.c_contiguous)
                        for x in xs):
            _blocked(fn, xs, out)
            return out
        return fn(*xs, out=out)

    call.__name__ = getattr(fn, "__name__", "pooled_ufunc")
    return call


def _blocked(fn: Callable[..., Any], xs: tuple, out: np.ndarray) -> None:
    """``fn(*xs, out=out)`` a block at a time on the kernel threads; every ``x`` is a
    scalar or a C-contiguous array of ``out``'s shape."""
    flat_out = out.reshape(-1)
    flat = [x.reshape(()) if x.size == 1 else x.reshape(-1) for x in xs]
    # The helper threads do not share the caller's floating-point error state.
    err = np.geterr()

    def block(start: int) -> Callable[[], None]:
        stop = start + SPLIT_BLOCK

        def run() -> None:
            with np.errstate(**err):
                fn(*[x if x.ndim == 0 else x[start:stop] for x in flat],
                   out=flat_out[start:stop])
        return run

    parallel_tasks.run([block(s) for s in range(0, flat_out.size, SPLIT_BLOCK)], spare=True)


__all__ = ["pooled_ufunc", "SPLIT_MIN_BYTES"]
