"""Keras padding, cropping and upsampling layers for 1-D, 2-D and 3-D inputs (channels
last), beyond ``ZeroPadding2D``/``UpSampling2D`` of ``conv.py``.

Padding and cropping amounts are an int (both sides of every spatial axis), one int per
axis (both sides), or a (before, after) pair per axis.
"""

from __future__ import annotations

import numbers
from typing import Any, List, Optional, Tuple

from tensorfleet.framework.graph import Tensor
from tensorfleet.keras.layers.base import Layer
from tensorfleet.keras.layers.conv import _data_format
from tensorfleet.nn_layers import objects as _tfl
from tensorfleet.ops import array_ops as A
from tensorfleet.ops.array_repeat_ops import repeat as _repeat

Pairs = Tuple[Tuple[int, int], ...]


def _axis_pairs(value: Any, rank: int, layer: str) -> Pairs:
    """``value`` as one (before, after) pair of non-negative ints per spatial axis."""
    def bad() -> ValueError:
        return ValueError(f"{layer}: expected an int, {rank} ints or {rank} pairs of ints, "
                          f"got {value!r}")
    if isinstance(value, numbers.Integral):
        out: Pairs = ((int(value), int(value)),) * rank
    else:
        try:
            v = tuple(value)
        except TypeError:
            raise bad() from None
        if rank == 1 and len(v) == 2 and all(isinstance(p, numbers.Integral) for p in v):
            out = ((int(v[0]), int(v[1])),)
        elif len(v) != rank:
            raise bad()
        elif all(isinstance(p, numbers.Integral) for p in v):
            out = tuple((int(p), int(p)) for p in v)
        else:
            try:
                out = tuple((int(a), int(b)) for a, b in v)
            except (TypeError, ValueError):
                raise bad() from None
    if any(n < 0 for pair in out for n in pair):
        raise ValueError(f"{layer}: amounts must be non-negative, got {value!r}")
    return out


class _Spatial(Layer):
    _rank = 1

    def _check_rank(self, inputs: Tensor) -> List[Optional[int]]:
        want = self._rank + 2
        if inputs.shape.ndims is not None and inputs.shape.ndims != want:
            raise ValueError(f"{type(self).__name__}: inputs must be rank {want}, got shape "
                             f"{inputs.shape}")
        return inputs.shape.as_list() if inputs.shape.ndims else [None] * want


class _ZeroPadding(_Spatial):
    def __init__(self, padding: Any = 1, data_format: Optional[str] = None, **kwargs: Any):
        super().__init__(**kwargs)
        if self._rank > 1:
            _data_format(data_format, type(self).__name__)
        elif data_format is not None:
            raise ValueError(f"{type(self).__name__} takes no data_format")
        self.padding = _axis_pairs(padding, self._rank, type(self).__name__)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """``inputs`` with zeros added before and after each spatial axis."""
        self._check_rank(inputs)
        return A.pad(inputs, [[0, 0], *[list(p) for p in self.padding], [0, 0]])


class ZeroPadding1D(_ZeroPadding):
    """Pads the steps of [batch, steps, channels] with zeros."""


class ZeroPadding3D(_ZeroPadding):
    """Pads depth, height and width of [batch, d, h, w, channels] with zeros."""

    _rank = 3


class _Cropping(_Spatial):
    def __init__(self, cropping: Any = 1, data_format: Optional[str] = None, **kwargs: Any):
        super().__init__(**kwargs)
        if self._rank > 1:
            _data_format(data_format, type(self).__name__)
        elif data_format is not None:
            raise ValueError(f"{type(self).__name__} takes no data_format")
        self.cropping = _axis_pairs(cropping, self._rank, type(self).__name__)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """``inputs`` with ``cropping`` entries removed before and after each spatial axis."""
        static = self._check_rank(inputs)
        dyn = A.shape(inputs)
        begin = [0] + [a for a, _ in self.cropping] + [0]
        size: List[Any] = [-1]
        for i, (a, b) in enumerate(self.cropping):
            n = static[i + 1]
            if n is not None and a + b >= n:
                raise ValueError(f"{type(self).__name__}: cropping {self.cropping} removes all "
                                 f"of axis {i + 1} (length {n})")
            size.append(n - a - b if n is not None else dyn[i + 1] - a - b)
        size.append(-1)
        out = A.slice(inputs, begin, A.stack(size))
        out.set_shape([static[0]] + [None if n is None else n - a - b
                                     for n, (a, b) in zip(static[1:-1], self.cropping)]
                      + [static[-1]])
        return out


class Cropping1D(_Cropping):
    """Crops the steps of [batch, steps, channels]."""

    def __init__(self, cropping: Any = (1, 1), **kwargs: Any):
        super().__init__(cropping, **kwargs)


class Cropping2D(_Cropping):
    """Crops height and width of [batch, h, w, channels]."""

    _rank = 2

    def __init__(self, cropping: Any = ((0, 0), (0, 0)), data_format: Optional[str] = None,
                 **kwargs: Any):
        super().__init__(cropping, data_format, **kwargs)


class Cropping3D(_Cropping):
    """Crops depth, height and width of [batch, d, h, w, channels]."""

    _rank = 3

    def __init__(self, cropping: Any = ((1, 1), (1, 1), (1, 1)),
                 data_format: Optional[str] = None, **kwargs: Any):
        super().__init__(cropping, data_format, **kwargs)


class _UpSampling(_Spatial):
    def __init__(self, size: Any, data_format: Optional[str] = None, **kwargs: Any):
        super().__init__(**kwargs)
        if self._rank > 1:
            _data_format(data_format, type(self).__name__)
        elif data_format is not None:
            raise ValueError(f"{type(self).__name__} takes no data_format")
        self.size = _tfl._tuple(size, self._rank, "size", type(self).__name__)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """Each entry repeated ``size[i]`` times along spatial axis ``i``."""
        static = self._check_rank(inputs)
        y = inputs
        for i, s in enumerate(self.size):
            if s != 1:
                y = _repeat(y, s, axis=i + 1)
        y.set_shape([static[0]] + [None if n is None else n * s
                                   for n, s in zip(static[1:-1], self.size)] + [static[-1]])
        return y


class UpSampling1D(_UpSampling):
    """Repeats each step ``size`` times: [b, steps, c] -> [b, steps*size, c]."""

    def __init__(self, size: int = 2, **kwargs: Any):
        super().__init__(size, **kwargs)


class UpSampling3D(_UpSampling):
    """Repeats entries along depth, height and width (nearest neighbour)."""

    _rank = 3

    def __init__(self, size: Any = (2, 2, 2), data_format: Optional[str] = None,
                 **kwargs: Any):
        super().__init__(size, data_format, **kwargs)


__all__ = ["ZeroPadding1D", "ZeroPadding3D", "Cropping1D", "Cropping2D", "Cropping3D",
           "UpSampling1D", "UpSampling3D"]
