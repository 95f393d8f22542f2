"""numpy kernels of the complex-number ops (``ops/complex_ops.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet.kernels.registry import KernelContext, register_kernel


@register_kernel("Complex")
def _complex(ctx: KernelContext, re: Any, im: Any) -> np.ndarray:
    out = np.empty(np.broadcast_shapes(np.shape(re), np.shape(im)), ctx.attrs["Tout"].np)
    out.real, out.imag = re, im
    return out


def _part(op_type: str, fn: Any) -> None:
    def kern(ctx: KernelContext, x: Any) -> np.ndarray:
        return np.asarray(fn(np.asarray(x))).astype(ctx.attrs["Tout"].np, copy=False)
    register_kernel(op_type)(kern)


for _t, _f in {"Real": np.real, "Imag": np.imag, "Angle": np.angle,
               "ComplexAbs": np.abs}.items():
    _part(_t, _f)


@register_kernel("Conj")
def _conj(ctx: KernelContext, x: Any) -> np.ndarray:
    return np.conj(x)
