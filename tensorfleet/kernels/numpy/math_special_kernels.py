"""numpy kernels of the trigonometric, hyperbolic and special-function ops
(``ops/math_ops_special.py``).

The special functions come from ``scipy.special`` (vectorised C loops); results keep
the input's float dtype. Values outside a function's domain are nan or ±inf, as
TensorFlow's are, without floating-point warnings.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet.platform.deferred_scipy import special as _special
from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel


def _quiet() -> Any:
    return np.errstate(divide="ignore", invalid="ignore", over="ignore")


def _elementwise(op_type: str, fn: Any) -> None:
    def kern(ctx: KernelContext, x: Any) -> np.ndarray:
        x = np.asarray(x)
        with _quiet():
            return np.asarray(fn(x), dtype=x.dtype)
    register_kernel(op_type)(kern)


for _op, _fn in {
    "Tan": np.tan, "Sinh": np.sinh, "Cosh": np.cosh, "Asin": np.arcsin, "Acos": np.arccos,
    "Atan": np.arctan, "Asinh": np.arcsinh, "Acosh": np.arccosh, "Atanh": np.arctanh,
    "Rint": np.rint, "Erf": _special.erf, "Erfc": _special.erfc,
    "Lgamma": _special.gammaln, "Erfinv": _special.erfinv,
    "Ndtri": _special.ndtri, "BesselI0e": _special.i0e,
    "BesselI1e": _special.i1e,
}.items():
    _elementwise(_op, _fn)


def _poles(x: np.ndarray) -> np.ndarray:
    """Where the gamma function has its poles: 0, -1, -2, ..."""
    return (x <= 0) & (x == np.floor(x))


@register_kernel("Digamma")
def _digamma(ctx: KernelContext, x: Any) -> np.ndarray:
    x = np.asarray(x)
    with _quiet():
        out = np.asarray(_special.psi(x), dtype=x.dtype)
    # scipy gives -inf at 0 where TensorFlow (and the two-sided limit) gives nan.
    out[_poles(x)] = np.nan
    return out


@register_kernel("Polygamma")
def _polygamma(ctx: KernelContext, a: Any, x: Any) -> np.ndarray:
    a, x = np.broadcast_arrays(np.asarray(a), np.asarray(x))
    order_ok = (a >= 0) & (a == np.floor(a))
    order = np.where(order_ok, a, 0).astype(np.int64)
    with _quiet():
        out = np.asarray(_special.polygamma(order, x), dtype=x.dtype)
    out[~order_ok] = np.nan
    # Odd orders diverge to +inf at the poles, even ones have no limit there.
    poles = _poles(x) & order_ok
    out[poles] = np.where(order[poles] % 2 == 1, np.inf, np.nan)
    return out


@register_kernel("Atan2")
def _atan2(ctx: KernelContext, y: Any, x: Any) -> np.ndarray:
    return np.arctan2(y, x)


@register_kernel("DivNoNan")
def _div_no_nan(ctx: KernelContext, x: Any, y: Any) -> np.ndarray:
    x, y = np.asarray(x), np.asarray(y)
    out = np.zeros(np.broadcast_shapes(x.shape, y.shape), dtype=x.dtype)
    with _quiet():
        np.divide(x, y, out=out, where=(y != 0))
    return out


def _where_nonzero(mask: np.ndarray, x: np.ndarray, y: np.ndarray, fn: Any) -> np.ndarray:
    """``fn(x, y)`` where ``mask``, 0 elsewhere (never evaluated there: no nan leaks)."""
    x, y, mask = np.broadcast_arrays(x, y, mask)
    out = np.zeros(x.shape, dtype=x.dtype)
    with _quiet():
        out[mask] = fn(x[mask], y[mask])
    return out


@register_kernel("Xlogy")
def _xlogy(ctx: KernelContext, x: Any, y: Any) -> np.ndarray:
    x, y = np.asarray(x), np.asarray(y)
    return _where_nonzero(x != 0, x, y, lambda a, b: a * np.log(b))


@register_kernel("Xdivy")
def _xdivy(ctx: KernelContext, x: Any, y: Any) -> np.ndarray:
    x, y = np.asarray(x), np.asarray(y)
    return _where_nonzero(x != 0, x, y, np.divide)


@register_kernel("MulNoNan")
def _mul_no_nan(ctx: KernelContext, x: Any, y: Any) -> np.ndarray:
    x, y = np.asarray(x), np.asarray(y)
    return _where_nonzero(y != 0, x, y, np.multiply)


def _no_integer_zero(ctx: KernelContext, y: np.ndarray) -> None:
    if y.dtype.kind in "iu" and not np.all(y):
        raise invalid(ctx, "Integer division by zero")


@register_kernel("TruncateDiv")
def _truncate_div(ctx: KernelContext, x: Any, y: Any) -> np.ndarray:
    x, y = np.asarray(x), np.asarray(y)
    _no_integer_zero(ctx, y)
    q = np.floor_divide(x, y)
    # Floor and truncation differ by one where the signs differ and y does not divide x.
    return q + ((np.remainder(x, y) != 0) & ((x < 0) != (y < 0))).astype(q.dtype)


@register_kernel("TruncateMod")
def _truncate_mod(ctx: KernelContext, x: Any, y: Any) -> np.ndarray:
    x, y = np.asarray(x), np.asarray(y)
    _no_integer_zero(ctx, y)
    with _quiet():
        return np.fmod(x, y)


@register_kernel("Zeta")
def _zeta(ctx: KernelContext, x: Any, q: Any) -> np.ndarray:
    x, q = np.broadcast_arrays(np.asarray(x), np.asarray(q))
    with _quiet():
        out = np.asarray(_special.zeta(x, q), dtype=x.dtype)
    out[x < 1] = np.nan  # the series diverges; TensorFlow says nan, not a continuation
    return out


@register_kernel("Betainc")
def _betainc(ctx: KernelContext, a: Any, b: Any, x: Any) -> np.ndarray:
    x = np.asarray(x)
    with _quiet():
        return np.asarray(_special.betainc(a, b, x), dtype=x.dtype)


@register_kernel("NextAfter")
def _nextafter(ctx: KernelContext, x1: Any, x2: Any) -> np.ndarray:
    x1 = np.asarray(x1)
    return np.asarray(np.nextafter(x1, np.asarray(x2, dtype=x1.dtype)), dtype=x1.dtype)
