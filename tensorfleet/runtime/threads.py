"""The threads of a tensorfleet process: how many BLAS may use, and the pools that run
blocking calls.

**Pools.** A receive, a remote partition's RunGraph or a side-channel call may block
for as long as its step (a queue, a synchronous replica waiting for its peers).
``DaemonPool`` runs them on daemon threads: a program that ends while one still waits
(a chief whose aggregation loop waits for gradients that no worker will send) exits
instead of waiting for it, and threads idle for ``IDLE_SECS`` end by themselves.

**BLAS and oneDNN.** oneDNN's OpenMP threads get the limit below; while oneDNN is the
CPU kernel backend, BLAS keeps one thread (``_follow_backend`` says why).

numpy's BLAS starts one thread per core for every large matmul, and its idle
threads spin for a while before they sleep. When several tasks share a machine
(a ps and two workers on two cores) those threads fight over the cores and a
training step gets several times slower. So every process picks its own limit,
with nothing for the user to set:

* ``ConfigProto(intra_op_parallelism_threads=N)``, when given, is the limit (as
  TensorFlow's intra-op pool size is);
* else ``TENSORFLEET_BLAS_THREADS``, when set;
* else a server divides the cores this process may use (its CPU affinity and its
  cgroup's CPU quota) by the number of tasks of its cluster on this host: a
  1 ps + 2 worker cluster on two cores gets one BLAS thread per task, a task
  alone on its host (one per pod or machine) gets every core;
* a process without a server (a local ``tf.Session``) may use every core.

Without an explicit limit (the last two cases), the limit also follows contention:
BLAS's spinning threads cost far more than they give when other processes want the
same cores (a 2-thread matmul on 2 cores busy with other work measured 10x slower
than a 1-thread one). So at most every ``ADAPT_SECS`` a running step compares the
1-minute load average, less this process's own BLAS threads, with the cores, and
lowers the limit to the cores the others leave free (at least 1), or raises it back
up to the share above once they are gone (``adapt_blas``). Memory-bound work split
into blocks on the kernel helper threads, which wait without spinning, may use all the
cores the others leave free, beyond the share (``onednn.threads.spare``). Where
``/proc/stat`` can be read, the measure is not the load average (which lags by a minute, misses short bursts
and still counts a process that has just ended) but the CPU time other processes used
since the last look (the machine's busy time less this process's own): each core of it,
beyond a tenth of a core, takes a core from BLAS. A burst of other work beside a 2-thread BLAS makes
each small product wait for its second thread: the 12 products of a wide & deep step
(256 x 221 x 256 and smaller) measured 100 ms per step with 2 threads against 1.8 ms
with one, on 2 cores where another process started work.

``inter_op_parallelism_threads`` bounds how many kernels of one step run at once;
the executor runs a step's kernels one after the other (receives wait on their
own threads), which every positive bound allows.
"""

from __future__ import annotations

import logging
import math
import os
import queue
import socket
import sys
import threading
import time
from concurrent.futures import Executor, Future
from typing import Any, Callable, Iterable, Optional

from threadpoolctl import threadpool_limits

from tensorfleet.kernels import registry
from tensorfleet.kernels.backends import ONEDNN
from tensorfleet.kernels.onednn import threads as onednn_threads

logger = logging.getLogger(__name__)

