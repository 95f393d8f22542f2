"""How many OpenMP threads oneDNN's primitives use in this process.

oneDNN's GNU OpenMP build sizes its teams from ``omp_get_max_threads`` and fixes
a primitive's thread partitioning when the primitive is built, so the limit is part
of every primitive cache key and is applied to the executing thread before each
run. ``tensorfleet.runtime.threads`` sets it together with the BLAS limit (the same
contention policy for both libraries); a process that never sets one uses the cores
it may run on. oneDNN primitives run one at a time in a process (see
``library.Library.lock``) and the executor runs a step's kernels one after the
other, so the OpenMP team and BLAS's threads never run at the same moment.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Optional

_limit: Optional[int] = None
# The most threads a kernel split over its batch may use (see ``batch_split``).
_workers: Optional[int] = None
# The cores other processes left free at the contention policy's last look.
_spare: Optional[int] = None
_pool: Optional[ThreadPoolExecutor] = None
_pool_lock = threading.Lock()


def set_limit(n: int) -> None:
    """Uses ``n`` OpenMP threads for oneDNN primitives from now on (``n`` >= 1)."""
    global _limit
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"oneDNN thread limit must be a positive int, got {n!r}")
    _limit = n


def set_workers(n: int) -> None:
    """Lets kernels split over their batch use up to ``n`` threads (``n`` >= 1): the
    process's share of the cores, which the contention policy does not lower (a late
    thread delays only the slice it holds)."""
    global _workers
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"oneDNN worker count must be a positive int, got {n!r}")
    _workers = n


def set_spare(n: Optional[int]) -> None:
    """Records the cores that other processes leave free (``n`` >= 1), as the
    contention policy measured them; None when it does not run (a limit was set)."""
    global _spare
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise ValueError(f"spare core count must be a positive int or None, got {n!r}")
    _spare = n


def spare() -> int:
    """Threads for memory-bound work split into blocks (``parallel_tasks``), whose
    helper threads never spin: the cores other processes leave free, which may be
    more than this task's share of the host; the thread limit without a measure."""
    return _spare if _spare is not None else limit()


def workers() -> int:
    """Threads for a kernel split over its batch: the count set, or the cores this
    process may run on."""
    if _workers is not None:
        return _workers
    return _cores()


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def helpers() -> ThreadPoolExecutor:
    """The threads that work beside the calling one on a kernel split into slices or
    blocks: one fewer than the cores this process may run on (at least one)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=max(1, _cores() - 1),
                                       thread_name_prefix="kernel")
        return _pool


def helper_count() -> int:
    """How many threads ``helpers()`` has."""
    return max(1, _cores() - 1)


def limit() -> int:
    """The thread limit in force: the one set, or the cores this process may run on."""
    if _limit is not None:
        return _limit
    return _cores()


__all__ = ["set_limit", "limit", "set_workers", "workers", "set_spare", "spare", "helpers",
           "helper_count"]
