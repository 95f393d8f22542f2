"""The cosine transforms and audio features of ``tf.signal``: ``dct`` / ``idct`` (types
1 to 4), ``mdct`` / ``inverse_mdct``, ``linear_to_mel_weight_matrix`` and
``mfccs_from_log_mel_spectrograms``.

Each cosine transform is a linear map of the innermost axis; it is applied as a product
with its matrix (computed once with ``scipy.fftpack``, whose conventions TensorFlow's
transforms follow), so the gradient is the product with the transposed matrix. The
transform length must be known when the graph is built.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.platform.deferred_scipy import fftpack as _fftpack
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.ops.array_concat_ops import concat
from tensorfleet.ops.array_indexing_ops import pad, slice as _slice
from tensorfleet.ops.array_ops_core import constant, reshape, shape as _shape
from tensorfleet.ops.math_ops_core import matmul, multiply
from tensorfleet.ops.signal_frames import frame, overlap_and_add, static_int
from tensorfleet.ops.signal_windows import vorbis_window


def apply_last(x: Tensor, matrix: np.ndarray) -> Tensor:
    """``x`` times ``matrix`` along its innermost axis (``[..., n] -> [..., m]``)."""
    n, m = matrix.shape
    mat = constant(matrix.astype(x.dtype.np), dtype=x.dtype)
    out = matmul(reshape(x, [-1, n]), mat)
    dims = x.shape.as_list()[:-1]
    if all(d is not None for d in dims):
        return reshape(out, dims + [m])
    return reshape(out, concat([_shape(x)[:-1], [m]], 0))


def _float_input(x: Any, what: str) -> Tensor:
    t = convert_to_tensor(x) if isinstance(x, Tensor) else convert_to_tensor(
        x, dtype=_dtypes.float32)
    if not t.dtype.is_floating:
        raise TypeError(f"{what} takes a float tensor, got {t.dtype.name} ({t.name})")
    if t.shape.ndims is None or t.shape.ndims == 0 or t.shape.as_list()[-1] is None:
        raise ValueError(f"{what} needs an input whose innermost dimension is known, got "
                         f"{t.shape}")
    return t


def _check_dct_args(type: int, axis: int, norm: Optional[str]) -> None:  # noqa: A002
    if type not in (1, 2, 3, 4):
        raise ValueError(f"Only Types I, II, III and IV (I)DCT are supported, got {type}")
    if axis != -1:
        raise ValueError(
            f"the (I)DCT runs over the innermost axis only (axis=-1), got axis={axis}")
    if norm not in (None, "ortho"):
        raise ValueError(f"norm must be None or 'ortho', got {norm!r}")
    if type == 1 and norm == "ortho":
        raise ValueError("Normalization is not supported for the Type-I DCT.")


def _fit_last(x: Tensor, n: Optional[int]) -> Tensor:
    size = x.shape.as_list()[-1]
    if n is None or n == size:
        return x
    if n < 1:
        raise ValueError(f"n must be positive, got {n}")
    rank = x.shape.ndims
    if n < size:
        return _slice(x, [0] * rank, [-1] * (rank - 1) + [n])
    return pad(x, [[0, 0]] * (rank - 1) + [[0, n - size]])


def _cosine(x: Any, type: int, n: Any, axis: int, norm: Optional[str],  # noqa: A002
            name: Optional[str], default: str, fn: Callable) -> Tensor:
    with name_scope(name, default):
        _check_dct_args(type, axis, norm)
        t = _float_input(x, default)
        t = _fit_last(t, None if n is None else static_int(n, "n"))
        size = t.shape.as_list()[-1]
        if type == 1 and size < 2:
            raise ValueError(f"the Type-I DCT needs a length of at least 2, got {size}")
        return apply_last(t, fn(np.eye(size), type=type, norm=norm, axis=-1))


def dct(input: Any, type: int = 2, n: Any = None, axis: int = -1,  # noqa: A002
        norm: Optional[str] = None, name: Optional[str] = None) -> Tensor:
    """The discrete cosine transform of the innermost axis (cropped or zero-padded to
    ``n``), as ``scipy.fftpack.dct``."""
    return _cosine(input, type, n, axis, norm, name, "dct", _fftpack.dct)


def idct(input: Any, type: int = 2, n: Any = None, axis: int = -1,  # noqa: A002
         norm: Optional[str] = None, name: Optional[str] = None) -> Tensor:
    """The inverse discrete cosine transform, as ``scipy.fftpack.idct`` (unnormalized
    unless ``norm='ortho'``)."""
    return _cosine(input, type, n, axis, norm, name, "idct", _fftpack.idct)


def _mdct_basis(frame_length: int) -> np.ndarray:
    half = frame_length // 2
    n = np.arange(frame_length)[:, None]
    k = np.arange(half)[None, :]
    return np.cos(np.pi / half * (n + 0.5 + half / 2) * (k + 0.5))


def mdct(signals: Any, frame_length: Any, window_fn: Optional[Callable] = vorbis_window,
         pad_end: bool = False, norm: Optional[str] = None,
         name: Optional[str] = None) -> Tensor:
    """The modified discrete cosine transform of frames of ``frame_length`` samples (a
    multiple of 4) every ``frame_length // 2``: ``[..., samples]`` becomes
    ``[..., frames, frame_length // 2]``."""
    with name_scope(name, "mdct"):
        x = _float_input(signals, "mdct")
        length = static_int(frame_length, "frame_length")
        if length % 4 or length < 4:
            raise ValueError(f"The frame length must be a multiple of 4, got {length}")
        if norm not in (None, "ortho"):
            raise ValueError(f"norm must be None or 'ortho', got {norm!r}")
        frames = frame(x, length, length // 2, pad_end=pad_end)
        scale = 2.0 if norm is None else np.sqrt(2.0 / (length // 2))
        if window_fn is not None:
            frames = multiply(frames, window_fn(length, dtype=x.dtype))
        else:
            scale /= np.sqrt(2.0)
        return apply_last(frames, _mdct_basis(length) * scale)


def inverse_mdct(mdcts: Any, window_fn: Optional[Callable] = vorbis_window,
                 norm: Optional[str] = None, name: Optional[str] = None) -> Tensor:
    """The signal whose ``mdct`` is ``mdcts``: each frame transformed back, windowed and
    overlap-added (perfect reconstruction for a power-complementary window)."""
    with name_scope(name, "inverse_mdct"):
        x = _float_input(mdcts, "inverse_mdct")
        if norm not in (None, "ortho"):
            raise ValueError(f"norm must be None or 'ortho', got {norm!r}")
        half = x.shape.as_list()[-1]
        scale = 1.0 / half if norm is None else np.sqrt(2.0 / half)
        if window_fn is None:
            scale /= np.sqrt(2.0)
        frames = apply_last(x, _mdct_basis(2 * half).T * scale)
        if window_fn is not None:
            frames = multiply(frames, window_fn(2 * half, dtype=x.dtype))
        return overlap_and_add(frames, half)


def _hz_to_mel(hz: np.ndarray) -> np.ndarray:
    return 1127.0 * np.log1p(hz / 700.0)


def linear_to_mel_weight_matrix(num_mel_bins: int = 20, num_spectrogram_bins: int = 129,
                                sample_rate: float = 8000, lower_edge_hertz: float = 125.0,
                                upper_edge_hertz: float = 3800.0,
                                dtype: Any = _dtypes.float32,
                                name: Optional[str] = None) -> Tensor:
    """The ``[num_spectrogram_bins, num_mel_bins]`` matrix that maps a linear-frequency
    magnitude spectrogram to triangular mel bands (HTK's mel scale); the DC bin gets no
    weight."""
    bins = static_int(num_mel_bins, "num_mel_bins")
    spec = static_int(num_spectrogram_bins, "num_spectrogram_bins")
    rate, lo, hi = float(sample_rate), float(lower_edge_hertz), float(upper_edge_hertz)
    if bins <= 0 or spec <= 0 or rate <= 0:
        raise ValueError("num_mel_bins, num_spectrogram_bins and sample_rate must be "
                         f"positive, got {bins}, {spec}, {rate}")
    if lo < 0 or lo >= hi or hi > rate / 2:
        raise ValueError(f"need 0 <= lower_edge_hertz < upper_edge_hertz <= sample_rate / 2, "
                         f"got {lo}, {hi}, {rate}")
    dt = _dtypes.as_dtype(dtype)
    if not dt.is_floating:
        raise ValueError(f"dtype must be a floating type, got {dt.name}")
    mel = _hz_to_mel(np.linspace(0.0, rate / 2, spec)[1:])[:, None]
    edges = np.linspace(_hz_to_mel(np.float64(lo)), _hz_to_mel(np.float64(hi)), bins + 2)
    lower, center, upper = edges[:-2], edges[1:-1], edges[2:]
    weights = np.maximum(0.0, np.minimum((mel - lower) / (center - lower),
                                         (upper - mel) / (upper - center)))
    weights = np.concatenate([np.zeros((1, bins)), weights])
    return constant(weights.astype(dt.np), dtype=dt, name=name or "linear_to_mel_weight_matrix")


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms: Any,
                                    name: Optional[str] = None) -> Tensor:
    """Mel-frequency cepstral coefficients: the orthonormal-scaled DCT-II of log-mel
    spectrograms ``[..., num_mel_bins]``."""
    with name_scope(name, "mfccs_from_log_mel_spectrograms"):
        x = _float_input(log_mel_spectrograms, "mfccs_from_log_mel_spectrograms")
        bins = x.shape.as_list()[-1]
        basis = _fftpack.dct(np.eye(bins), type=2, axis=-1) / np.sqrt(2.0 * bins)
        return apply_last(x, basis)
