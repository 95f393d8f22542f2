"""numpy kernel of ``EnsureShape`` (``ops/shape_check_ops.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel


@register_kernel("EnsureShape")
def _ensure_shape(ctx: KernelContext, x: Any) -> Any:
    want = ctx.attrs["shape"]
    got = np.shape(x)
    if not want.is_compatible_with(list(got)):
        raise invalid(ctx, f"Shape of tensor {ctx.op_name} {list(got)} is not compatible with "
                           f"expected shape {want}.")
    return x
