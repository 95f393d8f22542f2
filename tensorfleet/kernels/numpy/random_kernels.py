"""numpy kernels of the random ops.

Each op keeps one ``numpy.random.Generator`` in its per-session state, created on
first use from the ``seed``/``seed2`` attrs (from OS entropy when both are None).
So a seeded graph replays the same sequence in every new session, and successive
runs in one session continue the stream. numpy's bit generators carry their own
lock, which makes concurrent runs of one op safe.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from tensorfleet.platform.deferred_scipy import special as _special
from tensorfleet.kernels.numpy.array_kernels import invalid, shape_arg
from tensorfleet.kernels.registry import KernelContext, register_kernel

_CREATE_LOCK = threading.Lock()
_MASK64 = (1 << 64) - 1
_NATIVE = (np.dtype(np.float32), np.dtype(np.float64))


def generator(ctx: KernelContext) -> np.random.Generator:
    """The op's generator for this session, created lazily from its seeds."""
    g = ctx.state.get("rng")
    if g is None:
        with _CREATE_LOCK:
            g = ctx.state.get("rng")
            if g is None:
                seed, seed2 = ctx.attrs.get("seed"), ctx.attrs.get("seed2")
                if seed is None and seed2 is None:
                    g = np.random.default_rng()
                else:
                    g = np.random.default_rng(
                        np.random.SeedSequence([int(seed or 0) & _MASK64,
                                                int(seed2 or 0) & _MASK64]))
                ctx.state["rng"] = g
    return g


def _normal(g: np.random.Generator, shape: Any, dt: np.dtype) -> np.ndarray:
    if dt in _NATIVE:
        return g.standard_normal(shape, dtype=dt)
    return g.standard_normal(shape, dtype=np.float32).astype(dt)


@register_kernel("RandomStandardNormal")
def _random_normal(ctx: KernelContext, shape: Any) -> np.ndarray:
    return _normal(generator(ctx), shape_arg(ctx, shape), ctx.attrs["dtype"].np)


@register_kernel("TruncatedNormal")
def _truncated_normal(ctx: KernelContext, shape: Any) -> np.ndarray:
    g = generator(ctx)
    dt = ctx.attrs["dtype"].np
    out = _normal(g, shape_arg(ctx, shape), dt)
    flat = out.reshape(-1)
    # About 4.6% of draws fall outside 2 stddev; redraw only those, a few rounds at most.
    idx = np.flatnonzero(np.abs(flat) > 2)
    while idx.size:
        v = _normal(g, idx.size, dt)
        flat[idx] = v
        idx = idx[np.abs(v) > 2]
    return out


@register_kernel("RandomUniform")
def _random_uniform(ctx: KernelContext, shape: Any) -> np.ndarray:
    g = generator(ctx)
    dt = ctx.attrs["dtype"].np
    shp = shape_arg(ctx, shape)
    if dt in _NATIVE:
        return g.random(shp, dtype=dt)
    out = g.random(shp, dtype=np.float32).astype(dt)
    out[out >= 1] = np.nextafter(dt.type(1), dt.type(0))  # rounding must not reach 1
    return out


@register_kernel("RandomUniformInt")
def _random_uniform_int(ctx: KernelContext, shape: Any, lo: Any, hi: Any) -> np.ndarray:
    lo_v, hi_v = int(lo), int(hi)
    if lo_v >= hi_v:
        raise invalid(ctx, f"Need minval < maxval: {lo_v} >= {hi_v}")
    return generator(ctx).integers(lo_v, hi_v, shape_arg(ctx, shape),
                                   dtype=ctx.attrs["Tout"].np)


@register_kernel("RandomShuffle")
def _random_shuffle(ctx: KernelContext, value: Any) -> np.ndarray:
    x = np.asarray(value)
    if x.ndim == 0 or x.shape[0] <= 1:
        return x
    return generator(ctx).permutation(x)


