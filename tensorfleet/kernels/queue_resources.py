"""Queue resources: bounded FIFOs of tuples of numpy arrays, shared by steps and tasks.

A queue lives in a task's ``ResourceManager`` (so it outlives the client sessions
that use it) and is driven by the queue kernels. Every blocking call waits on one
condition variable, and wakes at least every ``POLL_SECS`` to ask its caller
whether the step it serves was cancelled: a step aborted elsewhere in the cluster
must never leave a task's executor thread parked on a queue forever.

Waiters are served in arrival order. Only the enqueuer (dequeuer) at the head of
its line touches the buffer, and it moves elements one at a time as room (items)
appears, so ``enqueue_many``/``dequeue_many`` larger than the capacity still make
progress, and two concurrent batched dequeues never interleave their elements.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from typing import Any, Callable, Deque, List, Optional, Sequence, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.framework.tensor_shape import TensorShape, as_shape, unknown_shape

logger = logging.getLogger(__name__)

POLL_SECS = 0.5

Row = Tuple[np.ndarray, ...]
CancelCheck = Optional[Callable[[], bool]]


class _Waiter:
    """A place in an enqueue or dequeue line; ``cancelled`` is set by ``close``."""

    __slots__ = ("cancelled",)

    def __init__(self) -> None:
        self.cancelled = False


class FIFOQueueResource:
    """A thread-safe first-in first-out queue of fixed-arity tuples.

    Args:
      name: the resource name, used in every error message.
      component_types: one ``DType`` per tuple component.
      shapes: one shape per component, or empty when the shapes are unconstrained.
      capacity: maximum number of tuples held; negative means unbounded.
    """

    kind = "FIFOQueue"

    def __init__(self, name: str, component_types: Sequence[_dtypes.DType],
                 shapes: Sequence[Any] = (), capacity: int = -1):
        self.name = name
        self.component_types = [_dtypes.as_dtype(t) for t in component_types]
        if not self.component_types:
            raise errors.InvalidArgumentError(
                None, None, f"{self.kind} '{name}' needs at least one component type")
        self.shapes = [as_shape(s) for s in shapes]
        if self.shapes and len(self.shapes) != len(self.component_types):
            raise errors.InvalidArgumentError(
                None, None, f"{self.kind} '{name}' has {len(self.component_types)} component "
                f"types but {len(self.shapes)} shapes")
        self.capacity = int(capacity)
        self._cond = threading.Condition()
        self._items: Deque[Row] = collections.deque()
        self._enq_line: Deque[_Waiter] = collections.deque()
        self._deq_line: Deque[_Waiter] = collections.deque()
        self._closed = False
        self._reset = False

    # -- facts -------------------------------------------------------------------------------
    def component_shape(self, i: int) -> TensorShape:
        return self.shapes[i] if self.shapes else unknown_shape()

    def size(self) -> int:
        """The number of complete tuples currently held."""
        with self._cond:
            return len(self._items)

    @property
    def is_closed(self) -> bool:
        return self._closed

    def read(self) -> np.ndarray:
        """What fetching the queue's handle yields: its name, as a string scalar."""
        return np.array(self.name.encode(), dtype=object)

    def check_compatible(self, kind: str, component_types: Sequence[_dtypes.DType],
                         shapes: Sequence[Any], capacity: int) -> None:
        """InvalidArgumentError naming both sides when an op declares this shared
        queue differently from the op that created it."""
        mine = [t.name for t in self.component_types]
        theirs = [_dtypes.as_dtype(t).name for t in component_types]
        if kind != self.kind:
            self._mismatch(f"is a {self.kind} but a {kind} was requested")
        if mine != theirs:
            self._mismatch(f"has component types {mine} but requested component types "
                           f"were {theirs}")
        want = [as_shape(s) for s in shapes]
        if [str(s) for s in want] != [str(s) for s in self.shapes]:
            self._mismatch(f"has component shapes {[str(s) for s in self.shapes]} but "
                           f"requested component shapes were {[str(s) for s in want]}")
        if int(capacity) != self.capacity:
            self._mismatch(f"has capacity {self.capacity} but requested capacity was "
                           f"{int(capacity)}")

    def _mismatch(self, what: str) -> None:
        raise errors.InvalidArgumentError(None, None, f"Shared queue '{self.name}' {what}")

    # -- validation ------------------------------------------------------------------------
    def _check_components(self, comps: Sequence[Any], batched: bool) -> List[np.ndarray]:
        """Arrays of the right dtype and shape, copied; InvalidArgumentError otherwise."""
        op = "EnqueueMany" if batched else "Enqueue"
        if len(comps) != len(self.component_types):
            raise errors.InvalidArgumentError(
                None, None, f"{op} on {self.kind} '{self.name}' got {len(comps)} components; "
                f"the queue holds tuples of {len(self.component_types)}")
        out: List[np.ndarray] = []
        batch: Optional[int] = None
        for i, (v, dt) in enumerate(zip(comps, self.component_types)):
            if dt is _dtypes.string:
                a = np.asarray(v)
                if a.dtype.kind in "SU":
                    a = a.astype(object)
            else:
                a = np.asarray(v)
            if a.dtype != dt.np:
                raise errors.InvalidArgumentError(
                    None, None, f"{op} on {self.kind} '{self.name}': component {i} has dtype "
                    f"{_dtype_name(a.dtype)} but the queue expects {dt.name}")
            elem = a.shape
            if batched:
                if a.ndim == 0:
                    raise errors.InvalidArgumentError(
                        None, None, f"EnqueueMany on {self.kind} '{self.name}': component {i} "
                        f"is a scalar; it needs a leading batch dimension")
                if batch is not None and a.shape[0] != batch:
                    raise errors.InvalidArgumentError(
                        None, None, f"EnqueueMany on {self.kind} '{self.name}': component {i} "
                        f"has batch size {a.shape[0]}, component 0 has {batch}")
                batch = a.shape[0]
                elem = a.shape[1:]
            want = self.component_shape(i)
            if not want.is_compatible_with(elem):
                raise errors.InvalidArgumentError(
                    None, None, f"{op} on {self.kind} '{self.name}': shape mismatch in tuple "
                    f"component {i}: expected {want}, got {list(elem)}")
            # Always copy: the value may be a view of a variable that a later step
            # updates in place, or a caller's fed buffer that it reuses; a queued
            # element must keep the value it had when it was enqueued.
            out.append(np.array(a, copy=True))
        return out

    # -- enqueue -----------------------------------------------------------------------------
    def enqueue(self, components: Sequence[Any], cancelled: CancelCheck = None,
                timeout: Optional[float] = None) -> None:
        """Appends one tuple, blocking while the queue is full."""
        row = tuple(self._check_components(components, batched=False))
        self._put([row], cancelled, timeout)

    def enqueue_many(self, components: Sequence[Any], cancelled: CancelCheck = None,
                     timeout: Optional[float] = None) -> None:
        """Appends the tuples formed by slicing every component along dimension 0."""
        arrs = self._check_components(components, batched=True)
        n = arrs[0].shape[0]
        self._put([tuple(a[j] for a in arrs) for j in range(n)], cancelled, timeout)

    def _put(self, rows: List[Row], cancelled: CancelCheck, timeout: Optional[float]) -> None:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            self._raise_if_reset()
            if self._closed:
                raise errors.CancelledError(None, None, f"{self.kind} '{self.name}' is closed.")
            w = _Waiter()
            self._enq_line.append(w)
            try:
                done = 0
                while True:
                    if w.cancelled:
                        raise errors.CancelledError(
                            None, None, f"{self.kind} '{self.name}' was closed with "
                            f"cancel_pending_enqueues; the enqueue was cancelled.")
                    if self._enq_line[0] is w:
                        room = len(rows) if self.capacity < 0 else \
                            self.capacity - len(self._items)
                        take = max(0, min(room, len(rows) - done))
                        if take:
                            self._items.extend(rows[done:done + take])
                            done += take
                            self._cond.notify_all()
                        if done == len(rows):
                            return
                    self._block(cancelled, deadline, "enqueueing to")
            finally:
                self._enq_line.remove(w)
                self._cond.notify_all()

    # -- dequeue -------------------------------------------------------------------------------
    def dequeue(self, cancelled: CancelCheck = None, timeout: Optional[float] = None) -> Row:
        """Removes and returns the oldest tuple, blocking while the queue is empty."""
        return self._take(1, False, cancelled, timeout)[0]

    def dequeue_many(self, n: int, cancelled: CancelCheck = None,
                     timeout: Optional[float] = None, allow_smaller: bool = False) -> Row:
        """Removes ``n`` tuples and returns each component stacked along a new dim 0.

        With ``allow_smaller`` (``dequeue_up_to``) a closed queue yields what it still
        holds, if anything, instead of failing.
        """
        n = int(n)
        if n < 0:
            raise errors.InvalidArgumentError(
                None, None, f"Dequeue count must be >= 0 for {self.kind} '{self.name}', got {n}")
        rows = self._take(n, allow_smaller, cancelled, timeout) if n else []
        return tuple(self._batch(rows, i) for i in range(len(self.component_types)))

    def _take(self, n: int, allow_smaller: bool, cancelled: CancelCheck,
              timeout: Optional[float]) -> List[Row]:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            self._raise_if_reset()
            w = _Waiter()
            self._deq_line.append(w)
            got: List[Row] = []
            try:
                while True:
                    if self._deq_line[0] is w:
                        take = min(n - len(got), self._available())
                        for _ in range(take):
                            got.append(self._pop())
                        if take:
                            self._cond.notify_all()
                        if len(got) == n:
                            return got
                        # Pending enqueues from before a plain close() still land,
                        # so the queue only counts as exhausted once they are gone.
                        if self._closed and not self._enq_line:
                            if allow_smaller and got:
                                return got
                            raise errors.OutOfRangeError(
                                None, None, f"{self.kind} '{self.name}' is closed and has "
                                f"insufficient elements (requested {n}, current size "
                                f"{len(got) + len(self._items)})")
                    self._block(cancelled, deadline, "dequeueing from")
            except BaseException:
                # A failed batched dequeue gives back what it claimed, in order, so no
                # element is lost to a cancelled or out-of-range request.
                if not self._reset:
                    self._items.extendleft(reversed(got))
                raise
            finally:
                self._deq_line.remove(w)
                self._cond.notify_all()

    def _available(self) -> int:
        """How many held tuples a dequeue may take right now."""
        return len(self._items)

    def _pop(self) -> Row:
        return self._items.popleft()

    def _batch(self, rows: List[Row], i: int) -> np.ndarray:
        dt = self.component_types[i]
        parts = [r[i] for r in rows]
        if not parts:
            shape = self.component_shape(i)
            if not shape.is_fully_defined():
                raise errors.InvalidArgumentError(
                    None, None, f"{self.kind} '{self.name}': dequeuing 0 elements needs fully "
                    f"defined component shapes; component {i} has shape {shape}")
            return np.zeros([0] + shape.as_list(), dtype=dt.np)
        try:
            return np.stack(parts)
        except ValueError:
            raise errors.InvalidArgumentError(
                None, None, f"{self.kind} '{self.name}': component {i} has elements of "
                f"different shapes {sorted({p.shape for p in parts})}, which cannot be batched "
                f"(a PaddingFIFOQueue pads them)") from None

    # -- closing -------------------------------------------------------------------------------
    def close(self, cancel_pending_enqueues: bool = False) -> None:
        """Refuses new enqueues; dequeues drain what is left, then raise OutOfRangeError.

        With ``cancel_pending_enqueues`` the enqueues blocked right now fail with
        CancelledError instead of waiting for room.
        """
        with self._cond:
            self._closed = True
            if cancel_pending_enqueues:
                for w in self._enq_line:
                    w.cancelled = True
            self._cond.notify_all()

    def close_for_reset(self) -> None:
        """Called when the queue's container is cleared: every waiter, and every later
        use of this object, fails with CancelledError; the elements are dropped."""
        with self._cond:
            self._reset = True
            self._closed = True
            self._items.clear()
            self._cond.notify_all()
        logger.debug("queue %s reset", self.name)

    # -- waiting -------------------------------------------------------------------------------
    def _raise_if_reset(self) -> None:
        if self._reset:
            raise errors.CancelledError(
                None, None, f"{self.kind} '{self.name}' was reset (its resource container "
                f"was cleared)")

    def _block(self, cancelled: CancelCheck, deadline: Optional[float], what: str) -> None:
        """One bounded wait on the condition (lock held), then the reasons to give up."""
        wait = POLL_SECS
        if deadline is not None:
            wait = min(wait, max(0.0, deadline - time.monotonic()))
        self._cond.wait(wait)
        self._raise_if_reset()
        if cancelled is not None and cancelled():
            raise errors.CancelledError(
                None, None, f"Step was cancelled while {what} {self.kind} '{self.name}'")
        if deadline is not None and time.monotonic() >= deadline:
            raise errors.DeadlineExceededError(
                None, None, f"Timed out {what} {self.kind} '{self.name}'")


