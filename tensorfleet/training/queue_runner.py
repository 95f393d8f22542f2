"""``tf.train.QueueRunner``: threads that keep a queue filled.

A queue runner holds a queue and the ops that enqueue into it. ``create_threads``
starts one thread per enqueue op, each running its op in a loop until the
coordinator asks them to stop, the queue (or the queue it reads from) is
closed, or the session is (closing a session cancels the runs still waiting in
it). With a coordinator, one more thread waits for the stop request and then
closes the queue with ``cancel_pending_enqueues``, which is what frees enqueue
threads blocked on a full queue.
"""

from __future__ import annotations

import logging
import threading
import weakref
from typing import Any, List, Optional, Sequence, Tuple

from tensorfleet import errors
from tensorfleet.framework.graph import GraphKeys, Operation, get_collection, get_default_graph
from tensorfleet.runtime.session import get_default_session
from tensorfleet.training.coordinator import Coordinator

logger = logging.getLogger(__name__)

# Sessions that start queue runners themselves, for which start_queue_runners is a no-op.
_SELF_STARTING_SESSIONS = ("MonitoredSession", "SingularMonitoredSession")


class QueueRunner:
    """Holds a queue and its enqueue ops, and runs them on threads.

    Args:
      queue: the queue (a ``QueueBase``) that the ops fill.
      enqueue_ops: the ops to run in a loop, one thread each.
      close_op: closes the queue when the last thread ends; ``queue.close()`` by default.
      cancel_op: closes the queue and cancels pending enqueues when the coordinator
        stops; ``queue.close(cancel_pending_enqueues=True)`` by default.
      queue_closed_exception_types: exceptions from an enqueue op that mean "the
        queue was closed" and end its thread quietly; by default OutOfRangeError
        (an input queue ran dry) and CancelledError (this queue was closed).
    """

    def __init__(self, queue: Any = None, enqueue_ops: Optional[Sequence[Operation]] = None,
                 close_op: Optional[Operation] = None, cancel_op: Optional[Operation] = None,
                 queue_closed_exception_types: Optional[Sequence[type]] = None):
        if queue is None or not enqueue_ops:
            raise ValueError("QueueRunner needs a queue and at least one enqueue op")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op if close_op is not None else queue.close()
        self._cancel_op = cancel_op if cancel_op is not None else \
            queue.close(cancel_pending_enqueues=True)
        if queue_closed_exception_types is None:
            queue_closed_exception_types = (errors.OutOfRangeError, errors.CancelledError)
        types = tuple(queue_closed_exception_types)
        if not types or not all(isinstance(t, type) and issubclass(t, errors.OpError)
                                for t in types):
            raise TypeError(f"queue_closed_exception_types must be a non-empty tuple of "
                            f"tf.errors.OpError subclasses, got {queue_closed_exception_types!r}")
        self._queue_closed_exception_types = types
        self._lock = threading.Lock()
        # Threads still looping, per session; weak so that closed sessions go away.
        self._runs_per_session: "weakref.WeakKeyDictionary[Any, int]" = \
            weakref.WeakKeyDictionary()
        self._exceptions_raised: List[BaseException] = []

    @property
    def queue(self) -> Any:
        return self._queue

    @property
    def name(self) -> str:
        """The name of the queue."""
        return self._queue.name

    @property
    def enqueue_ops(self) -> List[Operation]:
        return list(self._enqueue_ops)

    @property
    def close_op(self) -> Operation:
        return self._close_op

    @property
    def cancel_op(self) -> Operation:
        return self._cancel_op

    @property
    def queue_closed_exception_types(self) -> Tuple[type, ...]:
        return self._queue_closed_exception_types

    @property
    def exceptions_raised(self) -> List[BaseException]:
        """Exceptions that ended threads run without a coordinator."""
        with self._lock:
            return list(self._exceptions_raised)

    def _run(self, sess: Any, enqueue_op: Operation, coord: Optional[Coordinator]) -> None:
        """One enqueue thread: loops until stopped, closed or failed."""
        try:
            # sess.run (not a cached callable) so that a closed session stops the loop.
            while coord is None or not coord.should_stop():
                try:
                    sess.run(enqueue_op)
                except self._queue_closed_exception_types as e:
                    logger.debug("QueueRunner %s: queue closed (%s)", self.name, e)
                    return
                except RuntimeError:
                    if not getattr(sess, "closed", False):
                        raise
                    # Closed between two runs: the end of this loop, as when it
                    # closes during one (which cancels the run).
                    logger.debug("QueueRunner %s: its session was closed", self.name)
                    return
        except Exception as e:  # noqa: BLE001 - reported to the coordinator or kept
            if coord is not None:
                coord.request_stop(e)
            else:
                logger.error("Exception in QueueRunner %s: %s", self.name, e, exc_info=True)
                with self._lock:
                    self._exceptions_raised.append(e)
        finally:
            with self._lock:
                self._runs_per_session[sess] = self._runs_per_session.get(sess, 1) - 1
                last = self._runs_per_session[sess] <= 0
            if last:
                # The last producer closes the queue so that consumers drain what is
                # left and then see OutOfRangeError instead of blocking forever.
                self._run_quietly(sess, self._close_op)

    def _run_quietly(self, sess: Any, op: Operation) -> None:
        try:
            sess.run(op)
        except (errors.OpError, RuntimeError) as e:
            # The session may be closed or the queue already reset; nothing to save.
            logger.debug("QueueRunner %s: ignored %s from %s", self.name, e, op.name)

    def _close_on_stop(self, sess: Any, coord: Coordinator) -> None:
        coord.wait_for_stop()
        self._run_quietly(sess, self._cancel_op)

    def create_threads(self, sess: Any, coord: Optional[Coordinator] = None,
                       daemon: bool = False, start: bool = False) -> List[threading.Thread]:
        """Creates (and optionally starts) the threads that run the enqueue ops in ``sess``.

        Threads are registered with ``coord``; calling this again for the same
        session while its threads still run returns an empty list.
        """
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [threading.Thread(target=self._run, args=(sess, op, coord), daemon=daemon,
                                    name=f"QueueRunner-{self.name}-{i}")
                   for i, op in enumerate(self._enqueue_ops)]
        if coord is not None:
            threads.append(threading.Thread(target=self._close_on_stop, args=(sess, coord),
                                            daemon=daemon, name=f"QueueRunner-{self.name}-close"))
        for t in threads:
            if coord is not None:
                coord.register_thread(t)
            if start:
                t.start()
        return threads


