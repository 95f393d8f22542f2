"""The rendezvous: where a step's sends wait for their receivers.

Each worker keeps one table keyed by ``(step_id, key)``. A ``_Send`` deposits a
tensor; the receiving task pulls it (``RecvTensor``), which removes it, since
every key has exactly one receiver. Aborting a step wakes every waiter with the
step's error and drops whatever that step left behind.

A server waits at most ``transport.limits.MAX_WAIT_SECS`` per ``RecvTensor``
call, so a receiver whose wait a server limit ended asks again, until its own
timeout or the abort of its step.
"""

from __future__ import annotations

import collections
import threading
import time
from typing import Any, Callable, Deque, Dict, List, Optional, Set, Tuple

from tensorfleet import errors
from tensorfleet.transport import limits

Key = Tuple[int, str]
# A receiver asked to wait again at once backs off from this pause up to the next.
_RETRY_PAUSE_SECS = (0.02, 1.0)


class _Waiter:
    """One receiver blocked on the keys it still misses; woken once, when the last
    arrives (or the step is aborted), not by every unrelated send."""

    __slots__ = ("lock", "missing", "woken")

    def __init__(self, missing: int):
        self.lock = threading.Lock()
        self.lock.acquire()
        self.missing = missing
        self.woken = False

    def wake(self) -> None:
        if not self.woken:
            self.woken = True
            self.lock.release()


class Rendezvous:
    """Thread-safe table of in-flight tensors of all steps on one worker."""

    def __init__(self, task: str):
        self.task = task
        self._items: Dict[Key, Any] = {}
        self._waiters: Dict[Key, _Waiter] = {}
        self._lock = threading.Lock()
        self._aborted: Dict[int, errors.OpError] = {}
        self._aborted_order: Deque[int] = collections.deque()

    def send(self, step_id: int, key: str, value: Any) -> None:
        k = (step_id, key)
        with self._lock:
            if step_id in self._aborted:
                return
            self._items[k] = value
            w = self._waiters.pop(k, None)
            if w is not None:
                w.missing -= 1
                if w.missing <= 0:
                    w.wake()

    def take(self, step_id: int, key: str, timeout: float) -> Any:
        """Waits for and removes the tensor under ``key``; DeadlineExceededError after
        ``timeout`` seconds, or the step's error if it was aborted."""
        return self.take_many(step_id, [key], timeout)[0]

    def take_many(self, step_id: int, keys: List[str], timeout: float) -> List[Any]:
        """``take`` for several keys of one step: returns once all of them are here."""
        deadline = time.monotonic() + timeout
        wanted = [(step_id, k) for k in keys]
        while True:
            with self._lock:
                err = self._aborted.get(step_id)
                if err is not None:
                    raise type(err)(err.node_def, None, err.message, task=err.task)
                missing = [k for k in wanted if k not in self._items]
                if not missing:
                    return [self._items.pop(k) for k in wanted]
                left = deadline - time.monotonic()
                if left <= 0:
                    # Made by a helper, not held in a local: a frame that holds the
                    # exception it raises is a reference cycle (exception, traceback,
                    # frame), and every frame up the stack would stay alive with it,
                    # the caller's received tensors included, until the cyclic GC.
                    raise self._timed_out(step_id, missing[0][1], timeout)
                w = _Waiter(len(missing))
                for k in missing:
                    if k in self._waiters:
                        raise errors.InternalError(
                            None, None, f"two receivers wait on {self.task} for tensor "
                            f"{k[1].split(';')[0]!r} of step {step_id}")
                for k in missing:
                    self._waiters[k] = w
            w.lock.acquire(timeout=min(left, 1.0))
            with self._lock:
                for k in missing:
                    if self._waiters.get(k) is w:
                        del self._waiters[k]

    def _timed_out(self, step_id: int, key: str, timeout: float) -> errors.DeadlineExceededError:
        late = errors.DeadlineExceededError(
            None, None, f"Timed out after {timeout:.0f}s waiting on {self.task} for "
            f"tensor {key.split(';')[0]!r} of step {step_id}")
        late.missing_key = key
        return late

    def take_ready(self, step_id: int, keys: List[str]) -> Tuple[Optional[List[Any]], str]:
        """``(tensors, "")`` with the tensors under ``keys`` removed if all are here
        now, else ``(None, first missing key)`` with nothing removed; the step's error
        if it was aborted. Never waits, and raises nothing on the common path where
        a receiver asks before the sender ran."""
        wanted = [(step_id, k) for k in keys]
        with self._lock:
            err = self._aborted.get(step_id)
            if err is not None:
                raise type(err)(err.node_def, None, err.message, task=err.task)
            for k in wanted:
                if k not in self._items:
                    return None, k[1]
            return [self._items.pop(k) for k in wanted], ""

    def abort(self, step_id: int, error: errors.OpError) -> None:
        """Fails every current and future wait of ``step_id`` with ``error``."""
        with self._lock:
            if step_id not in self._aborted:
                self._aborted[step_id] = error
                self._aborted_order.append(step_id)
                while len(self._aborted_order) > 4096:
                    self._aborted.pop(self._aborted_order.popleft(), None)
            for k in [k for k in self._items if k[0] == step_id]:
                del self._items[k]
            for k in [k for k in self._waiters if k[0] == step_id]:
                self._waiters.pop(k).wake()

    def abort_all(self, error: errors.OpError) -> None:
        with self._lock:
            steps: Set[int] = {k[0] for k in self._items} | {k[0] for k in self._waiters}
        for s in steps:
            self.abort(s, error)

    def error_of(self, step_id: int) -> Optional[errors.OpError]:
        """The error ``step_id`` was aborted with, or None."""
        with self._lock:
            return self._aborted.get(step_id)

    def pending(self) -> int:
        with self._lock:
            return len(self._items)


