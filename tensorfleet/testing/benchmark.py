"""``tf.test.Benchmark``: timing an op with ``run_op_benchmark`` and reporting the figures;
``tf.test.benchmark_config``: the session configuration for benchmarks."""

from __future__ import annotations

import json
import logging
import os
import resource
import time
from typing import Any, Dict, Optional

import numpy as np

from tensorfleet.distributed.cluster import ConfigProto
from tensorfleet.runtime.session import get_default_session

logger = logging.getLogger(__name__)

# As in TensorFlow: when set, each report is also written to <prefix><name>.
REPORT_FILE_PREFIX_ENV = "TEST_REPORT_FILE_PREFIX"


def benchmark_config() -> ConfigProto:
    """A ``ConfigProto`` for benchmark sessions. TensorFlow's turns off graph rewrites that
    could remove the ops being timed; tensorfleet runs graphs as written, so it is the
    default configuration."""
    return ConfigProto()


def _peak_rss_bytes() -> int:
    # ru_maxrss is in kilobytes on Linux.
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


class Benchmark:
    """Base class of benchmarks: ``report_benchmark`` logs a result (and writes it as JSON
    to ``$TEST_REPORT_FILE_PREFIX<name>`` when that is set) and returns it."""

    def _name(self, name: Optional[str]) -> str:
        return name or f"{type(self).__name__}"

    def report_benchmark(self, iters: Optional[int] = None, cpu_time: Optional[float] = None,
                         wall_time: Optional[float] = None,
                         throughput: Optional[float] = None,
                         extras: Optional[Dict[str, Any]] = None, name: Optional[str] = None,
                         metrics: Optional[list] = None) -> Dict[str, Any]:
        """Records one benchmark result.

        Raises:
          ValueError: ``metrics`` entries without a ``name`` and a ``value``.
        """
        for m in metrics or []:
            if not isinstance(m, dict) or "name" not in m or "value" not in m:
                raise ValueError(f"report_benchmark: each metric is a dict with 'name' and "
                                 f"'value', got {m!r}")
        entry = {"name": self._name(name), "iters": iters, "cpu_time": cpu_time,
                 "wall_time": wall_time, "throughput": throughput, "extras": extras or {},
                 "metrics": metrics or []}
        logger.info("Benchmark %s", json.dumps(entry, default=str))
        prefix = os.environ.get(REPORT_FILE_PREFIX_ENV)
        if prefix:
            with open(prefix + entry["name"].replace("/", "__"), "w") as f:
                json.dump(entry, f, default=str)
        return entry

    def run_op_benchmark(self, sess: Any, op_or_tensor: Any, feed_dict: Any = None,
                         burn_iters: int = 2, min_iters: int = 10, store_trace: bool = False,
                         store_memory_usage: bool = True, name: Optional[str] = None,
                         extras: Optional[Dict[str, Any]] = None, mbs: int = 0
                         ) -> Dict[str, Any]:
        """Runs ``op_or_tensor`` ``burn_iters`` times untimed, then ``min_iters`` times, and
        reports the median wall time per run (seconds). ``mbs`` (megabytes moved per run)
        adds a throughput in MB/s; ``store_memory_usage`` adds the process's peak resident
        memory (``extras["peak_rss_bytes"]``).

        Raises:
          ValueError: ``store_trace=True`` (tensorfleet records no per-op trace here),
            or iteration counts that are not positive.
        """
        if store_trace:
            raise ValueError("run_op_benchmark: store_trace=True is not supported")
        if min_iters < 1 or burn_iters < 0:
            raise ValueError(f"run_op_benchmark: min_iters must be >= 1 and burn_iters >= 0, "
                             f"got {min_iters}, {burn_iters}")
        for _ in range(burn_iters):
            sess.run(op_or_tensor, feed_dict=feed_dict)
        times = []
        for _ in range(min_iters):
            start = time.perf_counter()
            sess.run(op_or_tensor, feed_dict=feed_dict)
            times.append(time.perf_counter() - start)
        wall = float(np.median(times))
        extras = dict(extras or {})
        if store_memory_usage:
            extras["peak_rss_bytes"] = _peak_rss_bytes()
        throughput = mbs / wall if mbs and wall > 0 else None
        return self.report_benchmark(iters=min_iters, wall_time=wall, throughput=throughput,
                                     extras=extras, name=name)

    def evaluate(self, tensors: Any) -> Any:
        """The values of ``tensors`` in the default session."""
        sess = get_default_session()
        if sess is None:
            raise ValueError("Benchmark.evaluate needs a default session (use `with sess:`)")
        return sess.run(tensors)


__all__ = ["Benchmark", "benchmark_config"]