ENV = "TENSORFLEET_BLAS_THREADS"
_CGROUP_V2 = "/sys/fs/cgroup/cpu.max"
_CGROUP_V1 = ("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "/sys/fs/cgroup/cpu/cpu.cfs_period_us")
_LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0", "", "ip6-localhost"}
_limiter: Any = None
_current: Optional[int] = None
# Seconds between two looks at the load while steps run.
ADAPT_SECS = 0.5
# Other processes using more than this (in cores, since the last look) take a core from
# BLAS; the last sample of (time, machine busy seconds, own CPU seconds).
OTHERS_CORES = 0.1
_cpu_sample: Optional[tuple] = None
_CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
# The most threads the contention policy may give (0: the policy is off because a
# ConfigProto or the environment set the limit), and when it looks next.
_adaptive_share = 0
_next_look = 0.0
# True while oneDNN is the CPU kernel backend: BLAS then keeps one thread.
_blas_single = False


def set_blas_threads(n: int) -> None:
    """Limits BLAS, and oneDNN's OpenMP team, to ``n`` threads for the whole process
    (0 leaves them alone). While oneDNN is the CPU backend, BLAS keeps one thread
    (see ``_follow_backend``)."""
    global _limiter, _current
    if n <= 0 or n == _current:
        return
    _limiter = threadpool_limits(limits=1 if _blas_single else n, user_api="blas")
    onednn_threads.set_limit(n)
    _current = n
    logger.debug("oneDNN limited to %d thread(s), BLAS to %d, in this process", n,
                 1 if _blas_single else n)


def _follow_backend(device_type: str, backend: Optional[str]) -> None:
    """Gives BLAS one thread while oneDNN is the CPU kernel backend, its limit otherwise.

    oneDNN's OpenMP team then runs every parallel kernel (convolutions, pooling, large
    products), and BLAS only the small products of the numpy kernels, on the calling
    thread. Two pools of compute threads in one process fight: BLAS's idle threads spin
    for about a tenth of a second after each call, so with calls every few milliseconds
    one of them never sleeps, and on 2 cores it took a core from every oneDNN kernel
    (a conv net's step measured 177 ms with BLAS on 2 threads, 75 ms with one).
    """
    global _blas_single, _limiter
    if device_type != "CPU" or (backend == ONEDNN) == _blas_single:
        return
    _blas_single = backend == ONEDNN
    if _current is not None:
        _limiter = threadpool_limits(limits=1 if _blas_single else _current, user_api="blas")
    elif _blas_single:
        _limiter = threadpool_limits(limits=1, user_api="blas")
    elif _limiter is not None:
        _limiter.restore_original_limits()
        _limiter = None


def blas_threads() -> Optional[int]:
    """The limit this process set, or None if BLAS keeps its own default."""
    return _current


def _cgroup_cpus() -> Optional[float]:
    """The CPU quota of this process's cgroup in cores, or None without one."""
    try:
        with open(_CGROUP_V2) as f:
            quota, period = f.read().split()[:2]
        if quota != "max":
            return int(quota) / int(period)
        return None
    except (OSError, ValueError):
        pass
    try:
        with open(_CGROUP_V1[0]) as fq, open(_CGROUP_V1[1]) as fp:
            quota_us, period_us = int(fq.read()), int(fp.read())
        return quota_us / period_us if quota_us > 0 and period_us > 0 else None
    except (OSError, ValueError):
        return None


def available_cores() -> int:
    """Cores this process may run on: its affinity, capped by its cgroup's quota."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    quota = _cgroup_cpus()
    if quota is not None:
        cores = min(cores, max(1, math.ceil(quota)))
    return max(1, cores)


def is_local_host(host: str) -> bool:
    """True for a loopback name or address, or this machine's own host name (no DNS
    lookup: a task must not wait on a resolver to pick its thread count)."""
    host = host.strip().lower()
    if host in _LOOPBACK_NAMES or host.startswith("127."):
        return True
    try:
        return host == socket.gethostname().lower()
    except OSError:
        return False


def local_task_count(addresses: Iterable[str]) -> int:
    """How many of a cluster's ``host:port`` addresses are on this host (at least 1)."""
    count = 0
    for addr in addresses:
        host = str(addr).rsplit(":", 1)[0] if ":" in str(addr) else str(addr)
        if is_local_host(host):
            count += 1
    return max(1, count)


def _env_threads() -> int:
    raw = os.environ.get(ENV)
    if not raw:
        return 0
    try:
        n = int(raw)
    except ValueError:
        logger.warning("Ignoring %s=%r: not an integer", ENV, raw)
        return 0
    if n < 0:
        logger.warning("Ignoring %s=%r: negative", ENV, raw)
        return 0
    return n


