"""Gradient accumulators: the resources behind ``tf.ConditionalAccumulator``.

An accumulator lives in a task's ``ResourceManager`` (normally on the parameter
server of the variable whose gradients it collects) and is shared by every
worker that names it. Workers ``apply`` gradients tagged with the local step
they were computed at; the chief ``take``s their average once enough arrived.

Staleness. The accumulator keeps a *global step*: a gradient whose local step is
below it was computed from parameters that have since been replaced, and is
dropped (and counted). Gradients are kept tagged with their local step, and
``set_global_step`` also purges the ones already held that became stale. That
closes a window that a plain "check on arrival" would leave open: between the
chief's ``take`` and its ``set_global_step``, a late gradient of the step just
taken would otherwise be counted in the next step.

Every blocking call waits on one condition variable and wakes at least every
``POLL_SECS`` to ask its caller whether its step was cancelled, so an aborted
step never parks a task's thread here.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.framework.tensor_shape import TensorShape, as_shape, unknown_shape
from tensorfleet.kernels.sparse_rows import sum_duplicates

logger = logging.getLogger(__name__)

POLL_SECS = 0.5
REDUCTION_TYPES = ("MEAN", "SUM")

CancelCheck = Optional[Callable[[], bool]]


class AccumulatorResource:
    """Shared state machine of the dense and sparse accumulators.

    Subclasses hold their entries as ``(local_step, payload)`` pairs in
    ``self._entries`` and implement ``_check`` and ``_reduce``.
    """

    kind = "ConditionalAccumulator"

    def __init__(self, name: str, dtype: Any, shape: Any = None, reduction_type: str = "MEAN"):
        self.name = name
        self.dtype = _dtypes.as_dtype(dtype)
        if self.dtype not in (_dtypes.float16, _dtypes.float32, _dtypes.float64):
            raise errors.InvalidArgumentError(
                None, None, f"{self.kind} '{name}' accumulates floating point gradients; got "
                f"dtype {self.dtype.name}")
        self.shape: TensorShape = unknown_shape() if shape is None else as_shape(shape)
        if reduction_type not in REDUCTION_TYPES:
            raise errors.InvalidArgumentError(
                None, None, f"{self.kind} '{name}': reduction_type must be one of "
                f"{list(REDUCTION_TYPES)}, got {reduction_type!r}")
        self.reduction_type = reduction_type
        self._cond = threading.Condition()
        self._entries: List[Tuple[int, Any]] = []
        self._global_step = 0
        self._dropped = 0
        self._closed = False
        self._reset = False

    # -- facts -------------------------------------------------------------------------------
    @property
    def global_step(self) -> int:
        """The staleness threshold: gradients of an older local step are dropped."""
        return self._global_step

    @property
    def num_dropped(self) -> int:
        """How many gradients were dropped as stale (or arrived after ``close``)."""
        return self._dropped

    @property
    def is_closed(self) -> bool:
        return self._closed

    def num_accumulated(self) -> int:
        """The number of (non-stale) gradients held now."""
        with self._cond:
            return len(self._entries)

    def read(self) -> np.ndarray:
        """What fetching the accumulator's handle yields: its name, as a string scalar."""
        return np.array(self.name.encode(), dtype=object)

    def check_compatible(self, kind: str, dtype: Any, shape: Any) -> None:
        """InvalidArgumentError naming both sides when an op declares this shared
        accumulator differently from the op that created it."""
        theirs = _dtypes.as_dtype(dtype)
        if kind != self.kind or theirs is not self.dtype:
            raise errors.InvalidArgumentError(
                None, None, f"Shared accumulator '{self.name}' is a {self.kind} of "
                f"{self.dtype.name} but a {kind} of {theirs.name} was requested")
        if not as_shape(shape).is_compatible_with(self.shape):
            raise errors.InvalidArgumentError(
                None, None, f"Shared accumulator '{self.name}' has shape {self.shape} but "
                f"shape {as_shape(shape)} was requested")

    # -- the three operations ----------------------------------------------------------------
    def _apply(self, local_step: Any, payload: Any) -> bool:
        """Adds ``payload`` unless it is stale; True when it was accepted."""
        step = _as_step(local_step, self.name)
        with self._cond:
            self._raise_if_reset()
            if self._closed or step < self._global_step:
                self._dropped += 1
                logger.debug("%s '%s': dropped gradient of local step %d (global step %d%s)",
                             self.kind, self.name, step, self._global_step,
                             ", closed" if self._closed else "")
                return False
            self._check_against_held(payload)
            self._entries.append((step, payload))
            self._cond.notify_all()
            return True

    def _take(self, num_required: Any, cancelled: CancelCheck,
              timeout: Optional[float]) -> Tuple[List[Any], int]:
        """Blocks until ``num_required`` gradients are held, then removes them all.

        Returns the payloads and their number; the global step is left alone (the
        chief advances it with ``set_global_step``).
        """
        n = _as_step(num_required, self.name)
        if n < 1:
            raise errors.InvalidArgumentError(
                None, None, f"{self.kind} '{self.name}': num_required must be >= 1, got {n}")
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while True:
                self._raise_if_reset()
                if self._closed:
                    raise errors.CancelledError(
                        None, None, f"{self.kind} '{self.name}' is closed; no more gradients "
                        f"will be taken")
                if len(self._entries) >= n:
                    payloads = [p for _, p in self._entries]
                    self._entries = []
                    return payloads, len(payloads)
                self._block(cancelled, deadline)

    def set_global_step(self, new_global_step: Any) -> None:
        """Sets the staleness threshold and drops the held gradients it makes stale."""
        step = _as_step(new_global_step, self.name)
        with self._cond:
            self._raise_if_reset()
            if step < self._global_step:
                # Allowed (a job restored from an older checkpoint), but worth a trace.
                logger.warning("%s '%s': global step moved back from %d to %d", self.kind,
                               self.name, self._global_step, step)
            self._global_step = step
            keep = [(s, p) for s, p in self._entries if s >= step]
            self._dropped += len(self._entries) - len(keep)
            self._entries = keep
            self._cond.notify_all()

    # -- ending ------------------------------------------------------------------------------
    def close(self) -> None:
        """Ends the accumulator's use for this job: takes blocked now or later fail
        with CancelledError, and later gradients are dropped (so workers still
        running go on to the token queue, which tells them the job is over)."""
        with self._cond:
            self._closed = True
            self._entries = []
            self._cond.notify_all()
        logger.debug("%s '%s' closed", self.kind, self.name)

    def close_for_reset(self) -> None:
        """Called when the accumulator's container is cleared: every waiter, and every
        later use of this object, fails with CancelledError."""
        with self._cond:
            self._reset = True
            self._closed = True
            self._entries = []
            self._cond.notify_all()
        logger.debug("%s '%s' reset", self.kind, self.name)

    def _raise_if_reset(self) -> None:
        if self._reset:
            raise errors.CancelledError(
                None, None, f"{self.kind} '{self.name}' was reset (its resource container "
                f"was cleared)")

    def _block(self, cancelled: CancelCheck, deadline: Optional[float]) -> None:
        """One bounded wait (lock held), then the reasons to give up."""
        wait = POLL_SECS
        if deadline is not None:
            wait = min(wait, max(0.0, deadline - time.monotonic()))
        self._cond.wait(wait)
        if cancelled is not None and cancelled():
            raise errors.CancelledError(
                None, None, f"Step was cancelled while taking a gradient from {self.kind} "
                f"'{self.name}'")
        if deadline is not None and time.monotonic() >= deadline:
            raise errors.DeadlineExceededError(
                None, None, f"Timed out taking a gradient from {self.kind} '{self.name}'")

    # -- subclass hooks ------------------------------------------------------------------------
    def _check_against_held(self, payload: Any) -> None:
        """Checks a payload against the gradients already held (lock held)."""

    def _scale(self, total: np.ndarray, count: int) -> np.ndarray:
        if self.reduction_type == "SUM":
            return total
        return (total / np.asarray(count, dtype=total.dtype)).astype(self.dtype.np, copy=False)


