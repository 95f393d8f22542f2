"""numpy kernels of the array ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel


@register_kernel("Const")
def _const(ctx: KernelContext) -> np.ndarray:
    return ctx.attrs["value"]


@register_kernel("Placeholder")
def _placeholder(ctx: KernelContext) -> Any:
    raise errors.InvalidArgumentError(
        ctx.op_name, None, f"You must feed a value for placeholder tensor '{ctx.op_name}' with "
        f"dtype {ctx.attrs['dtype'].name} and shape {ctx.attrs['shape']}")


@register_kernel("PlaceholderWithDefault")
@register_kernel("Identity")
def _identity(ctx: KernelContext, x: Any) -> Any:
    return x
