"""numpy kernels of the math ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet.kernels.registry import KernelContext, register_kernel


@register_kernel("Add")
def _add(ctx: KernelContext, x: Any, y: Any) -> np.ndarray:
    return np.add(x, y)


@register_kernel("AddN")
def _add_n(ctx: KernelContext, *xs: Any) -> np.ndarray:
    out = np.add(xs[0], xs[1])
    for x in xs[2:]:
        out += x
    return out
