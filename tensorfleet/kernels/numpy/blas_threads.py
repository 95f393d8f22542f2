"""BLAS on one thread for the kernels made of many small matrix products.

A kernel that loops over small products (an LSTM layer's recurrence: one
``[batch, units] x [units, 4 units]`` product per time step, forward and backward)
gains little from a second BLAS thread, and on a machine whose cores other processes
also use, each of those products waits for that thread to get a core. Measured on 2
cores under a load average of 11-14: a bidirectional LSTM classifier's whole program
took 34 s with the process's 2-thread BLAS and 15 s with one, on 5 s of CPU either way.
So such kernels run with BLAS limited to one thread and give it back its limit after.

The limit is process-wide; kernels may run at once on several threads (queue runners,
``tf.data`` beside a step), so the first to enter saves the limit and the last to leave
restores it.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator, List, Optional

from threadpoolctl import ThreadpoolController

_lock = threading.Lock()
_libs: Optional[List[Any]] = None
_inside = 0
_saved: List[int] = []


def _blas_libraries() -> List[Any]:
    """threadpoolctl's controllers of the BLAS libraries loaded (found once)."""
    global _libs
    if _libs is None:
        _libs = list(ThreadpoolController().select(user_api="blas").lib_controllers)
    return _libs


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """Runs the ``with`` body with BLAS on one thread."""
    global _inside, _saved
    with _lock:
        if _inside == 0:
            libs = _blas_libraries()
            _saved = [lib.num_threads for lib in libs]
            for lib in libs:
                lib.set_num_threads(1)
        _inside += 1
    try:
        yield
    finally:
        with _lock:
            _inside -= 1
            if _inside == 0:
                for lib, n in zip(_blas_libraries(), _saved):
                    lib.set_num_threads(n)


def current() -> List[int]:
    """The thread count of each BLAS library loaded, as BLAS reports it now."""
    return [lib.num_threads for lib in _blas_libraries()]


__all__ = ["one_thread", "current"]
