"""numpy kernels of the queue ops.

The queue op finds (or creates) its ``FIFOQueueResource`` in the task's resource
manager; every other queue op receives that resource as its ref input 0 and calls
one method on it. Blocking calls are handed a predicate that reports whether the
running step was cancelled, so an aborted step frees the task's thread.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple, Type

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.priority_queue_resource import PriorityQueueResource
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.kernels.queue_resources import (FIFOQueueResource, PaddingFIFOQueueResource,
                                                 RandomShuffleQueueResource)


def _lookup_queue(ctx: KernelContext, cls: Type[FIFOQueueResource]) -> FIFOQueueResource:
    a = ctx.attrs
    name = a.get("shared_name") or ctx.op_name
    types = list(a.get("component_types") or [])
    shapes = list(a.get("shapes") or [])
    capacity = int(a.get("capacity", -1))

    def create() -> FIFOQueueResource:
        if cls is RandomShuffleQueueResource:
            return cls(name, types, shapes, capacity,
                       min_after_dequeue=int(a.get("min_after_dequeue", 0)),
                       seed=a.get("seed"), seed2=a.get("seed2"))
        return cls(name, types, shapes, capacity)

    q = ctx.resources.lookup_or_create(a.get("container", ""), name, create)
    # A shared queue is checked once per (op, resource) pair: the same op then
    # finds the same object on every later step, unless its container was reset.
    if ctx.state.get("verified") is not q:
        if not isinstance(q, FIFOQueueResource):
            raise errors.InvalidArgumentError(
                ctx.op_name, None, f"Resource {name!r} exists and is not a queue "
                f"({type(q).__name__})")
        q.check_compatible(cls.kind, types, shapes, capacity)
        ctx.state["verified"] = q
    return q


@register_kernel("FIFOQueueV2")
def _fifo_queue(ctx: KernelContext) -> FIFOQueueResource:
    return _lookup_queue(ctx, FIFOQueueResource)


@register_kernel("PriorityQueueV2")
def _priority_queue(ctx: KernelContext) -> FIFOQueueResource:
    return _lookup_queue(ctx, PriorityQueueResource)


@register_kernel("PaddingFIFOQueueV2")
def _padding_fifo_queue(ctx: KernelContext) -> FIFOQueueResource:
    return _lookup_queue(ctx, PaddingFIFOQueueResource)


@register_kernel("RandomShuffleQueueV2")
def _random_shuffle_queue(ctx: KernelContext) -> FIFOQueueResource:
    return _lookup_queue(ctx, RandomShuffleQueueResource)



def _timeout(ctx: KernelContext) -> Optional[float]:
    """The op's ``timeout_ms`` attr in seconds; None (wait indefinitely) unless positive."""
    ms = ctx.attrs.get("timeout_ms", -1)
    return ms / 1000.0 if isinstance(ms, (int, float)) and ms > 0 else None


def _check_queue(ctx: KernelContext, q: Any) -> FIFOQueueResource:
    if not isinstance(q, FIFOQueueResource):
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"{ctx.op_type} needs a queue reference as input 0, got "
            f"{type(q).__name__}")
    return q


def _outputs(vals: Tuple[np.ndarray, ...]) -> Any:
    # The executor stores a lone output as is and several as a tuple.
    return vals[0] if len(vals) == 1 else tuple(vals)


def _count(ctx: KernelContext, n: Any) -> int:
    a = np.asarray(n)
    if a.ndim != 0 or a.dtype.kind not in "iu":
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"{ctx.op_type}: n must be an integer scalar, got {a.dtype} "
            f"of shape {list(a.shape)}")
    return int(a)


@register_kernel("QueueEnqueueV2")
def _enqueue(ctx: KernelContext, q: Any, *components: Any) -> None:
    _check_queue(ctx, q).enqueue(components, cancelled=ctx.cancel_check(),
                                 timeout=_timeout(ctx))


@register_kernel("QueueEnqueueManyV2")
def _enqueue_many(ctx: KernelContext, q: Any, *components: Any) -> None:
    _check_queue(ctx, q).enqueue_many(components, cancelled=ctx.cancel_check(),
                                      timeout=_timeout(ctx))


@register_kernel("QueueDequeueV2")
def _dequeue(ctx: KernelContext, q: Any) -> Any:
    return _outputs(_check_queue(ctx, q).dequeue(cancelled=ctx.cancel_check(),
                                                 timeout=_timeout(ctx)))


@register_kernel("QueueDequeueManyV2")
def _dequeue_many(ctx: KernelContext, q: Any, n: Any) -> Any:
    return _outputs(_check_queue(ctx, q).dequeue_many(
        _count(ctx, n), cancelled=ctx.cancel_check(), timeout=_timeout(ctx)))


@register_kernel("QueueDequeueUpToV2")
def _dequeue_up_to(ctx: KernelContext, q: Any, n: Any) -> Any:
    return _outputs(_check_queue(ctx, q).dequeue_many(
        _count(ctx, n), allow_smaller=True, cancelled=ctx.cancel_check(),
        timeout=_timeout(ctx)))


@register_kernel("QueueSizeV2")
def _size(ctx: KernelContext, q: Any) -> np.ndarray:
    return np.array(_check_queue(ctx, q).size(), dtype=np.int32)


@register_kernel("QueueIsClosedV2")
def _is_closed(ctx: KernelContext, q: Any) -> np.ndarray:
    return np.array(_check_queue(ctx, q).is_closed, dtype=np.bool_)


@register_kernel("QueueCloseV2")
def _close(ctx: KernelContext, q: Any) -> None:
    _check_queue(ctx, q).close(bool(ctx.attrs.get("cancel_pending_enqueues", False)))


__all__: list = []
