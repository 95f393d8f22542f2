"""Kernels of the collective ops (see ``ops/collective_ops.py``).

The kernels do not know how ranks talk to each other: they ask a *group
resolver* for the group named by the op's ``group_key`` attr and call its
methods. ``tensorfleet.collectives`` installs the resolver when it is imported
(which ``import tensorfleet`` does), so this layer does not depend on the
collectives layer below it.

``CollectiveAllReduceStart`` parks the future of its reduction in ``PENDING``
under a fresh integer handle, which is the op's output; the matching
``CollectiveAllReduceWait`` redeems it. A start whose wait never ran (its step
failed in between) is dropped the next time that start op runs.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import threading
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel

_RESOLVER: Optional[Callable[[str], Any]] = None


def set_group_resolver(fn: Callable[[str], Any]) -> None:
    """Installs ``fn(group_key) -> Group``, used by every collective kernel."""
    global _RESOLVER
    _RESOLVER = fn


def _group(ctx: KernelContext) -> Any:
    if _RESOLVER is None:
        raise errors.FailedPreconditionError(
            ctx.op_name, None, "collective ops need tensorfleet.collectives: import it and "
            "call tensorfleet.collectives.init(...)")
    return _RESOLVER(ctx.attrs.get("group_key", "default"))


def _timeout(ctx: KernelContext) -> Optional[float]:
    t = float(ctx.attrs.get("timeout", 0.0) or 0.0)
    return t if t > 0 else None


class PendingTable:
    """Futures of started reductions, keyed by the handle their start op returned."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: Dict[int, "concurrent.futures.Future"] = {}
        self._ids = itertools.count(1)

    def put(self, fut: "concurrent.futures.Future") -> int:
        """Parks ``fut``; returns its handle."""
        handle = next(self._ids)
        with self._lock:
            self._items[handle] = fut
        return handle

    def pop(self, handle: int) -> "concurrent.futures.Future":
        """Removes and returns the future of ``handle``; NotFoundError if there is none."""
        with self._lock:
            fut = self._items.pop(int(handle), None)
        if fut is None:
            raise errors.NotFoundError(
                None, None, f"no started collective with handle {int(handle)}: a wait op ran "
                "without its start op in the same step")
        return fut

    def discard(self, handle: int) -> None:
        """Forgets ``handle`` if it is still parked."""
        with self._lock:
            self._items.pop(int(handle), None)

    def __len__(self) -> int:
        return len(self._items)


PENDING = PendingTable()


def _outputs(values: List[np.ndarray]) -> Any:
    return values[0] if len(values) == 1 else tuple(values)


def _start(ctx: KernelContext, inputs: Tuple[Any, ...]) -> "concurrent.futures.Future":
    return _group(ctx).all_reduce_many_async(
        inputs, ctx.attrs.get("reduction", "sum"),
        compression=ctx.attrs.get("compression", "none"), timeout=_timeout(ctx))


@register_kernel("CollectiveAllReduce")
def _all_reduce(ctx: KernelContext, *inputs: Any) -> Any:
    return _outputs(_start(ctx, inputs).result())


@register_kernel("CollectiveAllReduceStart")
def _all_reduce_start(ctx: KernelContext, *inputs: Any) -> np.ndarray:
    stale = ctx.state.pop("handle", None)
    if stale is not None:
        PENDING.discard(stale)
    handle = PENDING.put(_start(ctx, inputs))
    ctx.state["handle"] = handle
    return np.array(handle, np.int64)


@register_kernel("CollectiveAllReduceWait")
def _all_reduce_wait(ctx: KernelContext, handle: Any) -> Any:
    values = PENDING.pop(int(handle)).result()
    expected = len(ctx.attrs.get("T", [])) or len(values)
    if len(values) != expected:
        raise errors.InternalError(
            ctx.op_name, None, f"the started reduction has {len(values)} tensors, the wait op "
            f"expects {expected}")
    return _outputs(values)


@register_kernel("CollectiveAllGather")
def _all_gather(ctx: KernelContext, value: Any) -> np.ndarray:
    return _group(ctx).all_gather(value, timeout=_timeout(ctx))


@register_kernel("CollectiveBroadcast")
def _broadcast(ctx: KernelContext, *inputs: Any) -> Any:
    grp = _group(ctx)
    root = int(ctx.attrs.get("root", 0))
    if len(inputs) == 1:
        return grp.broadcast(inputs[0], root, timeout=_timeout(ctx))
    return _outputs(grp.broadcast_many(inputs, root, timeout=_timeout(ctx)))


@register_kernel("CollectiveReduceScatter")
def _reduce_scatter(ctx: KernelContext, value: Any) -> np.ndarray:
    return _group(ctx).reduce_scatter(value, ctx.attrs.get("reduction", "sum"),
                                      timeout=_timeout(ctx))


@register_kernel("CollectiveBarrier")
def _barrier(ctx: KernelContext) -> None:
    _group(ctx).barrier(timeout=_timeout(ctx))
    return None


__all__ = ["set_group_resolver", "PendingTable", "PENDING"]
