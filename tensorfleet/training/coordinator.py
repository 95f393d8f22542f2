"""``tf.train.Coordinator``: lets a group of threads stop together.

Threads poll ``should_stop()``; any of them (or the main thread) calls
``request_stop()``, optionally with the exception that made it stop, and the
main thread's ``join()`` waits for all of them and re-raises that exception.
Exceptions listed as *clean* (by default OutOfRangeError, how an input queue
says that it is exhausted) stop the threads without being reported as errors.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time
from typing import Any, Callable, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from tensorfleet import errors

logger = logging.getLogger(__name__)

ExcInfo = Tuple[type, BaseException, Any]

# How often join() looks at the threads while no stop was requested.
_JOIN_POLL_SECS = 0.05


def _as_exc_info(ex: Any) -> Optional[ExcInfo]:
    if ex is None:
        return None
    if isinstance(ex, tuple):
        return ex if ex[1] is not None else None  # type: ignore[return-value]
    if isinstance(ex, BaseException):
        return (type(ex), ex, ex.__traceback__)
    raise TypeError(f"request_stop(ex=...) needs an exception or sys.exc_info(), got {ex!r}")


class Coordinator:
    """Coordinates the stopping of a set of threads.

    Args:
      clean_stop_exception_types: exception types that request a stop without
        being re-raised by ``join()``; defaults to ``(OutOfRangeError,)``.
    """

    def __init__(self, clean_stop_exception_types: Optional[Sequence[type]] = None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise: Optional[ExcInfo] = None
        self._joined = False
        self._registered_threads: Set[threading.Thread] = set()

    def _is_clean(self, info: ExcInfo) -> bool:
        return issubclass(info[0], self._clean_stop_exception_types)

    def request_stop(self, ex: Any = None) -> None:
        """Asks every coordinated thread to stop.

        Args:
          ex: the exception (or ``sys.exc_info()`` triple) that caused the stop; the
            first non-clean one is re-raised by ``join()``. After ``join()`` has
            returned, a non-clean exception is re-raised here instead, since no
            one would join again to report it.
        """
        info = _as_exc_info(ex)
        if info is not None and self._is_clean(info):
            info = None
        with self._lock:
            if self._joined and info is not None:
                raise info[1].with_traceback(info[2])
            if self._stop_event.is_set():
                if info is not None:
                    logger.debug("Ignoring exception after a stop was requested: %r", info[1])
                return
            if info is not None:
                logger.info("Error reported to Coordinator: %s: %s", info[0].__name__, info[1])
                self._exc_info_to_raise = info
            self._stop_event.set()

    def clear_stop(self) -> None:
        """Forgets the stop request and its exception, so the threads may run again."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            self._stop_event.clear()

    def should_stop(self) -> bool:
        """True once a stop was requested."""
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self) -> Iterator[None]:
        """A context manager that turns an exception raised in its body into a stop
        request carrying that exception (it is not propagated)."""
        try:
            yield
        except Exception:  # noqa: BLE001 - reported through request_stop
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout: Optional[float] = None) -> bool:
        """Waits until a stop is requested or ``timeout`` seconds pass; True if stopped."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread: threading.Thread) -> None:
        """Adds ``thread`` to the threads that ``join()`` waits for."""
        with self._lock:
            self._registered_threads.add(thread)

    @property
    def joined(self) -> bool:
        return self._joined

    def raise_requested_exception(self) -> None:
        """Re-raises the exception passed to ``request_stop``, if there was one."""
        with self._lock:
            info = self._exc_info_to_raise
        if info is not None:
            raise info[1].with_traceback(info[2])

    def join(self, threads: Optional[Iterable[threading.Thread]] = None,
             stop_grace_period_secs: float = 120, ignore_live_threads: bool = False) -> None:
        """Waits for the threads (given and registered) to end.

        Returns when they have all ended, or when a stop was requested and they
        did not all end within ``stop_grace_period_secs`` after it.

        Raises:
          the exception given to ``request_stop``, if any;
          RuntimeError: threads still run after the grace period, unless
            ``ignore_live_threads``, in which case they are only logged.
        """
        with self._lock:
            group = set(self._registered_threads)
            if threads is not None:
                group.update(threads)
            watched = list(group)

        def alive() -> List[threading.Thread]:
            return [t for t in watched if t.is_alive()]

        while alive() and not self.wait_for_stop(_JOIN_POLL_SECS):
            pass
        deadline = time.monotonic() + stop_grace_period_secs
        for t in alive():
            left = deadline - time.monotonic()
            if left <= 0:
                break
            t.join(left)
        stragglers = [t.name for t in alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            info = self._exc_info_to_raise
        if info is not None:
            raise info[1].with_traceback(info[2])
        if stragglers:
            if ignore_live_threads:
                logger.info("Coordinator stopped with threads still running: %s",
                            " ".join(stragglers))
            else:
                raise RuntimeError(f"Coordinator stopped with threads still running: "
                                   f"{' '.join(stragglers)}")

    def looper(self, timer_interval_secs: Optional[float], target: Callable[..., Any],
               args: Sequence[Any] = (), kwargs: Optional[dict] = None) -> "LooperThread":
        """Starts and returns a ``LooperThread`` calling ``target`` every interval."""
        t = LooperThread(self, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        t.start()
        return t


class LooperThread(threading.Thread):
    """A thread that calls ``run_loop`` (or ``target``) repeatedly until the
    coordinator stops; every ``timer_interval_secs`` seconds, or back to back when
    the interval is None. An exception in the loop requests a stop with it."""

    def __init__(self, coord: Coordinator, timer_interval_secs: Optional[float],
                 target: Optional[Callable[..., Any]] = None, args: Sequence[Any] = (),
                 kwargs: Optional[dict] = None):
        if not isinstance(coord, Coordinator):
            raise ValueError(f"'coord' must be a Coordinator, got {coord!r}")
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target_fn = target
        self._loop_args = tuple(args)
        self._loop_kwargs = dict(kwargs or {})
        coord.register_thread(self)

    def run(self) -> None:
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                next_at = time.monotonic()
                while not self._coord.wait_for_stop(max(0.0, next_at - time.monotonic())):
                    next_at += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self) -> None:
        """Called once before the loop; override to set up."""

    def stop_loop(self) -> None:
        """Called once after the loop; override to clean up."""

    def run_loop(self) -> None:
        """One iteration; calls ``target`` unless overridden."""
        if self._target_fn is not None:
            self._target_fn(*self._loop_args, **self._loop_kwargs)


__all__ = ["Coordinator", "LooperThread"]
