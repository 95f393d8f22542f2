"""numpy kernels of ``IdentityN`` (``ops/custom_gradient.py``), ``Bitcast`` and
``Timestamp`` (``ops/misc_ops_census.py``)."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel


@register_kernel("IdentityN")
def _identity_n(ctx: KernelContext, *xs: Any) -> tuple:
    return tuple(xs)


@register_kernel("Bitcast")
def _bitcast(ctx: KernelContext, x: Any) -> np.ndarray:
    x = np.ascontiguousarray(x)
    dst = _dtypes.as_dtype(ctx.attrs["type"]).np
    src_size, dst_size = x.dtype.itemsize, np.dtype(dst).itemsize
    if src_size == dst_size:
        return x.view(dst)
    if src_size > dst_size:
        return x.reshape(x.shape + (1,)).view(dst)
    if x.ndim == 0 or x.shape[-1] != dst_size // src_size:
        raise invalid(ctx, f"Cannot bitcast from {x.dtype} to {np.dtype(dst)}: the last "
                           f"dimension must be {dst_size // src_size}, got shape "
                           f"{list(x.shape)}")
    return x.view(dst).reshape(x.shape[:-1])


@register_kernel("Timestamp")
def _timestamp(ctx: KernelContext) -> np.ndarray:
    return np.array(time.time(), dtype=np.float64)