class StepRendezvous:
    """What the ``_Send``/``_Recv`` kernels of one step see.

    ``peer(task)`` gives the worker client of another task (``recv_tensor`` and
    ``recv_tensors`` pull from its rendezvous).
    """

    __slots__ = ("step_id", "local", "peer", "timeout")

    def __init__(self, step_id: int, local: Rendezvous, peer: Callable[[str], Any],
                 timeout: float):
        self.step_id = step_id
        self.local = local
        self.peer = peer
        self.timeout = timeout

    def send(self, key: str, value: Any) -> None:
        self.local.send(self.step_id, key, value)

    def recv(self, src_task: str, key: str) -> Any:
        if src_task == self.local.task:
            return self.local.take(self.step_id, key, self.timeout)
        peer = self.peer(src_task)
        return self._pull(src_task, key,
                          lambda left: peer.recv_tensor(self.step_id, key, left))

    def recv_many(self, src_task: str, keys: List[str]) -> List[Any]:
        if src_task == self.local.task:
            return self.local.take_many(self.step_id, keys, self.timeout)
        peer = self.peer(src_task)
        return self._pull(src_task, keys[0],
                          lambda left: peer.recv_tensors(self.step_id, keys, left))

    def _pull(self, src_task: str, key: str, ask: Callable[[float], Any]) -> Any:
        """``ask(seconds left)`` again each time the serving task's wait limit ends
        its wait, until ``timeout`` or until this step is aborted here."""
        deadline = time.monotonic() + self.timeout
        pause = _RETRY_PAUSE_SECS[0]
        asked = 0
        while True:
            start = time.monotonic()
            try:
                return ask(max(0.0, deadline - start))
            except errors.DeadlineExceededError as e:
                if not limits.wait_was_cut(e):
                    raise
            asked += 1
            now = time.monotonic()
            error = self.local.error_of(self.step_id)
            if error is not None:
                raise type(error)(error.node_def, None, error.message, task=error.task)
            if now >= deadline:
                raise errors.DeadlineExceededError(
                    None, None, f"Timed out after {self.timeout:.0f}s waiting on {src_task} "
                    f"for tensor {key.split(';')[0]!r} of step {self.step_id} ({asked} "
                    "requests)", task=src_task)
            if now - start < pause:
                # Answered at once (the server is full of waits): do not hammer it.
                time.sleep(min(pause, max(0.0, deadline - now)))
                pause = min(pause * 2, _RETRY_PAUSE_SECS[1])
            else:
                pause = _RETRY_PAUSE_SECS[0]


__all__ = ["Rendezvous", "StepRendezvous"]

