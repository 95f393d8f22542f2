"""Window functions of ``tf.signal``: Hann, Hamming, Kaiser, Kaiser-Bessel-derived and
Vorbis windows. The length must be known when the graph is built; the window is computed
once in numpy and enters the graph as a constant of the requested float dtype."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor
from tensorfleet.ops.array_ops_core import constant
from tensorfleet.ops.signal_frames import static_int


def _emit(values: np.ndarray, dtype: Any, name: Optional[str], default: str) -> Tensor:
    dt = _dtypes.as_dtype(dtype)
    if not dt.is_floating:
        raise ValueError(f"a window's dtype must be a floating type, got {dt.name}")
    return constant(values.astype(dt.np), dtype=dt, name=name or default)


def _length(window_length: Any) -> int:
    n = static_int(window_length, "window_length")
    if n < 0:
        raise ValueError(f"window_length must be non-negative, got {n}")
    return n


def _raised_cosine(n: int, periodic: bool, a: float, b: float) -> np.ndarray:
    if n == 1:
        return np.ones(1)
    # As TensorFlow does, ``periodic`` only changes windows of even length.
    denom = n if periodic and n % 2 == 0 else n - 1
    return a - b * np.cos(2.0 * np.pi * np.arange(n) / max(denom, 1))


def hann_window(window_length: Any, periodic: bool = True, dtype: Any = _dtypes.float32,
                name: Optional[str] = None) -> Tensor:
    """The Hann window ``0.5 - 0.5 cos(2 pi n / N)`` (``N`` the length when ``periodic``
    and the length is even, the length minus one otherwise)."""
    return _emit(_raised_cosine(_length(window_length), bool(periodic), 0.5, 0.5), dtype,
                 name, "hann_window")


def hamming_window(window_length: Any, periodic: bool = True, dtype: Any = _dtypes.float32,
                   name: Optional[str] = None) -> Tensor:
    """The Hamming window ``0.54 - 0.46 cos(2 pi n / N)``."""
    return _emit(_raised_cosine(_length(window_length), bool(periodic), 0.54, 0.46), dtype,
                 name, "hamming_window")


def kaiser_window(window_length: Any, beta: float = 12.0, dtype: Any = _dtypes.float32,
                  name: Optional[str] = None) -> Tensor:
    """The (symmetric) Kaiser window of shape parameter ``beta``."""
    return _emit(np.kaiser(_length(window_length), float(beta)), dtype, name,
                 "kaiser_window")


def kaiser_bessel_derived_window(window_length: Any, beta: float = 12.0,
                                 dtype: Any = _dtypes.float32,
                                 name: Optional[str] = None) -> Tensor:
    """The Kaiser-Bessel-derived window (for MDCTs: ``w[n]^2 + w[n + N/2]^2 = 1``); the
    length must be even."""
    n = _length(window_length)
    if n % 2:
        raise ValueError(f"the Kaiser-Bessel-derived window needs an even length, got {n}")
    half = n // 2
    kaiser = np.kaiser(half + 1, float(beta))
    acc = np.cumsum(kaiser)
    first = np.sqrt(acc[:half] / acc[-1])
    return _emit(np.concatenate([first, first[::-1]]), dtype, name,
                 "kaiser_bessel_derived_window")


def vorbis_window(window_length: Any, dtype: Any = _dtypes.float32,
                  name: Optional[str] = None) -> Tensor:
    """The Vorbis power-complementary window
    ``sin(pi / 2 * sin(pi * (n + 0.5) / N) ** 2)``."""
    n = _length(window_length)
    return _emit(np.sin(np.pi / 2 * np.sin(np.pi * (np.arange(n) + 0.5) / n) ** 2), dtype,
                 name, "vorbis_window")
