"""Fast Fourier transforms: ``tf.signal.fft`` / ``ifft`` / ``fft2d`` / ``fft3d``, the real
transforms ``rfft`` / ``irfft`` (1-D to 3-D) and the N-d ones with explicit axes
(``fftnd`` ...), also under ``tf.spectral`` and at the top level.

The op types are TensorFlow's (``FFT``, ``RFFT`` with its ``fft_length`` input,
``FFTND`` with ``fft_length`` and ``axes`` inputs ...). The wrappers crop or zero-pad the
input to ``fft_length`` with ``slice``/``pad`` before the transform, as TensorFlow's do, so
each transform op sees inputs of the transformed size and its gradient is the adjoint
transform. ``fft_length`` and ``axes`` must be known when the graph is built.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, unknown_shape
from tensorfleet.ops.array_indexing_ops import pad, slice as _slice
from tensorfleet.ops.array_transform_ops import roll
from tensorfleet.ops.op_util import const_value, make_tensor

# op type -> (kind, number of innermost axes transformed; 0: the axes input says)
TRANSFORMS = {"FFT": ("c2c", 1), "IFFT": ("ic2c", 1), "FFT2D": ("c2c", 2),
              "IFFT2D": ("ic2c", 2), "FFT3D": ("c2c", 3), "IFFT3D": ("ic2c", 3),
              "RFFT": ("r2c", 1), "IRFFT": ("c2r", 1), "RFFT2D": ("r2c", 2),
              "IRFFT2D": ("c2r", 2), "RFFT3D": ("r2c", 3), "IRFFT3D": ("c2r", 3),
              "FFTND": ("c2c", 0), "IFFTND": ("ic2c", 0), "RFFTND": ("r2c", 0),
              "IRFFTND": ("c2r", 0)}
_COMPLEX_OF = {"float32": _dtypes.complex64, "float64": _dtypes.complex128}


def op_axes(op: Any) -> List[int]:
    """The (non-negative) axes an FFT op transforms."""
    rank = op.inputs[0].shape.ndims
    k = TRANSFORMS[op.type][1]
    if k:
        return list(range(rank - k, rank))
    return [a % rank for a in np.asarray(const_value(op.inputs[2])).reshape(-1).tolist()]


def _shape(op: Any) -> List[TensorShape]:
    x = op.inputs[0].shape
    if x.ndims is None:
        return [unknown_shape()]
    kind = TRANSFORMS[op.type][0]
    dims = x.as_list()
    if kind in ("r2c", "c2r"):
        axes = op_axes(op)
        last = axes[-1]
        if kind == "r2c":
            dims[last] = None if dims[last] is None else dims[last] // 2 + 1
        else:
            lengths = const_value(op.inputs[1])
            dims[last] = None if lengths is None else int(np.asarray(lengths)[-1])
    return [TensorShape(dims)]


for _t in TRANSFORMS:
    register_op(_t, _shape)


def _static_ints(value: Any, what: str) -> List[int]:
    if isinstance(value, Tensor):
        v = const_value(value)
        if v is None:
            raise ValueError(f"{what} must be known when the graph is built (a Python list "
                             f"or a constant), got the computed tensor {value.name}")
        value = v
    return [int(v) for v in np.asarray(value).reshape(-1).tolist()]


def _fit(x: Tensor, axes: Sequence[int], sizes: Sequence[int]) -> Tensor:
    """``x`` cropped or zero-padded at the end of each axis to ``sizes``."""
    dims = x.shape.as_list()
    if any(dims[a] is None for a in axes):
        raise ValueError(f"the transformed dimensions of the input must be known when the "
                         f"graph is built, got shape {x.shape}")
    if all(dims[a] == s for a, s in zip(axes, sizes)):
        return x
    size = [-1] * len(dims)
    for a, s in zip(axes, sizes):
        size[a] = min(dims[a], s)
    if any(dims[a] > s for a, s in zip(axes, sizes)):
        x = _slice(x, [0] * len(dims), size)
    if any(dims[a] < s for a, s in zip(axes, sizes)):
        paddings = [[0, 0] for _ in dims]
        for a, s in zip(axes, sizes):
            paddings[a][1] = max(s - dims[a], 0)
        x = pad(x, paddings)
    return x


def _norm_axes(x: Tensor, axes: Any, k: int) -> List[int]:
    rank = x.shape.ndims
    if rank is None:
        raise ValueError("the rank of an FFT's input must be known when the graph is built")
    if axes is None:
        out = list(range(rank - k, rank)) if k else list(range(rank))
    else:
        out = _static_ints(axes, "axes")
    if not out or rank < len(out):
        raise ValueError(f"an FFT over {len(out)} axes needs an input of at least that rank, "
                         f"got shape {x.shape}")
    for a in out:
        if not -rank <= a < rank:
            raise ValueError(f"axis {a} is out of range for an input of rank {rank}")
    norm = [a % rank for a in out]
    if len(set(norm)) != len(norm):
        raise ValueError(f"axes {out} name an axis twice")
    return norm


def _complex_input(x: Any) -> Tensor:
    if isinstance(x, Tensor):
        t = x
    else:
        arr = np.asarray(x)
        t = convert_to_tensor(arr, dtype=_dtypes.complex128 if arr.dtype in (
            np.complex128, np.float64) and isinstance(x, np.ndarray) else _dtypes.complex64)
    if not t.dtype.is_complex:
        raise TypeError(f"the FFT takes a complex64 or complex128 tensor, got {t.dtype.name} "
                        f"({t.name}); cast it with tf.cast or use tf.signal.rfft")
    return t


def _real_input(x: Any) -> Tensor:
    t = x if isinstance(x, Tensor) else convert_to_tensor(x, dtype=_dtypes.float32)
    if t.dtype.name not in _COMPLEX_OF:
        raise TypeError(f"the real FFT takes a float32 or float64 tensor, got {t.dtype.name} "
                        f"({t.name})")
    return t


def transform(op_type: str, x: Tensor, axes: Sequence[int], lengths: Sequence[int],
              name: Optional[str] = None) -> Tensor:
    """The ``op_type`` transform of ``x`` (already fitted to ``lengths``) over ``axes``."""
    kind, k = TRANSFORMS[op_type]
    inputs: List[Any] = [x]
    if kind in ("r2c", "c2r") or not k:
        inputs.append(convert_to_tensor(np.asarray(lengths, np.int32)))
    if not k:
        inputs.append(convert_to_tensor(np.asarray(axes, np.int32)))
    if kind == "r2c":
        out = _COMPLEX_OF[x.dtype.name]
        attrs = {"Treal": x.dtype, "Tcomplex": out}
    elif kind == "c2r":
        out = x.dtype.real_dtype
        attrs = {"Treal": out, "Tcomplex": x.dtype}
    else:
        out = x.dtype
        attrs = {"Tcomplex": out}
    return make_tensor(op_type, inputs, out, attrs, name=name or op_type)


def _c2c(op_type: str, x: Any, name: Optional[str]) -> Tensor:
    t = _complex_input(x)
    k = TRANSFORMS[op_type][1]
    axes = _norm_axes(t, None, k)
    dims = t.shape.as_list()
    return transform(op_type, t, axes, [dims[a] for a in axes], name)


def _r2c(op_type: str, x: Any, fft_length: Any, axes: Any, name: Optional[str],
         k: int) -> Tensor:
    t = _real_input(x)
    ax = _norm_axes(t, axes, k)
    if fft_length is None:
        dims = t.shape.as_list()
        if any(dims[a] is None for a in ax):
            raise ValueError(f"fft_length is needed: the input's shape {t.shape} is not known "
                             f"along the transformed axes")
        lengths = [dims[a] for a in ax]
    else:
        lengths = _lengths(fft_length, ax)
    return transform(op_type, _fit(t, ax, lengths), ax, lengths, name)


def _c2r(op_type: str, x: Any, fft_length: Any, axes: Any, name: Optional[str],
         k: int) -> Tensor:
    t = _complex_input(x)
    ax = _norm_axes(t, axes, k)
    if fft_length is None:
        dims = t.shape.as_list()
        if any(dims[a] is None for a in ax):
            raise ValueError(f"fft_length is needed: the input's shape {t.shape} is not known "
                             f"along the transformed axes")
        lengths = [dims[a] for a in ax]
        lengths[-1] = 2 * (lengths[-1] - 1)
    else:
        lengths = _lengths(fft_length, ax)
    sizes = list(lengths)
    sizes[-1] = lengths[-1] // 2 + 1
    return transform(op_type, _fit(t, ax, sizes), ax, lengths, name)


def _lengths(fft_length: Any, axes: Sequence[int]) -> List[int]:
    lengths = _static_ints(fft_length, "fft_length")
    if len(lengths) != len(axes):
        raise ValueError(f"fft_length has {len(lengths)} entries for a transform over "
                         f"{len(axes)} axes")
    if any(n < 1 for n in lengths):
        raise ValueError(f"fft_length must be positive, got {lengths}")
    return lengths


def _scaled(x: Tensor, norm: Optional[str], lengths: Sequence[int], inverse: bool) -> Tensor:
    """The input scaled for ``norm`` ('backward': none; 'ortho'; 'forward')."""
    if norm in (None, "backward"):
        return x
    n = float(np.prod(lengths))
    if norm == "ortho":
        factor = np.sqrt(n) if inverse else 1.0 / np.sqrt(n)
    elif norm == "forward":
        factor = n if inverse else 1.0 / n
    else:
        raise ValueError(f"norm must be None, 'backward', 'ortho' or 'forward', got {norm!r}")
    return x * convert_to_tensor(factor, dtype=x.dtype)


def fft(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The discrete Fourier transform over the innermost axis of a complex tensor."""
    return _c2c("FFT", input, name)


