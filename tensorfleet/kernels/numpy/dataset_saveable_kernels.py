"""numpy kernels of ``IteratorPosition`` and ``IteratorRestorePosition``
(``data/iterator_saveable.py``): an iterator's position saved in a checkpoint as the
number of elements it has produced, restored by replaying its pipeline that far."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.numpy.dataset_kernels import iterator_resource, one_shot_resource
from tensorfleet.kernels.registry import KernelContext, register_kernel


def _resource(ctx: KernelContext, components: Any) -> Any:
    if ctx.attrs.get("one_shot"):
        return one_shot_resource(ctx, components)
    return iterator_resource(ctx)


@register_kernel("IteratorPosition")
def _iterator_position(ctx: KernelContext, *components: Any) -> np.ndarray:
    return np.asarray(_resource(ctx, components).position, dtype=np.int64)


@register_kernel("IteratorRestorePosition")
def _iterator_restore_position(ctx: KernelContext, position: Any, *components: Any) -> None:
    pos = np.asarray(position)
    if pos.shape != () or pos.dtype.kind not in "iu" or int(pos) < 0:
        raise errors.InvalidArgumentError(ctx.op_name, None, f"an iterator position must be a "
                                          f"non-negative integer scalar, got {pos!r}")
    _resource(ctx, components).restore_position(int(pos), ctx.op_name)