class PaddingFIFOQueueResource(FIFOQueueResource):
    """A FIFO queue whose batched dequeues zero-pad every component to the largest
    element of the batch, so elements may differ along dims declared ``None``."""

    kind = "PaddingFIFOQueue"

    def __init__(self, name: str, component_types: Sequence[_dtypes.DType],
                 shapes: Sequence[Any], capacity: int = -1):
        super().__init__(name, component_types, shapes, capacity)
        if len(self.shapes) != len(self.component_types) or any(
                s.ndims is None for s in self.shapes):
            raise errors.InvalidArgumentError(
                None, None, f"PaddingFIFOQueue '{name}' needs a shape of known rank for every "
                f"component, got {[str(s) for s in self.shapes]}")

    def _batch(self, rows: List[Row], i: int) -> np.ndarray:
        dt = self.component_types[i]
        parts = [r[i] for r in rows]
        declared = self.shapes[i].as_list()
        # Unknown dims take the largest size in this batch (0 for an empty batch).
        dims = [d if d is not None else max((p.shape[k] for p in parts), default=0)
                for k, d in enumerate(declared)]
        out = np.zeros([len(parts)] + dims, dtype=dt.np)
        if dt is _dtypes.string:
            out[...] = b""
        for j, p in enumerate(parts):
            out[(j,) + tuple(slice(0, s) for s in p.shape)] = p
        return out