def ifft(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The inverse discrete Fourier transform over the innermost axis."""
    return _c2c("IFFT", input, name)


def fft2d(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The 2-D discrete Fourier transform over the two innermost axes."""
    return _c2c("FFT2D", input, name)


def ifft2d(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The inverse 2-D discrete Fourier transform over the two innermost axes."""
    return _c2c("IFFT2D", input, name)


def fft3d(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The 3-D discrete Fourier transform over the three innermost axes."""
    return _c2c("FFT3D", input, name)


def ifft3d(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The inverse 3-D discrete Fourier transform over the three innermost axes."""
    return _c2c("IFFT3D", input, name)


def rfft(input_tensor: Any, fft_length: Any = None, name: Optional[str] = None) -> Tensor:
    """The Fourier transform of a real signal over its innermost axis: the
    ``fft_length // 2 + 1`` non-negative frequencies."""
    return _r2c("RFFT", input_tensor, fft_length, None, name, 1)


def irfft(input_tensor: Any, fft_length: Any = None, name: Optional[str] = None) -> Tensor:
    """The real signal of length ``fft_length`` (default ``2 * (inner - 1)``) whose
    ``rfft`` is ``input_tensor``."""
    return _c2r("IRFFT", input_tensor, fft_length, None, name, 1)


def rfft2d(input_tensor: Any, fft_length: Any = None, name: Optional[str] = None) -> Tensor:
    """``rfft`` over the two innermost axes."""
    return _r2c("RFFT2D", input_tensor, fft_length, None, name, 2)


def irfft2d(input_tensor: Any, fft_length: Any = None, name: Optional[str] = None) -> Tensor:
    """``irfft`` over the two innermost axes."""
    return _c2r("IRFFT2D", input_tensor, fft_length, None, name, 2)


def rfft3d(input_tensor: Any, fft_length: Any = None, name: Optional[str] = None) -> Tensor:
    """``rfft`` over the three innermost axes."""
    return _r2c("RFFT3D", input_tensor, fft_length, None, name, 3)


def irfft3d(input_tensor: Any, fft_length: Any = None, name: Optional[str] = None) -> Tensor:
    """``irfft`` over the three innermost axes."""
    return _c2r("IRFFT3D", input_tensor, fft_length, None, name, 3)


def fftnd(input_tensor: Any, fft_length: Any = None, axes: Any = None,
          norm: Optional[str] = None, name: Optional[str] = None) -> Tensor:
    """The N-d discrete Fourier transform over ``axes`` (default: all), the input cropped
    or zero-padded to ``fft_length``; ``norm`` is numpy's ('backward', 'ortho',
    'forward')."""
    with name_scope(name, "fftnd"):
        t = _complex_input(input_tensor)
        ax = _norm_axes(t, axes, 0)
        lengths = ([t.shape.as_list()[a] for a in ax] if fft_length is None
                   else _lengths(fft_length, ax))
        t = _scaled(_fit(t, ax, lengths), norm, lengths, inverse=False)
        return transform("FFTND", t, ax, lengths)


def ifftnd(input_tensor: Any, fft_length: Any = None, axes: Any = None,
           norm: Optional[str] = None, name: Optional[str] = None) -> Tensor:
    """The inverse of ``fftnd``."""
    with name_scope(name, "ifftnd"):
        t = _complex_input(input_tensor)
        ax = _norm_axes(t, axes, 0)
        lengths = ([t.shape.as_list()[a] for a in ax] if fft_length is None
                   else _lengths(fft_length, ax))
        t = _scaled(_fit(t, ax, lengths), norm, lengths, inverse=True)
        return transform("IFFTND", t, ax, lengths)


def rfftnd(input_tensor: Any, fft_length: Any = None, axes: Any = None,
           norm: Optional[str] = None, name: Optional[str] = None) -> Tensor:
    """The N-d Fourier transform of a real signal; the last of ``axes`` keeps its
    ``n // 2 + 1`` non-negative frequencies."""
    with name_scope(name, "rfftnd"):
        out = _r2c("RFFTND", input_tensor, fft_length, axes, None, 0)
        lengths = _static_ints(out.op.inputs[1], "fft_length")
        return _scaled(out, norm, lengths, inverse=False)


def irfftnd(input_tensor: Any, fft_length: Any = None, axes: Any = None,
            norm: Optional[str] = None, name: Optional[str] = None) -> Tensor:
    """The inverse of ``rfftnd``: a real signal of shape ``fft_length`` along ``axes``."""
    with name_scope(name, "irfftnd"):
        out = _c2r("IRFFTND", input_tensor, fft_length, axes, None, 0)
        lengths = _static_ints(out.op.inputs[1], "fft_length")
        return _scaled(out, norm, lengths, inverse=True)


def _shift(x: Any, axes: Any, name: Optional[str], default: str, sign: int) -> Tensor:
    with name_scope(name, default):
        t = convert_to_tensor(x)
        rank = t.shape.ndims
        if rank is None:
            raise ValueError(f"{default} needs an input of known rank")
        ax = list(range(rank)) if axes is None else [
            a % rank for a in np.asarray(axes).reshape(-1).tolist()]
        dims = t.shape.as_list()
        if any(dims[a] is None for a in ax):
            raise ValueError(f"{default} needs the shifted dimensions known, got {t.shape}")
        shifts = [(dims[a] // 2) if sign > 0 else -(dims[a] // 2) for a in ax]
        return roll(t, shifts, ax)


def fftshift(x: Any, axes: Any = None, name: Optional[str] = None) -> Tensor:
    """The zero-frequency term moved to the centre of ``axes`` (default: all), as
    ``numpy.fft.fftshift``."""
    return _shift(x, axes, name, "fftshift", 1)


def ifftshift(x: Any, axes: Any = None, name: Optional[str] = None) -> Tensor:
    """The inverse of ``fftshift``."""
    return _shift(x, axes, name, "ifftshift", -1)
