"""numpy kernels of the stateless distributions (``ops/stateless_random_distributions.py``),
each keyed by its seed through numpy's Philox generator."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid, shape_arg
from tensorfleet.kernels.numpy.stateless_random_kernels import _rng
from tensorfleet.kernels.registry import KernelContext, register_kernel


def _params(ctx: KernelContext, shape: tuple, *params: Any) -> list:
    try:
        return [np.broadcast_to(np.asarray(p, np.float64), shape) for p in params]
    except ValueError:
        raise invalid(ctx, f"the parameters' shapes {[list(np.shape(p)) for p in params]} do "
                           f"not broadcast to the sample shape {list(shape)}") from None


@register_kernel("StatelessRandomUniformFullInt")
def _full_int(ctx: KernelContext, shape: Any, seed: Any) -> np.ndarray:
    dt = ctx.attrs["dtype"].np
    info = np.iinfo(dt)
    return _rng(ctx, seed).integers(info.min, info.max, size=shape_arg(ctx, shape),
                                    dtype=dt, endpoint=True)


@register_kernel("StatelessRandomBinomial")
def _binomial(ctx: KernelContext, shape: Any, seed: Any, counts: Any, probs: Any) -> np.ndarray:
    shp = shape_arg(ctx, shape)
    n, p = _params(ctx, shp, counts, probs)
    if np.any(n < 0) or np.any((p < 0) | (p > 1)):
        raise invalid(ctx, "counts must be >= 0 and probs in [0, 1]")
    return _rng(ctx, seed).binomial(n.astype(np.int64), p).astype(ctx.attrs["dtype"].np)


@register_kernel("StatelessRandomGammaV2")
def _gamma(ctx: KernelContext, shape: Any, seed: Any, alpha: Any) -> np.ndarray:
    shp = shape_arg(ctx, shape)
    (a,) = _params(ctx, shp, alpha)
    with np.errstate(invalid="ignore"):
        out = _rng(ctx, seed).standard_gamma(np.where(a > 0, a, 1.0))
    return np.where(a > 0, out, np.nan).astype(ctx.attrs["dtype"].np)


@register_kernel("StatelessRandomPoisson")
def _poisson(ctx: KernelContext, shape: Any, seed: Any, lam: Any) -> np.ndarray:
    shp = shape_arg(ctx, shape)
    (lam_b,) = _params(ctx, shp, lam)
    if np.any(lam_b < 0):
        raise invalid(ctx, "lam must be non-negative")
    return _rng(ctx, seed).poisson(lam_b).astype(ctx.attrs["dtype"].np)


@register_kernel("StatelessParameterizedTruncatedNormal")
def _param_truncated(ctx: KernelContext, shape: Any, seed: Any, means: Any, stddevs: Any,
                     minvals: Any, maxvals: Any) -> np.ndarray:
    shp = shape_arg(ctx, shape)
    mu, sd, lo, hi = _params(ctx, shp, means, stddevs, minvals, maxvals)
    if np.any(sd <= 0) or np.any(lo >= hi):
        raise invalid(ctx, "stddevs must be positive and minvals < maxvals")
    a, b = (lo - mu) / sd, (hi - mu) / sd
    # Inverse-CDF sampling of the truncated standard normal, keyed by the seed.
    u = _rng(ctx, seed).random(shp)
    # scipy.stats takes most of a second to import; every tensorfleet process would pay
    # it at start for this one op.
    import scipy.stats
    z = scipy.stats.truncnorm.ppf(u, a, b)
    return (mu + sd * z).astype(ctx.attrs["dtype"].np)


@register_kernel("StatelessShuffle")
def _shuffle(ctx: KernelContext, value: Any, seed: Any) -> np.ndarray:
    value = np.asarray(value)
    if value.ndim == 0:
        return value
    return value[_rng(ctx, seed).permutation(value.shape[0])]


def _feistel(x: np.ndarray, keys: np.ndarray, half_bits: int) -> np.ndarray:
    mask = (1 << half_bits) - 1
    left, right = x >> np.uint64(half_bits), x & np.uint64(mask)
    for k in keys:
        mixed = (right * np.uint64(0x9E3779B97F4A7C15) + np.uint64(k)) & np.uint64(
            (1 << 64) - 1)
        mixed ^= mixed >> np.uint64(29)
        left, right = right, left ^ (mixed & np.uint64(mask))
    return (left << np.uint64(half_bits)) | right


@register_kernel("RandomIndexShuffle")
def _index_shuffle(ctx: KernelContext, index: Any, seed: Any, max_index: Any) -> np.ndarray:
    index = np.asarray(index)
    top = int(np.asarray(max_index))
    if top < 0 or np.any(index < 0) or np.any(index > top):
        raise invalid(ctx, f"index must be in [0, max_index] with max_index >= 0, got "
                           f"max_index {top}")
    s = np.asarray(seed).reshape(-1)
    if s.size != 3:
        raise invalid(ctx, f"seed must have shape [3], got {list(np.shape(seed))}")
    mask = (1 << 64) - 1
    words = [int(v) & mask for v in s.tolist()]
    rng = np.random.Generator(np.random.Philox(key=[words[0] ^ ((words[2] << 32) & mask),
                                                    words[1]]))
    keys = rng.integers(0, 1 << 62, size=2 * int(ctx.attrs["rounds"]), dtype=np.uint64)
    half = (max(1, top.bit_length()) + 1) // 2
    with np.errstate(over="ignore"):
        out = index.astype(np.uint64).reshape(-1)
        # Cycle walking: values that leave [0, top] are encrypted again until back in range.
        todo = np.ones(out.shape, bool)
        result = out.copy()
        cur = out.copy()
        while todo.any():
            cur[todo] = _feistel(cur[todo], keys, half)
            done = todo & (cur <= np.uint64(top))
            result[done] = cur[done]
            todo &= ~done
    return result.reshape(index.shape).astype(index.dtype)
