"""numpy kernels of the stateless random ops (``ops/stateless_random_ops.py``): a fresh
Philox generator keyed by the seed for every run, so a seed always gives the same draws."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet.platform.deferred_scipy import special as _special
from tensorfleet.kernels.numpy.array_kernels import invalid, shape_arg
from tensorfleet.kernels.registry import KernelContext, register_kernel

_MASK64 = (1 << 64) - 1


def _rng(ctx: KernelContext, seed: Any) -> np.random.Generator:
    s = np.asarray(seed).reshape(-1)
    if s.size != 2:
        raise invalid(ctx, f"seed must have shape [2], got {list(np.shape(seed))}")
    key = [int(v) & _MASK64 for v in s.tolist()]
    return np.random.Generator(np.random.Philox(key=key))


@register_kernel("StatelessRandomUniform")
def _uniform(ctx: KernelContext, shape: Any, seed: Any) -> np.ndarray:
    return _rng(ctx, seed).random(shape_arg(ctx, shape)).astype(ctx.attrs["dtype"].np)


@register_kernel("StatelessRandomUniformInt")
def _uniform_int(ctx: KernelContext, shape: Any, seed: Any, lo: Any, hi: Any) -> np.ndarray:
    a, b = int(np.asarray(lo)), int(np.asarray(hi))
    if not a < b:
        raise invalid(ctx, f"Need minval < maxval, got {a} >= {b}")
    return _rng(ctx, seed).integers(a, b, size=shape_arg(ctx, shape)).astype(
        ctx.attrs["dtype"].np)


@register_kernel("StatelessRandomNormal")
def _normal(ctx: KernelContext, shape: Any, seed: Any) -> np.ndarray:
    return _rng(ctx, seed).standard_normal(shape_arg(ctx, shape)).astype(ctx.attrs["dtype"].np)


@register_kernel("StatelessTruncatedNormal")
def _truncated(ctx: KernelContext, shape: Any, seed: Any) -> np.ndarray:
    g = _rng(ctx, seed)
    out = g.standard_normal(shape_arg(ctx, shape))
    flat = out.reshape(-1)
    idx = np.flatnonzero(np.abs(flat) > 2)
    while idx.size:
        v = g.standard_normal(idx.size)
        flat[idx] = v
        idx = idx[np.abs(v) > 2]
    return out.astype(ctx.attrs["dtype"].np)


@register_kernel("StatelessMultinomial")
def _multinomial(ctx: KernelContext, logits: Any, num_samples: Any, seed: Any) -> np.ndarray:
    lg = np.asarray(logits, dtype=np.float64)
    n = int(np.asarray(num_samples))
    if lg.ndim != 2 or n < 0:
        raise invalid(ctx, f"logits must be [batch, classes] and num_samples >= 0, got "
                           f"{list(lg.shape)} and {n}")
    p = _special.softmax(lg, axis=1)
    g = _rng(ctx, seed)
    cdf = np.cumsum(p, axis=1)
    u = g.random((lg.shape[0], n))
    idx = np.array([np.searchsorted(cdf[i], u[i], side="right") for i in range(lg.shape[0])])
    idx = np.minimum(idx.reshape(lg.shape[0], n), lg.shape[1] - 1)
    return idx.astype(ctx.attrs["output_dtype"].np)
