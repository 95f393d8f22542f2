"""numpy kernels of the special functions (``ops/special_functions.py``), from
``scipy.special``; results keep the input's float dtype."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet.platform.deferred_scipy import special as sc
from tensorfleet.kernels.registry import KernelContext, register_kernel


def _quiet() -> Any:
    return np.errstate(divide="ignore", invalid="ignore", over="ignore")


def _unary(op_type: str, fn: Any) -> None:
    def kern(ctx: KernelContext, x: Any) -> np.ndarray:
        x = np.asarray(x)
        with _quiet():
            return np.asarray(fn(x.astype(np.float64)), dtype=x.dtype)
    register_kernel(op_type)(kern)


for _op, _fn in {"BesselJ0": sc.j0, "BesselJ1": sc.j1, "BesselY0": sc.y0, "BesselY1": sc.y1,
                 "BesselK0": sc.k0, "BesselK0e": sc.k0e, "BesselK1": sc.k1,
                 "BesselK1e": sc.k1e,
                 "Dawsn": sc.dawsn, "Expint": sc.expi,
                 "FresnelCos": lambda x: sc.fresnel(x)[1],
                 "FresnelSin": lambda x: sc.fresnel(x)[0],
                 # scipy's spence is the same integral; it is nan below 0, as TensorFlow's.
                 "Spence": sc.spence}.items():
    _unary(_op, _fn)


def _binary(op_type: str, fn: Any) -> None:
    def kern(ctx: KernelContext, a: Any, x: Any) -> np.ndarray:
        a, x = np.asarray(a), np.asarray(x)
        with _quiet():
            out = fn(a.astype(np.float64), x.astype(np.float64))
        return np.asarray(out, dtype=a.dtype)
    register_kernel(op_type)(kern)


def _igamma_grad_a(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    # scipy has no closed derivative in a; a central difference in float64 with a step
    # scaled to a is accurate to ~1e-8, below float32 resolution.
    h = 1e-5 * np.maximum(np.abs(a), 1.0)
    return (sc.gammainc(a + h, x) - sc.gammainc(a - h, x)) / (2 * h)


_binary("Igamma", sc.gammainc)
_binary("Igammac", sc.gammaincc)
_binary("IgammaGradA", _igamma_grad_a)
