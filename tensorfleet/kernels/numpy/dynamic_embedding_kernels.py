"""numpy kernels of the dynamic embedding ops (``dynamic_embedding/ops.py``).

Each shard's table is a ``DynamicEmbeddingTable`` in the resource manager of the
task the table op is placed on (a parameter server); the lookup, apply, size,
export and import kernels run there, next to it, and see only the ids routed to
that shard.
"""

from __future__ import annotations

from typing import Any, Dict, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.kernels.dynamic_embedding_resources import (
    OPTIMIZER_SLOTS, DynamicEmbeddingTable, config_of)
from tensorfleet.kernels.registry import KernelContext, register_kernel

# The scalar hyperparameter inputs of each optimizer kind, in input order.
HYPER_INPUTS: Dict[str, Tuple[str, ...]] = {
    "sgd": ("learning_rate",),
    "adagrad": ("learning_rate",),
    "adam": ("learning_rate", "beta1", "beta2", "epsilon"),
}


def _table(ctx: KernelContext, handle: Any) -> DynamicEmbeddingTable:
    if not isinstance(handle, DynamicEmbeddingTable):
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"{ctx.op_type}: input 0 is not a dynamic embedding table")
    return handle


@register_kernel("DynamicEmbeddingTable")
def _create(ctx: KernelContext) -> DynamicEmbeddingTable:
    a = ctx.attrs
    name = a.get("shared_name") or ctx.op_name
    dt, kt = _dtypes.as_dtype(a["dtype"]), _dtypes.as_dtype(a["key_dtype"])
    args = (a["dim"], dt, kt, a["init_kind"], a["init_params"], a["seed"], a["min_frequency"],
            a["capacity"], a["evict_after_steps"])
    t = ctx.resources.lookup_or_create(a.get("container", ""), name,
                                       lambda: DynamicEmbeddingTable(name, *args))
    if not isinstance(t, DynamicEmbeddingTable) or t.config != config_of(*args):
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"Resource {name!r} exists and is not a dynamic embedding "
            f"table of the same configuration")
    return t


@register_kernel("DynamicEmbeddingLookup")
def _lookup(ctx: KernelContext, handle: Any, ids: Any) -> np.ndarray:
    return _table(ctx, handle).lookup(np.asarray(ids), bool(ctx.attrs["training"]))


@register_kernel("DynamicEmbeddingApply")
def _apply(ctx: KernelContext, handle: Any, ids: Any, grads: Any, *hypers: Any) -> None:
    a = ctx.attrs
    kind = a["kind"]
    if kind not in OPTIMIZER_SLOTS:
        raise errors.InvalidArgumentError(ctx.op_name, None,
                                          f"unknown dynamic embedding optimizer {kind!r}")
    names = HYPER_INPUTS[kind]
    if len(hypers) != len(names):
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"{kind} needs {len(names)} hyperparameter inputs "
            f"{list(names)}, got {len(hypers)}")
    table = _table(ctx, handle)
    ids = np.asarray(ids).reshape(-1)
    grads = np.asarray(grads)
    if grads.shape != (ids.size, table.dim):
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"gradient of shape {list(grads.shape)} for {ids.size} ids of "
            f"dimension {table.dim}")
    hyper = {n: float(np.asarray(h)) for n, h in zip(names, hypers)}
    slot_init = dict(zip(a.get("slot_names", []), a.get("slot_inits", [])))
    table.apply(kind, ids, grads, hyper, slot_init)


@register_kernel("DynamicEmbeddingSize")
def _size(ctx: KernelContext, handle: Any) -> np.ndarray:
    return np.array(_table(ctx, handle).size(), np.int64)


@register_kernel("DynamicEmbeddingExport")
def _export(ctx: KernelContext, handle: Any) -> Tuple[np.ndarray, ...]:
    a = ctx.attrs
    return tuple(_table(ctx, handle).export(a["slot_names"], a["slot_inits"],
                                            a["slot_widths"]))


@register_kernel("DynamicEmbeddingImport")
def _import(ctx: KernelContext, handle: Any, keys: Any, values: Any, freqs: Any, seen: Any,
            step: Any, pending_keys: Any, pending_counts: Any, pending_seen: Any,
            *slots: Any) -> None:
    a = ctx.attrs
    names, inits = a["slot_names"], a["slot_inits"]
    if len(slots) != len(names):
        raise errors.InvalidArgumentError(ctx.op_name, None,
                                          f"{len(names)} slot names for {len(slots)} slots")
    table = _table(ctx, handle)
    table.load(np.asarray(keys), np.asarray(values), np.asarray(freqs), np.asarray(seen),
               np.asarray(step), np.asarray(pending_keys), np.asarray(pending_counts),
               np.asarray(pending_seen),
               {n: (np.asarray(s), float(i)) for n, s, i in zip(names, slots, inits)})


__all__ = ["HYPER_INPUTS"]