def add_queue_runner(qr: QueueRunner, collection: str = GraphKeys.QUEUE_RUNNERS) -> None:
    """Adds ``qr`` to ``collection`` of the default graph, for ``start_queue_runners``."""
    get_default_graph().add_to_collection(collection, qr)


def start_queue_runners(sess: Any = None, coord: Optional[Coordinator] = None,
                        daemon: bool = True, start: bool = True,
                        collection: str = GraphKeys.QUEUE_RUNNERS) -> List[threading.Thread]:
    """Creates and starts the threads of every queue runner in ``collection`` of the
    session's graph; returns them (join them through ``coord``)."""
    if sess is None:
        sess = get_default_session()
        if sess is None:
            raise ValueError("Cannot start queue runners: no default session is registered. "
                             "Use `with sess.as_default()` or pass sess= explicitly.")
    if type(sess).__name__ in _SELF_STARTING_SESSIONS:
        return []
    if not callable(getattr(sess, "run", None)) or getattr(sess, "graph", None) is None:
        raise TypeError(f"sess must be a tf.Session, got {type(sess).__name__}")
    with sess.graph.as_default():
        threads: List[threading.Thread] = []
        for qr in get_collection(collection):
            threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads


__all__ = ["QueueRunner", "add_queue_runner", "start_queue_runners"]
