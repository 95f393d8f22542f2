"""numpy kernels of the bit operations (``ops/bitwise_ops.py``)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from tensorfleet.kernels.registry import KernelContext, register_kernel


def _binary(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[..., np.ndarray]:
    def kernel(ctx: KernelContext, x: Any, y: Any) -> np.ndarray:
        x, y = np.asarray(x), np.asarray(y)
        return np.asarray(fn(x, y), dtype=x.dtype)
    return kernel


def _clamped(shift: Callable[[np.ndarray, np.ndarray], np.ndarray]
             ) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    def fn(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        bits = x.dtype.itemsize * 8
        return shift(x, np.clip(y, 0, bits - 1).astype(x.dtype))
    return fn


register_kernel("BitwiseAnd")(_binary(np.bitwise_and))
register_kernel("BitwiseOr")(_binary(np.bitwise_or))
register_kernel("BitwiseXor")(_binary(np.bitwise_xor))
register_kernel("LeftShift")(_binary(_clamped(np.left_shift)))
register_kernel("RightShift")(_binary(_clamped(np.right_shift)))


@register_kernel("Invert")
def _invert(ctx: KernelContext, x: Any) -> np.ndarray:
    return np.invert(np.asarray(x))
