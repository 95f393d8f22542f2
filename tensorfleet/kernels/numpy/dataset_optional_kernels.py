"""numpy kernels of ``get_next_as_optional`` and ``Optional.get_value``
(``data/optional_ops.py``): the next element with a flag saying whether there was one,
instead of an OutOfRangeError at the end."""

from __future__ import annotations

from typing import Any, List

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.numpy.dataset_kernels import (IteratorResource, iterator_resource,
                                                       one_shot_resource)
from tensorfleet.kernels.registry import KernelContext, register_kernel


def _empty_like(dtype: Any, shape: Any) -> np.ndarray:
    dims = [0 if d is None else d for d in (shape.as_list() if shape.ndims is not None
                                           else [])]
    if dtype.np == np.object_:
        return np.full(dims, b"", dtype=object)
    return np.zeros(dims, dtype=dtype.np)


def _next_or_empty(ctx: KernelContext, res: IteratorResource) -> tuple:
    types = ctx.attrs.get("output_types") or []
    shapes = ctx.attrs.get("output_shapes") or []
    try:
        values: List[np.ndarray] = res.get_next(ctx.op_name)
    except errors.OutOfRangeError:
        return (np.asarray(False),) + tuple(_empty_like(t, s) for t, s in zip(types, shapes))
    if len(values) != len(types):
        raise errors.InvalidArgumentError(ctx.op_name, None, f"iterator yields {len(values)} "
                                          f"components but the op declares {len(types)}")
    return (np.asarray(True),) + tuple(v if v.dtype == t.np else v.astype(t.np)
                                       for v, t in zip(values, types))


@register_kernel("OneShotIteratorGetNextAsOptional")
def _one_shot_as_optional(ctx: KernelContext, *components: np.ndarray) -> tuple:
    return _next_or_empty(ctx, one_shot_resource(ctx, components))


@register_kernel("IteratorGetNextAsOptional")
def _get_next_as_optional(ctx: KernelContext) -> tuple:
    return _next_or_empty(ctx, iterator_resource(ctx))


@register_kernel("OptionalGetValue")
def _optional_get_value(ctx: KernelContext, has_value: Any, *components: Any) -> Any:
    if not bool(np.asarray(has_value)):
        raise errors.InvalidArgumentError(ctx.op_name, None,
                                          "The given optional does not have a value.")
    return components[0] if len(components) == 1 else tuple(components)
