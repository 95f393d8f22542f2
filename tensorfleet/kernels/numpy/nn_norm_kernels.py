"""numpy kernels of local response normalization and its gradient.

The sum of squares over each channel's window is a difference of two entries of
a cumulative sum along the channel axis, so the cost does not grow with
``depth_radius``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel


def _window_sum(a: np.ndarray, radius: int) -> np.ndarray:
    """Sum over channels ``[c - radius, c + radius]`` (clipped) for every channel ``c``."""
    n = a.shape[-1]
    cs = np.zeros(a.shape[:-1] + (n + 1,), a.dtype)
    np.cumsum(a, axis=-1, out=cs[..., 1:])
    pos = np.arange(n)
    return cs[..., np.minimum(pos + radius + 1, n)] - cs[..., np.maximum(pos - radius, 0)]


def _norm(ctx: KernelContext, x: np.ndarray) -> np.ndarray:
    if x.ndim != 4:
        raise errors.InvalidArgumentError(ctx.op_name, None,
                                          f"input must be 4-D, got shape {list(x.shape)}")
    a = ctx.attrs
    return a["bias"] + a["alpha"] * _window_sum(np.square(x), a["depth_radius"])


@register_kernel("LRN")
def _lrn(ctx: KernelContext, x: Any) -> np.ndarray:
    return (x * _norm(ctx, x) ** -ctx.attrs["beta"]).astype(x.dtype, copy=False)


@register_kernel("LRNGrad")
def _lrn_grad(ctx: KernelContext, grads: Any, x: Any, y: Any) -> np.ndarray:
    if grads.shape != x.shape:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"input_grads {list(grads.shape)} and input_image "
            f"{list(x.shape)} must have the same shape")
    a = ctx.attrs
    beta = a["beta"]
    norm = _norm(ctx, x)
    scaled = norm ** -beta
    # d y_i / d x_j = [i == j] N_i^-b - 2ab x_i x_j N_i^(-b-1) for j in i's window; the
    # windows are symmetric, so the second term is a window sum over i of g_i x_i N_i^(-b-1).
    inner = _window_sum(grads * x * scaled / norm, a["depth_radius"])
    return (grads * scaled - 2.0 * a["alpha"] * beta * x * inner).astype(x.dtype, copy=False)
