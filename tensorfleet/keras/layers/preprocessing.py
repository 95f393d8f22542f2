"""Keras preprocessing layers, in the graph: ``Rescaling``, ``Resizing``, ``CenterCrop``,
``Normalization`` (statistics given or learned by ``adapt``), ``Discretization`` (bin
boundaries given or learned by ``adapt`` as exact quantiles), ``Hashing`` (FarmHash of
the value's string form, as Keras) and ``CategoryEncoding``."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor
from tensorfleet.keras import backend as K
from tensorfleet.keras.layers.base import Layer
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import categorical_ops as C
from tensorfleet.ops import hash_ops as H
from tensorfleet.ops import math_ops as M


class PreprocessingLayer(Layer):
    """Base of the preprocessing layers; those with state learn it with ``adapt``."""

    def adapt(self, data: Any, batch_size: Optional[int] = None, steps: Optional[int] = None) -> None:
        """Learns the layer's state from ``data`` (a numpy array or nested lists).

        Raises:
          ValueError: the layer has no state to learn.
        """
        raise ValueError(f"{type(self).__name__} has no state to adapt")

    @property
    def is_adapted(self) -> bool:
        """Whether ``adapt`` ran (or the state was given)."""
        return bool(getattr(self, "_adapted", False))


def _array(data: Any, batch_size: Optional[int], steps: Optional[int], layer: str) -> np.ndarray:
    if steps is not None:
        raise ValueError(f"{layer}.adapt: steps is not supported (give the data as an array)")
    arr = np.asarray(data)
    if arr.dtype == object:
        raise ValueError(f"{layer}.adapt: data must be a numeric array")
    return arr


class Rescaling(PreprocessingLayer):
    """``inputs * scale + offset`` (as floats)."""

    def __init__(self, scale: float, offset: float = 0.0, **kwargs: Any):
        super().__init__(**kwargs)
        self.scale, self.offset = float(scale), float(offset)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """The rescaled ``inputs``."""
        x = A.cast(inputs, self.dtype)
        return M.add(M.multiply(x, self.scale), self.offset)


def _half_pixel_axis(x: Tensor, axis: int, n_in: int, n_out: int, method: str) -> Tensor:
    """``x`` resized along ``axis`` with half-pixel centres (TF 2's ``tf.image.resize``):
    output ``i`` samples the input at ``(i + 0.5) * n_in / n_out - 0.5``."""
    scale = n_in / n_out
    centre = (np.arange(n_out) + 0.5) * scale
    if method == "nearest":
        idx = np.minimum(np.floor(centre), n_in - 1).astype(np.int32)
        return A.gather(x, idx, axis=axis)
    src = np.maximum(centre - 0.5, 0.0)
    lo = np.minimum(np.floor(src), n_in - 1).astype(np.int32)
    hi = np.minimum(lo + 1, n_in - 1).astype(np.int32)
    frac = (src - lo).astype(np.float32)
    shape = [1] * x.shape.ndims
    shape[axis] = n_out
    w = A.constant(frac.reshape(shape))
    a, b = A.gather(x, lo, axis=axis), A.gather(x, hi, axis=axis)
    return M.add(a, M.multiply(M.subtract(b, a), w))


class Resizing(PreprocessingLayer):
    """Resizes [batch, h, w, c] images (h and w known) to ``(height, width)`` with
    half-pixel centres, as TF 2's ``tf.image.resize``; interpolation ``bilinear`` or
    ``nearest``."""

    def __init__(self, height: int, width: int, interpolation: str = "bilinear",
                 crop_to_aspect_ratio: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        if interpolation not in ("bilinear", "nearest"):
            raise ValueError(f"Resizing: interpolation must be 'bilinear' or 'nearest', got "
                             f"{interpolation!r}")
        if crop_to_aspect_ratio:
            raise ValueError("Resizing: crop_to_aspect_ratio=True is not supported")
        self.height, self.width, self.interpolation = int(height), int(width), interpolation

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """The resized images."""
        x = inputs
        single = x.shape.ndims == 3
        if single:
            x = A.expand_dims(x, 0)
        h, w = x.shape.as_list()[1:3] if x.shape.ndims == 4 else (None, None)
        if h is None or w is None:
            raise ValueError(f"Resizing: inputs must be [batch,] h, w, c with h and w known, "
                             f"got {inputs.shape}")
        y = A.cast(x, self.dtype)
        y = _half_pixel_axis(y, 1, h, self.height, self.interpolation)
        y = _half_pixel_axis(y, 2, w, self.width, self.interpolation)
        return A.squeeze(y, [0]) if single else y


class CenterCrop(PreprocessingLayer):
    """The central ``height`` x ``width`` window of [batch, h, w, c] images."""

    def __init__(self, height: int, width: int, **kwargs: Any):
        super().__init__(**kwargs)
        self.height, self.width = int(height), int(width)

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """The centred crop."""
        shape = inputs.shape.as_list()
        if len(shape) not in (3, 4) or shape[-3] is None or shape[-2] is None:
            raise ValueError(f"CenterCrop: inputs must be [batch,] h, w, c with h and w known, "
                             f"got {inputs.shape}")
        h, w = shape[-3], shape[-2]
        if h < self.height or w < self.width:
            raise ValueError(f"CenterCrop: images of {h}x{w} are smaller than the crop "
                             f"{self.height}x{self.width}")
        top, left = (h - self.height) // 2, (w - self.width) // 2
        crop = inputs[..., top:top + self.height, left:left + self.width, :]
        return A.cast(crop, self.dtype)


class Normalization(PreprocessingLayer):
    """``(x - mean) / sqrt(variance)`` per feature along ``axis`` (``invert`` undoes it);
    ``mean``/``variance`` given, or learned from data by ``adapt``."""

    def __init__(self, axis: Any = -1, mean: Any = None, variance: Any = None,
                 invert: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        if (mean is None) != (variance is None):
            raise ValueError("Normalization: give both mean and variance, or neither")
        self.axis = () if axis is None else ((int(axis),) if np.isscalar(axis)
                                             else tuple(int(a) for a in axis))
        self.invert = bool(invert)
        self._given = None if mean is None else (np.asarray(mean, np.float32),
                                                 np.asarray(variance, np.float32))
        self._adapted = mean is not None
        self._count = 0
        self.mean: Any = None
        self.variance: Any = None

    def _stat_shape(self, rank: int, dims: Sequence[Any]) -> List[int]:
        axes = [a % rank for a in self.axis]
        shape = [1] * rank
        for a in axes:
            if dims[a] is None:
                raise ValueError(f"Normalization: axis {a} must have a known size")
            shape[a] = int(dims[a])
        return shape

    def build(self, input_shape: Any) -> None:
        """Creates the non-trainable ``mean``, ``variance`` and ``count``."""
        dims = list(input_shape)
        shape = self._stat_shape(len(dims), dims)
        self._shape = shape
        self.mean = self.add_weight("mean", shape, initializer="zeros", trainable=False)
        self.variance = self.add_weight("variance", shape, initializer="ones", trainable=False)
        self.count = self.add_weight("count", [], dtype="int64", initializer="zeros",
                                     trainable=False)
        self._pending_assign()

    def _pending_assign(self) -> None:
        if self._given is not None and self.mean is not None:
            m, v = self._given
            K.batch_set_value([(self.mean, np.broadcast_to(m, self._shape)),
                               (self.variance, np.broadcast_to(v, self._shape)),
                               (self.count, self._count)])

    def adapt(self, data: Any, batch_size: Optional[int] = None, steps: Optional[int] = None) -> None:
        """Sets ``mean`` and ``variance`` to those of ``data`` over the other axes."""
        arr = _array(data, batch_size, steps, "Normalization").astype(np.float64)
        if arr.ndim == 1:
            arr = arr[:, None]
        keep = [a % arr.ndim for a in self.axis]
        red = tuple(i for i in range(arr.ndim) if i not in keep)
        shape = self._stat_shape(arr.ndim, arr.shape)
        self._given = (arr.mean(axis=red).reshape(shape).astype(np.float32),
                       arr.var(axis=red).reshape(shape).astype(np.float32))
        self._adapted = True
        self._count = int(np.prod([arr.shape[i] for i in red]))
        if self.mean is not None:
            self._pending_assign()

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """The normalized (or, with ``invert``, denormalized) ``inputs``."""
        if not self._adapted:
            raise ValueError("Normalization: call adapt() or give mean and variance first")
        x = A.cast(inputs, self.dtype)
        std = M.maximum(M.sqrt(self.variance), K.epsilon())
        if self.invert:
            return M.add(M.multiply(x, std), self.mean)
        return M.divide(M.subtract(x, self.mean), std)


class Discretization(PreprocessingLayer):
    """The bin index of each value: the number of ``bin_boundaries`` at or below it
    (int64); ``num_bins`` with ``adapt`` places the boundaries at quantiles."""

    def __init__(self, bin_boundaries: Optional[Sequence[float]] = None,
                 num_bins: Optional[int] = None, epsilon: float = 0.01,
                 output_mode: str = "int", sparse: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        if output_mode != "int":
            raise ValueError(f"Discretization: only output_mode='int' is supported, got "
                             f"{output_mode!r}")
        if sparse:
            raise ValueError("Discretization: sparse=True is not supported")
        if bin_boundaries is not None and num_bins is not None:
            raise ValueError("Discretization: give bin_boundaries or num_bins, not both")
        self.bin_boundaries = None if bin_boundaries is None else [float(b) for b in
                                                                   bin_boundaries]
        self.num_bins, self.epsilon, self.output_mode = num_bins, float(epsilon), output_mode
        self._adapted = bin_boundaries is not None

    def adapt(self, data: Any, batch_size: Optional[int] = None, steps: Optional[int] = None) -> None:
        """Sets the boundaries to the ``num_bins``-quantiles of ``data`` (exact)."""
        if self.num_bins is None:
            raise ValueError("Discretization.adapt needs num_bins")
        arr = _array(data, batch_size, steps, "Discretization").astype(np.float64).ravel()
        qs = np.linspace(0.0, 1.0, int(self.num_bins) + 1)[1:-1]
        self.bin_boundaries = [float(b) for b in np.quantile(arr, qs)]
        self._adapted = True

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """The bin index of every entry of ``inputs``."""
        if self.bin_boundaries is None:
            raise ValueError("Discretization: give bin_boundaries or call adapt() first")
        x = A.cast(inputs, _dtypes.float64)
        if not self.bin_boundaries:
            return A.zeros_like(x, dtype=_dtypes.int64)
        b = A.constant(np.asarray(self.bin_boundaries, np.float64))
        ge = M.greater_equal(A.expand_dims(x, -1), b)
        return M.reduce_sum(A.cast(ge, _dtypes.int64), axis=-1)


class Hashing(PreprocessingLayer):
    """Hashes each value (strings as they are, numbers as their decimal string) into
    ``num_bins`` bins by FarmHash64; ``salt`` switches to the keyed SipHash; with
    ``mask_value``, that value maps to 0 and the rest to bins 1 .. num_bins - 1."""

    def __init__(self, num_bins: int, mask_value: Any = None, salt: Any = None,
                 output_mode: str = "int", sparse: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        if output_mode != "int":
            raise ValueError(f"Hashing: only output_mode='int' is supported, got "
                             f"{output_mode!r}")
        if sparse:
            raise ValueError("Hashing: sparse=True is not supported")
        self.num_bins, self.mask_value, self.output_mode = int(num_bins), mask_value, output_mode
        if salt is not None:
            salt = [int(salt), int(salt)] if np.isscalar(salt) else [int(s) for s in salt]
            if len(salt) != 2:
                raise ValueError(f"Hashing: salt must be an int or 2 ints, got {salt!r}")
        self.salt = salt

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """The bin of every entry of ``inputs`` (int64)."""
        x = inputs if inputs.dtype == _dtypes.string else C.as_string(inputs)
        bins = self.num_bins - (1 if self.mask_value is not None else 0)
        if self.salt is not None:
            h = H.string_to_hash_bucket_strong(x, bins, self.salt)
        else:
            h = H.string_to_hash_bucket_fast(x, bins)
        if self.mask_value is None:
            return h
        is_mask = M.equal(inputs, self.mask_value)
        return A.where(is_mask, A.zeros_like(h), M.add(h, A.ones_like(h)))


class CategoryEncoding(PreprocessingLayer):
    """Integer ids in [0, num_tokens) as vectors: ``one_hot`` (one id per sample),
    ``multi_hot`` (1 for each id present) or ``count`` (occurrences)."""

    def __init__(self, num_tokens: Optional[int] = None, output_mode: str = "multi_hot",
                 sparse: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        if num_tokens is None or int(num_tokens) < 1:
            raise ValueError(f"CategoryEncoding: num_tokens must be a positive int, got "
                             f"{num_tokens!r}")
        if output_mode not in ("one_hot", "multi_hot", "count"):
            raise ValueError(f"CategoryEncoding: output_mode must be 'one_hot', 'multi_hot' "
                             f"or 'count', got {output_mode!r}")
        if sparse:
            raise ValueError("CategoryEncoding: sparse=True is not supported")
        self.num_tokens, self.output_mode = int(num_tokens), output_mode

    def call(self, inputs: Tensor, count_weights: Any = None) -> Tensor:  # type: ignore[override]
        """The encoded ``inputs``: [batch, num_tokens] (or [num_tokens] for a scalar)."""
        if count_weights is not None:
            raise ValueError("CategoryEncoding: count_weights is not supported")
        ids = A.cast(inputs, _dtypes.int32)
        rank = ids.shape.ndims
        if self.output_mode == "one_hot":
            if rank is not None and rank >= 2 and ids.shape.as_list()[-1] != 1:
                raise ValueError(f"CategoryEncoding: one_hot takes one id per sample, got "
                                 f"shape {inputs.shape}")
            if rank is not None and rank >= 2:
                ids = A.squeeze(ids, [-1])
            return A.one_hot(ids, self.num_tokens, dtype=self.dtype)
        if rank == 1:
            ids = A.expand_dims(ids, -1)
        hot = A.one_hot(ids, self.num_tokens, dtype=self.dtype)
        if self.output_mode == "count":
            return M.reduce_sum(hot, axis=-2)
        return M.reduce_max(hot, axis=-2)


__all__ = ["PreprocessingLayer", "Rescaling", "Resizing", "CenterCrop", "Normalization",
           "Discretization", "Hashing", "CategoryEncoding"]
