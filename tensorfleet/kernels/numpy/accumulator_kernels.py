"""numpy kernels of the gradient accumulator ops.

The accumulator op finds (or creates) its resource in the task's resource
manager; every other accumulator op receives that resource as its ref input 0
and calls one method on it. ``take_grad`` blocks, so it is handed a predicate
that reports whether the running step was cancelled: a step aborted elsewhere
in the cluster then frees this task's thread within half a second.
"""

from __future__ import annotations

from typing import Any, Tuple, Type

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel
# Registers the op types too, so a server that only loads kernels accepts graphs
# holding accumulators.
from tensorfleet.ops import accumulator_ops as _accumulator_ops  # noqa: F401
from tensorfleet.kernels.accumulator_resources import (ConditionalAccumulatorResource,
                                              SparseConditionalAccumulatorResource,
                                              AccumulatorResource)


def _lookup(ctx: KernelContext, cls: Type[AccumulatorResource]) -> AccumulatorResource:
    a = ctx.attrs
    name = a.get("shared_name") or ctx.op_name
    dtype, shape = a.get("dtype"), a.get("shape")
    reduction = a.get("reduction_type", "MEAN")

    def create() -> AccumulatorResource:
        return cls(name, dtype, shape, reduction)

    acc = ctx.resources.lookup_or_create(a.get("container", ""), name, create)
    # Checked once per (op, resource) pair, as queues are: later steps of the same
    # op find the same object unless its container was reset.
    if ctx.state.get("verified") is not acc:
        if not isinstance(acc, AccumulatorResource):
            raise errors.InvalidArgumentError(
                ctx.op_name, None, f"Resource {name!r} exists and is not an accumulator "
                f"({type(acc).__name__})")
        acc.check_compatible(cls.kind, dtype, shape)
        ctx.state["verified"] = acc
    return acc


@register_kernel("ConditionalAccumulator")
def _conditional_accumulator(ctx: KernelContext) -> AccumulatorResource:
    return _lookup(ctx, ConditionalAccumulatorResource)


@register_kernel("SparseConditionalAccumulator")
def _sparse_conditional_accumulator(ctx: KernelContext) -> AccumulatorResource:
    return _lookup(ctx, SparseConditionalAccumulatorResource)



def _check(ctx: KernelContext, acc: Any, cls: Type[AccumulatorResource] = AccumulatorResource
           ) -> Any:
    if not isinstance(acc, cls):
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"{ctx.op_type} needs a {cls.kind} reference as input 0, got "
            f"{type(acc).__name__}")
    return acc


@register_kernel("AccumulatorApplyGradient")
def _apply_gradient(ctx: KernelContext, acc: Any, local_step: Any, grad: Any) -> None:
    _check(ctx, acc, ConditionalAccumulatorResource).apply_grad(grad, local_step)


@register_kernel("AccumulatorTakeGradient")
def _take_gradient(ctx: KernelContext, acc: Any, num_required: Any) -> np.ndarray:
    return _check(ctx, acc, ConditionalAccumulatorResource).take_grad(
        num_required, cancelled=ctx.cancel_check())


@register_kernel("SparseAccumulatorApplyGradient")
def _sparse_apply_gradient(ctx: KernelContext, acc: Any, local_step: Any, indices: Any,
                           values: Any, shape: Any) -> None:
    dense_shape = shape if ctx.attrs.get("has_known_shape", False) else None
    _check(ctx, acc, SparseConditionalAccumulatorResource).apply_grad(
        indices, values, dense_shape, local_step)


@register_kernel("SparseAccumulatorTakeGradient")
def _sparse_take_gradient(ctx: KernelContext, acc: Any,
                          num_required: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    return _check(ctx, acc, SparseConditionalAccumulatorResource).take_grad(
        num_required, cancelled=ctx.cancel_check())


@register_kernel("AccumulatorNumAccumulated")
def _num_accumulated(ctx: KernelContext, acc: Any) -> np.ndarray:
    return np.array(_check(ctx, acc).num_accumulated(), dtype=np.int32)


@register_kernel("AccumulatorSetGlobalStep")
def _set_global_step(ctx: KernelContext, acc: Any, new_global_step: Any) -> None:
    _check(ctx, acc).set_global_step(new_global_step)


@register_kernel("AccumulatorClose")
def _close(ctx: KernelContext, acc: Any) -> None:
    _check(ctx, acc).close()


__all__: list = []