class ConditionalAccumulatorResource(AccumulatorResource):
    """Averages dense gradients of one shape, dropping stale ones."""

    kind = "ConditionalAccumulator"

    def apply_grad(self, grad: Any, local_step: Any) -> bool:
        """Adds ``grad`` computed at ``local_step``; False when dropped as stale."""
        g = np.array(grad, copy=True)
        if g.dtype != self.dtype.np:
            raise errors.InvalidArgumentError(
                None, None, f"{self.kind} '{self.name}' holds {self.dtype.name} gradients; "
                f"got {_dtype_name(g.dtype)}")
        if not self.shape.is_compatible_with(TensorShape(list(g.shape))):
            raise errors.InvalidArgumentError(
                None, None, f"Shape mismatch: {self.kind} '{self.name}' has shape "
                f"{self.shape}; got a gradient of shape {list(g.shape)}")
        return self._apply(local_step, g)

    def _check_against_held(self, payload: Any) -> None:
        # An accumulator of partially known shape takes the shape of its first gradient.
        if self._entries and self._entries[0][1].shape != payload.shape:
            raise errors.InvalidArgumentError(
                None, None, f"Shape mismatch: {self.kind} '{self.name}' holds gradients of "
                f"shape {list(self._entries[0][1].shape)}; got {list(payload.shape)}")

    def take_grad(self, num_required: Any, cancelled: CancelCheck = None,
                  timeout: Optional[float] = None) -> np.ndarray:
        """Waits for ``num_required`` gradients; returns the mean (or sum) of all held."""
        grads, count = self._take(num_required, cancelled, timeout)
        total = grads[0].copy()
        for g in grads[1:]:
            total += g
        return self._scale(total, count)