@register_kernel("Multinomial")
def _multinomial(ctx: KernelContext, logits: Any, num_samples: Any) -> np.ndarray:
    lg = np.asarray(logits, dtype=np.float64)
    if lg.ndim != 2:
        raise invalid(ctx, f"logits should be a matrix, got shape {list(lg.shape)}")
    n = int(num_samples)
    b, c = lg.shape
    out_dt = ctx.attrs["output_dtype"].np
    if n < 0:
        raise invalid(ctx, f"num_samples should be nonnegative, got {n}")
    if b == 0 or n == 0:
        return np.zeros((b, n), dtype=out_dt)
    if c == 0:
        raise invalid(ctx, "num_classes should be positive, got 0")
    p = np.exp(lg - lg.max(axis=1, keepdims=True))
    cdf = np.cumsum(p, axis=1)
    cdf /= cdf[:, -1:]
    # One searchsorted for all rows: shift row r's cdf and draws by r so rows stay apart.
    offs = np.arange(b, dtype=np.float64)[:, None]
    u = generator(ctx).random((b, n)) + offs
    idx = np.searchsorted((cdf + offs).ravel(), u.ravel(), side="right").reshape(b, n)
    idx -= (np.arange(b) * c)[:, None]
    np.clip(idx, 0, c - 1, out=idx)
    return idx.astype(out_dt, copy=False)


@register_kernel("RandomGamma")
def _random_gamma(ctx: KernelContext, shape: Any, alpha: Any) -> np.ndarray:
    a = np.asarray(alpha)
    dt = ctx.attrs["T"].np
    size = tuple(shape_arg(ctx, shape)) + a.shape
    # alpha = 0 gives 0; numpy refuses alpha < 0, whose draws are NaN (as in TensorFlow).
    ok = a >= 0
    draws = generator(ctx).standard_gamma(np.where(ok, a, 1).astype(np.float64), size=size)
    return np.where(np.broadcast_to(ok, size), draws, np.nan).astype(dt)


@register_kernel("RandomPoissonV2")
def _random_poisson(ctx: KernelContext, shape: Any, rate: Any) -> np.ndarray:
    lam = np.asarray(rate, dtype=np.float64)
    size = tuple(shape_arg(ctx, shape)) + lam.shape
    # Negative or NaN rates give NaN for float outputs (TensorFlow's), and are refused
    # for integer outputs, which cannot hold NaN.
    ok = lam >= 0
    if not ok.all() and ctx.attrs["dtype"].np.kind != "f":
        raise invalid(ctx, "lam must be non-negative for an integer dtype")
    draws = generator(ctx).poisson(np.where(ok, lam, 0.0), size=size).astype(np.float64)
    return np.where(np.broadcast_to(ok, size), draws, np.nan).astype(ctx.attrs["dtype"].np)


@register_kernel("RandomGammaGrad")
def _random_gamma_grad(ctx: KernelContext, alpha: Any, sample: Any) -> np.ndarray:
    # The sample as a function of alpha at a fixed quantile u = P(alpha, x) (implicit
    # reparameterisation): dx/dalpha = -(dP/dalpha) / (dP/dx), with P the regularised
    # lower incomplete gamma function and dP/dx the density. dP/dalpha is a central
    # difference with a step relative to alpha, accurate to about 1e-9.
    a = np.asarray(alpha, dtype=np.float64)
    x = np.asarray(sample, dtype=np.float64)
    a, x = np.broadcast_arrays(a, x)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        h = 1e-5 * a
        dp_da = (_special.gammainc(a + h, x) - _special.gammainc(a - h, x)) / (2 * h)
        log_pdf = (a - 1) * np.log(x) - x - _special.gammaln(a)
        out = -dp_da / np.exp(log_pdf)
    out = np.where((a > 0) & (x > 0) & np.isfinite(out), out, 0.0)
    return out.astype(np.asarray(sample).dtype)
