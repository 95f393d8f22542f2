"""Pieces the mobile architectures share: channel counts rounded to multiples of 8 and
the padding that makes a strided 'valid' convolution match TensorFlow's 'same'."""

from __future__ import annotations

from typing import Any, Optional, Tuple


def make_divisible(v: float, divisor: int = 8, min_value: Optional[int] = None) -> int:
    """``v`` rounded to the nearest multiple of ``divisor`` (at least ``min_value``),
    never more than 10% below ``v``."""
    min_value = min_value or divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def correct_pad(x: Any, kernel_size: Any) -> Tuple[Tuple[int, int], Tuple[int, int]]:
    """The ``ZeroPadding2D`` padding before a stride-2 'valid' convolution of
    ``kernel_size`` over ``x`` (one less on the top/left for even sizes)."""
    if isinstance(kernel_size, int):
        kernel_size = (kernel_size, kernel_size)
    size = x.shape.as_list()[1:3]
    adjust = (1, 1) if size[0] is None else (1 - size[0] % 2, 1 - size[1] % 2)
    correct = (kernel_size[0] // 2, kernel_size[1] // 2)
    return ((correct[0] - adjust[0], correct[0]), (correct[1] - adjust[1], correct[1]))
