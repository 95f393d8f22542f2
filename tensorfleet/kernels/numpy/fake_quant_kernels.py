"""numpy kernels of the fake-quantization ops (``ops/fake_quant_ops.py``)."""

from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel


def _nudge(lo: Any, hi: Any, num_bits: int, narrow: bool) -> Tuple[np.ndarray, ...]:
    """``(nudged_min, nudged_max, scale)``: the range moved so zero is a level."""
    lo, hi = np.asarray(lo, np.float32), np.asarray(hi, np.float32)
    qmin = np.float32(1.0 if narrow else 0.0)
    qmax = np.float32(2 ** num_bits - 1)
    scale = (hi - lo) / (qmax - qmin)
    zero_from_min = qmin - lo / scale
    zero = np.where(zero_from_min < qmin, qmin,
                    np.where(zero_from_min > qmax, qmax,
                             np.floor(zero_from_min + np.float32(0.5))))
    return (qmin - zero) * scale, (qmax - zero) * scale, scale


def _quantize(x: np.ndarray, lo: Any, hi: Any, ctx: KernelContext) -> np.ndarray:
    nmin, nmax, scale = _nudge(lo, hi, ctx.attrs["num_bits"], ctx.attrs["narrow_range"])
    clamped = np.clip(x, nmin, nmax)
    return (np.floor((clamped - nmin) / scale + np.float32(0.5)) * scale + nmin).astype(
        np.float32)


def _check(ctx: KernelContext, lo: Any, hi: Any) -> None:
    if np.any(np.asarray(lo) > np.asarray(hi)):
        raise invalid(ctx, f"min must be <= max, got {lo} and {hi}")


@register_kernel("FakeQuantWithMinMaxArgs")
def _args(ctx: KernelContext, x: Any) -> np.ndarray:
    return _quantize(np.asarray(x), ctx.attrs["min"], ctx.attrs["max"], ctx)


@register_kernel("FakeQuantWithMinMaxArgsGradient")
def _args_grad(ctx: KernelContext, g: Any, x: Any) -> np.ndarray:
    nmin, nmax, _ = _nudge(ctx.attrs["min"], ctx.attrs["max"], ctx.attrs["num_bits"],
                           ctx.attrs["narrow_range"])
    x = np.asarray(x)
    return np.where((x >= nmin) & (x <= nmax), g, 0).astype(np.float32)


def _vars_kernel(per_channel: bool) -> Any:
    def kern(ctx: KernelContext, x: Any, lo: Any, hi: Any) -> np.ndarray:
        _check(ctx, lo, hi)
        return _quantize(np.asarray(x), lo, hi, ctx)
    return kern


def _vars_grad_kernel(per_channel: bool) -> Any:
    def kern(ctx: KernelContext, g: Any, x: Any, lo: Any, hi: Any) -> List[np.ndarray]:
        _check(ctx, lo, hi)
        x, g = np.asarray(x), np.asarray(g, np.float32)
        nmin, nmax, _ = _nudge(lo, hi, ctx.attrs["num_bits"], ctx.attrs["narrow_range"])
        below, above = x < nmin, x > nmax
        dx = np.where(below | above, 0, g).astype(np.float32)
        axes = tuple(range(x.ndim - 1)) if per_channel else None
        dmin = np.sum(np.where(below, g, 0), axis=axes).astype(np.float32)
        dmax = np.sum(np.where(above, g, 0), axis=axes).astype(np.float32)
        return [dx, dmin, dmax]
    return kern


register_kernel("FakeQuantWithMinMaxVars")(_vars_kernel(False))
register_kernel("FakeQuantWithMinMaxVarsPerChannel")(_vars_kernel(True))
register_kernel("FakeQuantWithMinMaxVarsGradient")(_vars_grad_kernel(False))
register_kernel("FakeQuantWithMinMaxVarsPerChannelGradient")(_vars_grad_kernel(True))