def check_config(config: Any) -> None:
    """Raises ``ValueError`` for a negative thread count in a ConfigProto."""
    for field in ("intra_op_parallelism_threads", "inter_op_parallelism_threads"):
        value = getattr(config, field, 0) or 0
        if int(value) < 0:
            raise ValueError(f"ConfigProto.{field} must be >= 0 (0: chosen by tensorfleet), "
                             f"got {value}")


def apply_config(config: Any, local_tasks: Optional[int] = None) -> None:
    """Sets this process's BLAS limit from ``config``, the environment, or the policy.

    Args:
      config: a ``ConfigProto`` or None; its ``intra_op_parallelism_threads``
        wins when positive.
      local_tasks: for a server, how many tasks of its cluster run on this host;
        None for a process without a server (BLAS keeps its default then).
    """
    global _adaptive_share, _next_look
    check_config(config)
    n = int(getattr(config, "intra_op_parallelism_threads", 0) or 0)
    if n <= 0:
        n = _env_threads()
    if n > 0:
        _adaptive_share = 0
        set_blas_threads(n)
        onednn_threads.set_workers(n)
        onednn_threads.set_spare(None)
        return
    share = max(1, available_cores() // max(1, local_tasks or 1))
    # The tightest share wins: a local session in a process that also serves a task
    # keeps the server's.
    _adaptive_share = min(share, _adaptive_share) if _adaptive_share else share
    onednn_threads.set_workers(_adaptive_share)
    _next_look = 0.0
    adapt_blas()


def contended_limit(share: int, cores: int, load: float, own_threads: int) -> int:
    """The BLAS threads to use when ``load`` (the load average) includes this process's
    ``own_threads``: the cores the other processes leave free, between 1 and ``share``."""
    others = max(0.0, load - own_threads)
    return max(1, min(share, int(math.floor(cores - others + 0.5))))


def adapt_blas(now: Optional[float] = None) -> None:
    """Follows contention for the cores (see the module docstring); cheap enough to call
    on every step: it does nothing until ``ADAPT_SECS`` have passed."""
    global _next_look
    if not _adaptive_share:
        return
    now = time.monotonic() if now is None else now
    if now < _next_look:
        return
    _next_look = now + ADAPT_SECS
    cores = available_cores()
    others = other_processes_cpu(now)
    if others is not None:
        # Measured over the last look, not the load average: that lags by a minute, so a
        # process that has just ended (the previous job, a benchmark's other side) would
        # still hold this one to a single thread.
        free = cores - math.ceil(max(0.0, others - OTHERS_CORES))
        set_blas_threads(max(1, min(_adaptive_share, free)))
        onednn_threads.set_spare(max(1, free))
        return
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = 0.0
    own = _current or _adaptive_share
    set_blas_threads(contended_limit(_adaptive_share, cores, load, own))
    onednn_threads.set_spare(contended_limit(cores, cores, load, own))


def other_processes_cpu(now: float) -> Optional[float]:
    """The cores that processes other than this one kept busy since the previous call:
    the machine's busy time in ``/proc/stat`` less this process's own CPU time. None on
    the first call, when ``now`` does not advance, or without ``/proc/stat``."""
    global _cpu_sample
    try:
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:9]]
        # user, nice, system, idle, iowait, irq, softirq, steal: busy is all but idle.
        busy = (sum(ticks) - ticks[3] - ticks[4]) / _CLK_TCK
    except (OSError, ValueError, IndexError):
        return None
    own = sum(os.times()[:2])
    last, _cpu_sample = _cpu_sample, (now, busy, own)
    if last is None or now <= last[0]:
        return None
    return max(0.0, (busy - last[1]) - (own - last[2])) / (now - last[0])


# A pool thread with nothing to do for this long ends; the next burst starts new ones.
IDLE_SECS = 30.0


