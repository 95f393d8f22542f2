"""How many threads the numpy kernels' BLAS may use in this process.

numpy's BLAS spins up one thread per core for every matmul. When several tasks
share a machine (a ps and two workers on two cores), those threads fight over
the cores and a training step gets several times slower, so tensorfleet lets
``ConfigProto(intra_op_parallelism_threads=N)`` or ``TENSORFLEET_BLAS_THREADS``
bound them, as TensorFlow's intra-op thread pool setting does for its kernels.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Optional

logger = logging.getLogger(__name__)

ENV = "TENSORFLEET_BLAS_THREADS"
_limiter: Any = None
_current: Optional[int] = None


def set_blas_threads(n: int) -> None:
    """Limits BLAS to ``n`` threads for the whole process (0 leaves it alone)."""
    global _limiter, _current
    if n <= 0 or n == _current:
        return
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        logger.warning("threadpoolctl is not installed; cannot limit BLAS threads to %d", n)
        return
    _limiter = threadpool_limits(limits=n, user_api="blas")
    _current = n


def apply_config(config: Any) -> None:
    """Applies ``intra_op_parallelism_threads`` of a ConfigProto, else the env variable."""
    n = int(getattr(config, "intra_op_parallelism_threads", 0) or 0)
    if n <= 0:
        try:
            n = int(os.environ.get(ENV, "0"))
        except ValueError:
            logger.warning("Ignoring %s=%r: not an integer", ENV, os.environ.get(ENV))
            n = 0
    set_blas_threads(n)


__all__ = ["set_blas_threads", "apply_config"]
