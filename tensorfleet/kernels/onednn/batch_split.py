"""Runs a oneDNN kernel over slices of its batch on several threads, each slice on one
OpenMP thread, the slices handed out one at a time.

oneDNN's OpenMP build splits each primitive statically between the threads of a team
and waits for all of them at the end. On a machine whose cores other processes also
use, one team thread kept off a core for a scheduler slice holds up the whole call
(measured: a step of the MNIST-size conv net took twice as long with a 2-thread team
as with one thread, on 2 cores under a load average of 13). Here the batch is cut into
several slices per thread; each thread runs the kernel's one-thread plan on the next
slice not yet taken, so a thread that waits for a core delays only the slice it holds
while the others take the rest. ctypes releases the GIL during the oneDNN call, so the
threads run at once.

The threads are the calling thread and a pool of helpers, as many as
``threads.workers()`` allows (the cores this process may use, or the limit set by a
ConfigProto, the environment or a server's share of its host).
"""

from __future__ import annotations

import itertools
from typing import Callable, Dict, Hashable, List, Tuple

import numpy as np

from tensorfleet.kernels.onednn import plan as plans
from tensorfleet.kernels.onednn import threads

# Slices per thread: enough that a late thread's slice is a small part of the call.
SLICES_PER_THREAD = 4


# (batch size) -> the build function of a plan for that batch size.
BuildFor = Callable[[int], Callable]
# (slice index, start, stop) -> the arrays of that slice, by the plan's names.
Bind = Callable[[int, int, int], Dict[str, np.ndarray]]


def layout(batch: int, least: int = 1) -> Tuple[int, int]:
    """(slices, slice size) of a batch, slices of at least ``least``; one slice means:
    run the whole-batch plan on the OpenMP team instead (one core, a small batch)."""
    n = threads.workers()
    count = min(batch // max(1, least), n * SLICES_PER_THREAD)
    if n < 2 or count < 2:
        return 1, batch
    size = -(-batch // count)
    return -(-batch // size), size


def run_kernel(key: Hashable, build_for: BuildFor, batch: int, bind: Bind,
               least: int = 1, split: bool = True) -> bool:
    """Runs the kernel of ``key``: over slices of its batch where ``layout`` cuts it
    (and ``split``), else its whole-batch plan on the OpenMP team. False (nothing run)
    when oneDNN cannot build the plan.

    Kernels bound by memory bandwidth rather than arithmetic (element-wise ops,
    pooling) pass ``split=False``: a second thread streaming beside the first gains
    them no time on this kind of machine and doubles their CPU time (measured:
    ``ReluGrad`` of 128 x 24 x 24 x 64 took 17 ms of CPU in slices, 8 ms whole)."""
    if split and layout(batch, least)[0] > 1:
        return run(key, build_for, batch, bind, least)
    plan, n = plans.cached(key, build_for(batch))
    if plan is None:
        return False
    plan.run(n, **bind(0, 0, batch))
    return True


def run(key: Hashable, build_for: BuildFor, batch: int, bind: Bind, least: int = 1) -> bool:
    """Runs the kernel of ``key`` over the batch in slices; False (nothing run) when
    oneDNN cannot build a slice's plan. Every thread has its own plans, built on the
    first call for the key (one set per slice size: the last slice may be shorter)."""
    count, size = layout(batch, least)
    workers = min(threads.workers(), count)
    workers = min(workers, 1 + threads.helper_count())
    sizes = {size, batch - (count - 1) * size}
    counter = itertools.count()
    failed: List[bool] = []

    def work() -> None:
        # Every thread gets its plans before it takes a slice, so the first call for a
        # key builds all that later calls use, whichever thread takes which slice.
        own = {k: plans.cached_here((key, k), build_for(k)) for k in sizes}
        if any(p is None for p in own.values()):
            failed.append(True)
            return
        while not failed:
            # next() on an itertools.count is atomic under the GIL.
            i = next(counter)
            if i >= count:
                return
            start = i * size
            stop = min(start + size, batch)
            own[stop - start].run_alone(**bind(i, start, stop))

    futures = [threads.helpers().submit(work) for _ in range(1, workers)]
    try:
        work()
    finally:
        for f in futures:
            f.result()
    return not failed


__all__ = ["run", "run_kernel", "layout", "SLICES_PER_THREAD"]
