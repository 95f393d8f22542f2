"""The rendezvous: where a step's sends wait for their receivers.

Each worker keeps one table keyed by ``(step_id, key)``. A ``_Send`` deposits a
tensor; the receiving task pulls it (``RecvTensor``), which removes it, since
every key has exactly one receiver. Aborting a step wakes every waiter with the
step's error and drops whatever that step left behind.
"""

from __future__ import annotations

import collections
import threading
import time
from typing import Any, Callable, Deque, Dict, List, Set, Tuple

from tensorfleet import errors

Key = Tuple[int, str]


class Rendezvous:
    """Thread-safe table of in-flight tensors of all steps on one worker."""

    def __init__(self, task: str):
        self.task = task
        self._items: Dict[Key, Any] = {}
        self._cond = threading.Condition()
        self._aborted: Dict[int, errors.OpError] = {}
        self._aborted_order: Deque[int] = collections.deque()

    def send(self, step_id: int, key: str, value: Any) -> None:
        with self._cond:
            if step_id in self._aborted:
                return
            self._items[(step_id, key)] = value
            self._cond.notify_all()

    def take(self, step_id: int, key: str, timeout: float) -> Any:
        """Waits for and removes the tensor under ``key``; DeadlineExceededError after
        ``timeout`` seconds, or the step's error if it was aborted."""
        deadline = time.monotonic() + timeout
        k = (step_id, key)
        with self._cond:
            while True:
                if k in self._items:
                    return self._items.pop(k)
                err = self._aborted.get(step_id)
                if err is not None:
                    raise type(err)(err.node_def, None, err.message, task=err.task)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise errors.DeadlineExceededError(
                        None, None, f"Timed out after {timeout:.0f}s waiting on {self.task} for "
                        f"tensor {key.split(';')[0]!r} of step {step_id}")
                self._cond.wait(min(left, 1.0))

    def abort(self, step_id: int, error: errors.OpError) -> None:
        """Fails every current and future wait of ``step_id`` with ``error``."""
        with self._cond:
            if step_id not in self._aborted:
                self._aborted[step_id] = error
                self._aborted_order.append(step_id)
                while len(self._aborted_order) > 4096:
                    self._aborted.pop(self._aborted_order.popleft(), None)
            for k in [k for k in self._items if k[0] == step_id]:
                del self._items[k]
            self._cond.notify_all()

    def abort_all(self, error: errors.OpError) -> None:
        with self._cond:
            steps: Set[int] = {k[0] for k in self._items}
        for s in steps:
            self.abort(s, error)

    def pending(self) -> int:
        with self._cond:
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
        return self.peer(src_task).recv_tensor(self.step_id, key, self.timeout)

    def recv_many(self, src_task: str, keys: List[str]) -> List[Any]:
        if src_task == self.local.task:
            return [self.local.take(self.step_id, k, self.timeout) for k in keys]
        return self.peer(src_task).recv_tensors(self.step_id, keys, self.timeout)


__all__ = ["Rendezvous", "StepRendezvous"]