class SparseConditionalAccumulatorResource(AccumulatorResource):
    """Averages ``IndexedSlices`` gradients index by index, as TensorFlow does: the
    rows given for one index are summed over the gradients applied, and the sum is
    divided by the number of gradients that named that index (not by the number
    of gradients taken). A row that one replica of two touched thus keeps that
    replica's full gradient.

    Repeated indices within one gradient are summed first and count as one
    contribution, so the result does not depend on the order or repetition of
    ids in a batch (TensorFlow's kernel assumes sorted unique indices there)."""

    kind = "SparseConditionalAccumulator"

    def apply_grad(self, indices: Any, values: Any, dense_shape: Any,
                   local_step: Any) -> bool:
        """Adds rows ``indices`` with ``values``; False when dropped as stale."""
        idx = np.asarray(indices)
        vals = np.array(values, copy=True)
        if idx.ndim != 1 or (idx.size and idx.dtype.kind not in "iu"):
            raise errors.InvalidArgumentError(
                None, None, f"{self.kind} '{self.name}': indices must be a vector of integers, "
                f"got {_dtype_name(idx.dtype)} of shape {list(idx.shape)}")
        if vals.dtype != self.dtype.np:
            raise errors.InvalidArgumentError(
                None, None, f"{self.kind} '{self.name}' holds {self.dtype.name} gradients; "
                f"got {_dtype_name(vals.dtype)}")
        if vals.ndim < 1 or vals.shape[0] != idx.shape[0]:
            raise errors.InvalidArgumentError(
                None, None, f"{self.kind} '{self.name}': values of shape {list(vals.shape)} do "
                f"not have one row per index ({idx.shape[0]} indices)")
        shape = None if dense_shape is None else np.asarray(dense_shape).astype(np.int64)
        if shape is not None and shape.size and shape.ndim == 1:
            if shape.shape[0] != vals.ndim or list(shape[1:]) != list(vals.shape[1:]):
                raise errors.InvalidArgumentError(
                    None, None, f"{self.kind} '{self.name}': dense shape {list(shape)} does "
                    f"not match values of shape {list(vals.shape)}")
        else:
            shape = None
        if self.shape.ndims is not None:
            row = TensorShape(self.shape.as_list()[1:])
            if vals.ndim != self.shape.ndims or not row.is_compatible_with(
                    TensorShape(list(vals.shape[1:]))):
                raise errors.InvalidArgumentError(
                    None, None, f"Shape mismatch: {self.kind} '{self.name}' has shape "
                    f"{self.shape}; got values of shape {list(vals.shape)}")
        return self._apply(local_step, (idx.astype(np.int64), vals, shape))

    def _check_against_held(self, payload: Any) -> None:
        if self._entries and self._entries[0][1][1].shape[1:] != payload[1].shape[1:]:
            raise errors.InvalidArgumentError(
                None, None, f"Shape mismatch: {self.kind} '{self.name}' holds rows of shape "
                f"{list(self._entries[0][1][1].shape[1:])}; got {list(payload[1].shape[1:])}")

    def take_grad(self, num_required: Any, cancelled: CancelCheck = None,
                  timeout: Optional[float] = None
                  ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Waits for ``num_required`` gradients; returns ``(indices, values, dense_shape)``
        with sorted unique indices and, for each, the mean (or sum) of its rows over
        the gradients that named it."""
        grads, _ = self._take(num_required, cancelled, timeout)
        all_idx = np.concatenate([g[0] for g in grads])
        all_vals = np.concatenate([g[1] for g in grads])
        total, uniq = sum_duplicates(all_vals, all_idx)
        if total is all_vals:
            total = total.copy()
        order = np.argsort(uniq, kind="stable")
        total, uniq = total[order], uniq[order]
        if self.reduction_type == "MEAN" and len(grads) > 1:
            # How many gradients named each index: one per gradient, repeats aside.
            named = np.concatenate([np.unique(g[0]) for g in grads])
            counts = np.bincount(np.searchsorted(uniq, named), minlength=uniq.shape[0])
            total = total / counts.reshape((-1,) + (1,) * (total.ndim - 1)).astype(total.dtype)
        return uniq.astype(np.int64), total.astype(self.dtype.np, copy=False), \
            self._dense_shape(grads, uniq, all_vals)

    def _dense_shape(self, grads: Sequence[Any], uniq: np.ndarray,
                     vals: np.ndarray) -> np.ndarray:
        for g in reversed(grads):
            if g[2] is not None:
                return g[2].copy()
        dims = self.shape.as_list() if self.shape.ndims is not None else \
            [None] + list(vals.shape[1:])
        if dims and dims[0] is None:
            dims[0] = int(uniq.max()) + 1 if uniq.size else 0
        return np.array([-1 if d is None else d for d in dims], dtype=np.int64)


def _as_step(v: Any, name: str) -> int:
    a = np.asarray(v)
    if a.ndim != 0 or a.dtype.kind not in "iu":
        raise errors.InvalidArgumentError(
            None, None, f"Accumulator '{name}': a step or count must be an integer scalar, "
            f"got {_dtype_name(a.dtype)} of shape {list(a.shape)}")
    return int(a)


def _dtype_name(dt: np.dtype) -> str:
    try:
        return _dtypes.as_dtype(dt).name
    except TypeError:
        return str(dt)


__all__ = ["AccumulatorResource", "ConditionalAccumulatorResource",
           "SparseConditionalAccumulatorResource",
           "POLL_SECS", "REDUCTION_TYPES"]
