"""Short-time Fourier transforms: ``tf.signal.stft``, ``inverse_stft`` and
``inverse_stft_window_fn``, composed of framing, windowing and the real FFT (so their
gradients are those ops')."""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.ops.array_indexing_ops import pad, slice as _slice
from tensorfleet.ops.array_ops_core import constant
from tensorfleet.ops.math_ops_core import multiply
from tensorfleet.ops.op_util import const_value
from tensorfleet.ops.signal_frames import frame, overlap_and_add, static_int
from tensorfleet.ops.signal_windows import hann_window
from tensorfleet.ops.spectral_ops import irfft, rfft


def _next_pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def stft(signals: Any, frame_length: Any, frame_step: Any, fft_length: Any = None,
         window_fn: Optional[Callable] = hann_window, pad_end: bool = False,
         name: Optional[str] = None) -> Tensor:
    """The short-time Fourier transform of real ``signals`` ``[..., samples]``:
    ``[..., frames, fft_length // 2 + 1]`` complex bins; ``fft_length`` defaults to the
    smallest power of 2 holding a frame."""
    with name_scope(name, "stft"):
        x = signals if isinstance(signals, Tensor) else convert_to_tensor(
            signals, dtype=_dtypes.float32)
        if x.dtype.name not in ("float32", "float64"):
            raise TypeError(f"stft takes float32 or float64 signals, got {x.dtype.name}")
        length = static_int(frame_length, "frame_length")
        n_fft = _next_pow2(length) if fft_length is None else static_int(
            fft_length, "fft_length")
        frames = frame(x, length, frame_step, pad_end=pad_end)
        if window_fn is not None:
            frames = multiply(frames, window_fn(length, dtype=x.dtype))
        return rfft(frames, [n_fft])


def inverse_stft(stfts: Any, frame_length: Any, frame_step: Any, fft_length: Any = None,
                 window_fn: Optional[Callable] = hann_window,
                 name: Optional[str] = None) -> Tensor:
    """The signal of a short-time Fourier transform: each frame transformed back,
    cropped to ``frame_length``, windowed by ``window_fn`` (use
    ``inverse_stft_window_fn`` for perfect reconstruction) and overlap-added."""
    with name_scope(name, "inverse_stft"):
        s = stfts if isinstance(stfts, Tensor) else convert_to_tensor(
            stfts, dtype=_dtypes.complex64)
        if not s.dtype.is_complex:
            raise TypeError(f"inverse_stft takes complex stfts, got {s.dtype.name}")
        length = static_int(frame_length, "frame_length")
        n_fft = _next_pow2(length) if fft_length is None else static_int(
            fft_length, "fft_length")
        frames = irfft(s, [n_fft])
        rank = frames.shape.ndims
        if n_fft > length:
            frames = _slice(frames, [0] * rank, [-1] * (rank - 1) + [length])
        elif n_fft < length:
            frames = pad(frames, [[0, 0]] * (rank - 1) + [[0, length - n_fft]])
        if window_fn is not None:
            frames = multiply(frames, window_fn(length, dtype=frames.dtype))
        return overlap_and_add(frames, frame_step)


def inverse_stft_window_fn(frame_step: Any, forward_window_fn: Callable = hann_window,
                           name: Optional[str] = None) -> Callable:
    """A window function for ``inverse_stft`` that undoes ``forward_window_fn``: the
    forward window divided by the sum of its overlapping squares."""
    step = static_int(frame_step, "frame_step")

    def window(frame_length: Any, dtype: Any = _dtypes.float32) -> Tensor:
        length = static_int(frame_length, "frame_length")
        with name_scope(name, "inverse_stft_window_fn"):
            forward = forward_window_fn(length, dtype=dtype)
            w = const_value(convert_to_tensor(forward))
            if w is None:
                raise ValueError("inverse_stft_window_fn needs a forward window known when "
                                 "the graph is built (tf.signal's windows are)")
            w = np.asarray(w, np.float64)
            squares = np.square(w)
            padded = np.concatenate([squares, np.zeros(-length % step)])
            denom = np.tile(padded.reshape(-1, step).sum(axis=0), len(padded) // step)
            dt = _dtypes.as_dtype(dtype)
            return constant((w / denom[:length]).astype(dt.np), dtype=dt)
    return window
