"""numpy kernels of ``QuantizeV2`` and ``Dequantize`` (``ops/quantize_ops.py``)."""

from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel


def _limits(dt: Any, narrow: bool) -> Tuple[float, float]:
    info = np.iinfo(dt.np)
    return float(info.min) + (1.0 if narrow else 0.0), float(info.max)


def _scaled_factor(lo: float, hi: float, qmin: float, qmax: float) -> float:
    big = np.finfo(np.float32).max
    from_min = qmin / lo if qmin * lo > 0 else big
    from_max = qmax / hi if qmax * hi > 0 else big
    return min(from_min, from_max)


def _round(x: np.ndarray, mode: str) -> np.ndarray:
    if mode == "HALF_TO_EVEN":
        return np.rint(x)
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


@register_kernel("QuantizeV2")
def _quantize(ctx: KernelContext, x: Any, lo: Any, hi: Any) -> List[np.ndarray]:
    a = ctx.attrs
    x = np.asarray(x, np.float64)
    lo, hi = float(np.asarray(lo)), float(np.asarray(hi))
    if hi < lo:
        raise invalid(ctx, f"max_range ({hi}) must be >= min_range ({lo})")
    eps = max(1.0, abs(lo), abs(hi)) * a["ensure_minimum_range"]
    hi = max(hi, lo + eps)
    dt = a["T"]
    info = np.iinfo(dt.np)
    if a["mode"] == "MIN_COMBINED":
        # In float32, as TensorFlow computes it, so halves round the same way.
        span = np.float32(float(info.max) - float(info.min))
        x32 = np.clip(x.astype(np.float32), np.float32(lo), np.float32(hi))
        q = (x32 - np.float32(lo)) * (span / np.float32(hi - lo))
        if info.min < 0:
            q = q - (span + np.float32(1)) / np.float32(2)
        out = _round(q.astype(np.float64), a["round_mode"])
        out_lo, out_hi = lo, hi
    else:
        qmin, qmax = _limits(dt, a["narrow_range"])
        lo, hi = min(lo, 0.0), max(hi, 0.0)
        factor = _scaled_factor(lo, hi, qmin, qmax)
        out_lo, out_hi = qmin / factor, qmax / factor
        out = _round(np.clip(x, out_lo, out_hi) * factor, a["round_mode"])
    out = np.clip(out, info.min, info.max).astype(dt.np)
    return [out, np.float32(out_lo), np.float32(out_hi)]


@register_kernel("Dequantize")
def _dequantize(ctx: KernelContext, x: Any, lo: Any, hi: Any) -> np.ndarray:
    a = ctx.attrs
    x = np.asarray(x).astype(np.float64)
    lo, hi = float(np.asarray(lo)), float(np.asarray(hi))
    dt = a["T"]
    info = np.iinfo(dt.np)
    if a["mode"] == "MIN_COMBINED":
        span = float(info.max) - float(info.min)
        if info.min < 0:
            x = x + (span + 1) / 2
        out = x * (hi - lo) / span + lo
    else:
        qmin, qmax = _limits(dt, a["narrow_range"])
        factor = _scaled_factor(min(lo, 0.0), max(hi, 0.0), qmin, qmax)
        out = x / factor
    return out.astype(a["dtype"].np)