class RandomShuffleQueueResource(FIFOQueueResource):
    """A queue whose dequeues take tuples in random order.

    While open, it keeps at least ``min_after_dequeue`` tuples back so that every
    pick is drawn from a reasonably large pool; once closed it drains completely.
    """

    kind = "RandomShuffleQueue"

    def __init__(self, name: str, component_types: Sequence[_dtypes.DType],
                 shapes: Sequence[Any], capacity: int = -1, min_after_dequeue: int = 0,
                 seed: Optional[int] = None, seed2: Optional[int] = None):
        super().__init__(name, component_types, shapes, capacity)
        self.min_after_dequeue = int(min_after_dequeue)
        if self.min_after_dequeue < 0:
            raise errors.InvalidArgumentError(
                None, None, f"RandomShuffleQueue '{name}': min_after_dequeue must be >= 0, "
                f"got {self.min_after_dequeue}")
        if seed is None and seed2 is None:
            self._rng = np.random.default_rng()
        else:
            mask = (1 << 64) - 1
            self._rng = np.random.default_rng(
                np.random.SeedSequence([int(seed or 0) & mask, int(seed2 or 0) & mask]))

    def _available(self) -> int:
        if self._closed:
            return len(self._items)
        return max(0, len(self._items) - self.min_after_dequeue)

    def _pop(self) -> Row:
        # Swap the pick with the head so the removal is a cheap popleft.
        i = int(self._rng.integers(len(self._items)))
        if i:
            self._items[0], self._items[i] = self._items[i], self._items[0]
        return self._items.popleft()


def _dtype_name(dt: np.dtype) -> str:
    try:
        return _dtypes.as_dtype(dt).name
    except TypeError:
        return str(dt)


__all__ = ["FIFOQueueResource", "PaddingFIFOQueueResource", "RandomShuffleQueueResource",
           "POLL_SECS"]
