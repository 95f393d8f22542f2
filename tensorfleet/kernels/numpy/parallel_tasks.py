"""Runs a kernel's independent pieces of work on the calling thread and the kernel helper
threads at once.

numpy releases the GIL inside BLAS calls and inside ufunc loops, so pieces of work made
of such calls on disjoint parts of the arrays run in parallel. The threads take the
pieces one at a time from a shared counter: a thread that the operating system keeps
off a core for a while holds up only the piece it is working on, and the others take
the rest. The helpers are ``tensorfleet.kernels.onednn.threads.helpers()``, shared with
the oneDNN kernels split over their batch.

How many threads a call uses is ``threads.limit()``: the BLAS and oneDNN limit, which
the contention policy lowers to the cores other processes leave free. Work made of many
short numpy calls hands the GIL between the threads at every call, and a thread that
waits for a core holds up the piece it has taken: measured on an LSTM layer's backward
kernel (28 steps, batch 128, 128 units) on 2 cores busy with other processes, 86 ms
with two threads against 31 ms with one.
"""

from __future__ import annotations

import itertools
from typing import Callable, List, Sequence

from tensorfleet.kernels.onednn import threads

Task = Callable[[], None]


def thread_count() -> int:
    """How many threads ``run`` uses: the calling one and up to the helpers' count, at
    most the thread limit in force."""
    return max(1, min(threads.limit(), 1 + threads.helper_count()))


def spare_thread_count() -> int:
    """How many threads ``run(..., spare=True)`` uses: the calling one and up to the
    helpers' count, at most the cores other processes leave free (``threads.spare``)."""
    return max(1, min(threads.spare(), 1 + threads.helper_count()))


def run(tasks: Sequence[Task], spare: bool = False) -> None:
    """Runs every task once, on as many threads as ``thread_count()`` allows (with
    ``spare``, ``spare_thread_count()``: for memory-bound tasks), and returns when all
    have ended. The first exception a task raises is raised here, after the other
    threads have stopped."""
    n = min(spare_thread_count() if spare else thread_count(), len(tasks))
    if n <= 1:
        for task in tasks:
            task()
        return
    counter = itertools.count()
    failed: List[bool] = []

    def work() -> None:
        while not failed:
            # next() on an itertools.count is atomic under the GIL.
            i = next(counter)
            if i >= len(tasks):
                return
            try:
                tasks[i]()
            except BaseException:
                failed.append(True)
                raise

    futures = [threads.helpers().submit(work) for _ in range(n - 1)]
    try:
        work()
    finally:
        errors = []
        for f in futures:
            try:
                f.result()
            except BaseException as e:  # noqa: BLE001 - raised again below
                errors.append(e)
    if errors:
        raise errors[0]


def spans(size: int, pieces: int) -> List[range]:
    """``range(size)`` cut into ``pieces`` (at most ``size``) contiguous spans of nearly
    equal length, as ``range`` objects (their ``start`` and ``stop``)."""
    pieces = max(1, min(pieces, size))
    step, extra = divmod(size, pieces)
    out, start = [], 0
    for i in range(pieces):
        stop = start + step + (1 if i < extra else 0)
        out.append(range(start, stop))
        start = stop
    return out


__all__ = ["run", "spans", "thread_count", "spare_thread_count"]