class DaemonPool(Executor):
    """A thread pool whose threads are daemons, started on demand up to ``max_workers``.

    A task submitted while every thread is busy gets a new thread (while fewer than
    ``max_workers`` run), never a queue slot behind a call that may block for a
    whole step. Threads idle for ``idle_secs`` end. ``shutdown`` refuses new tasks
    and ends idle threads; running tasks finish on their own.
    """

    def __init__(self, max_workers: int, name: str, idle_secs: float = IDLE_SECS):
        if isinstance(max_workers, bool) or not isinstance(max_workers, int) or max_workers < 1:
            raise ValueError(f"DaemonPool max_workers must be a positive int, got {max_workers!r}")
        if not idle_secs > 0:
            raise ValueError(f"DaemonPool idle_secs must be positive, got {idle_secs!r}")
        self._max = max_workers
        self._name = name
        self._idle_secs = float(idle_secs)
        self._work: "queue.SimpleQueue[Any]" = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0
        self._idle = 0  # threads waiting for work
        self._queued = 0  # tasks put and not yet taken
        self._serial = 0
        self._shutdown = False

    @property
    def threads(self) -> int:
        """How many threads the pool has now."""
        with self._lock:
            return self._threads

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        """Runs ``fn(*args, **kwargs)`` on a pool thread; a Future of its result.

        Raises:
          RuntimeError: the pool was shut down, or the interpreter is exiting (a new
            thread could not run then: the caller should do the work itself).
        """
        future: Future = Future()
        if sys.is_finalizing():
            raise RuntimeError(f"cannot schedule new work on the {self._name} pool: the "
                               "interpreter is shutting down")
        with self._lock:
            if self._shutdown:
                raise RuntimeError(f"cannot schedule new work: the {self._name} pool is shut down")
            self._work.put((future, fn, args, kwargs))
            self._queued += 1
            start = self._queued > self._idle and self._threads < self._max
            if start:
                self._threads += 1
                self._serial += 1
                name = f"{self._name}_{self._serial}"
        if start:
            threading.Thread(target=self._loop, name=name, daemon=True).start()
        return future

    def _loop(self) -> None:
        while True:
            with self._lock:
                self._idle += 1
            try:
                item = self._work.get(timeout=self._idle_secs)
            except queue.Empty:
                with self._lock:
                    # A task put while the wait ran out is still this thread's to take.
                    if self._queued > 0 and not self._shutdown:
                        self._idle -= 1
                        continue
                    self._idle -= 1
                    self._threads -= 1
                return
            with self._lock:
                self._idle -= 1
                if item is not None:
                    self._queued -= 1
            if item is None:  # shutdown: end this idle thread
                with self._lock:
                    self._threads -= 1
                return
            future, fn, args, kwargs = item
            del item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = fn(*args, **kwargs)
            except BaseException as e:  # noqa: BLE001 - handed to the waiter
                future.set_exception(e)
            else:
                future.set_result(result)
            # Drop the task's references now, not when the next task replaces them.
            del future, fn, args, kwargs

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Refuses new tasks and ends the idle threads; with ``cancel_futures``,
        cancels the tasks not started. Running tasks are never waited for (their
        threads are daemons): ``wait`` is accepted for ``Executor`` compatibility."""
        with self._lock:
            if self._shutdown:
                return
            self._shutdown = True
            threads = self._threads
        if cancel_futures:
            while True:
                try:
                    item = self._work.get_nowait()
                except queue.Empty:
                    break
                if item is not None:
                    with self._lock:
                        self._queued -= 1
                    item[0].cancel()
        for _ in range(threads):
            self._work.put(None)


__all__ = ["DaemonPool", "IDLE_SECS", "set_blas_threads", "blas_threads", "available_cores", "local_task_count",
           "is_local_host", "check_config", "apply_config", "adapt_blas", "contended_limit",
           "ADAPT_SECS", "other_processes_cpu"]

registry.add_backend_listener(_follow_backend)
