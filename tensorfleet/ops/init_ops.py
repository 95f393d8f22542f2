"""Initializers: callables ``(shape, dtype=None, partition_info=None) -> Tensor``.

They build the initial value of a variable (``tf.get_variable(initializer=...)``)
from graph ops, so the value is computed where the variable lives, not shipped
there from the client. The random ones draw from ``random_ops`` and honour the
graph-level seed.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, get_seed
from tensorfleet.framework.tensor_shape import as_shape
from tensorfleet.ops import array_ops, random_ops


def _shape_list(shape: Any, what: str) -> List[int]:
    s = as_shape(shape)
    if not s.is_fully_defined():
        raise ValueError(f"{what} needs a fully defined shape, got {s}")
    return [int(d) for d in s.as_list()]


def _float_dtype(dtype: Any, what: str) -> _dtypes.DType:
    dt = _dtypes.as_dtype(dtype)
    if not dt.is_floating:
        raise ValueError(f"{what} expects a floating point dtype, got {dt.name}")
    return dt


class Initializer:
    """Base class of the initializers."""

    dtype: Any = None

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        # The base class has no values of its own: every initializer overrides this.
        raise NotImplementedError(f"{type(self).__name__} does not define __call__")

    def _dtype(self, dtype: Any) -> _dtypes.DType:
        return _dtypes.as_dtype(dtype if dtype is not None else (self.dtype or _dtypes.float32))

    def get_config(self) -> Dict[str, Any]:
        """The constructor arguments, as plain data."""
        return {}

    @classmethod
    def from_config(cls, config: Dict[str, Any]) -> "Initializer":
        """Rebuilds an initializer from ``get_config()``."""
        return cls(**config)


class Zeros(Initializer):
    """Fills the variable with 0."""

    def __init__(self, dtype: Any = _dtypes.float32):
        self.dtype = _dtypes.as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        return array_ops.zeros(_shape_list(shape, "zeros_initializer"), self._dtype(dtype))

    def get_config(self) -> Dict[str, Any]:
        return {"dtype": self.dtype.name}


class Ones(Initializer):
    """Fills the variable with 1."""

    def __init__(self, dtype: Any = _dtypes.float32):
        self.dtype = _dtypes.as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        return array_ops.ones(_shape_list(shape, "ones_initializer"), self._dtype(dtype))

    def get_config(self) -> Dict[str, Any]:
        return {"dtype": self.dtype.name}


class Constant(Initializer):
    """Fills the variable with ``value``: a scalar, or a list/array of the right size."""

    def __init__(self, value: Any = 0, dtype: Any = _dtypes.float32, verify_shape: bool = False):
        if isinstance(value, Tensor):
            raise TypeError("constant_initializer needs a Python or numpy value, got a Tensor; "
                            "pass the tensor as get_variable's initializer instead")
        self.value = value
        self.dtype = _dtypes.as_dtype(dtype)
        self.verify_shape = verify_shape

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        dt = self._dtype(dtype)
        dims = _shape_list(shape, "constant_initializer")
        arr = np.asarray(self.value)
        if arr.size == 1:
            # A fill keeps the graph small however large the variable is.
            return array_ops.fill(dims, array_ops.constant(arr.reshape(()), dtype=dt))
        if self.verify_shape and list(arr.shape) != dims:
            raise TypeError(f"Expected Tensor's shape: {tuple(dims)}, got {arr.shape}.")
        return array_ops.constant(arr, dtype=dt, shape=dims)

    def get_config(self) -> Dict[str, Any]:
        return {"value": np.asarray(self.value).tolist(), "dtype": self.dtype.name,
                "verify_shape": self.verify_shape}


class RandomUniform(Initializer):
    """Uniform values in ``[minval, maxval)`` (maxval defaults to 1 for floats)."""

    def __init__(self, minval: Any = 0, maxval: Any = None, seed: Optional[int] = None,
                 dtype: Any = _dtypes.float32):
        self.minval, self.maxval, self.seed = minval, maxval, seed
        self.dtype = _dtypes.as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        return random_ops.random_uniform(_shape_list(shape, "random_uniform_initializer"),
                                         self.minval, self.maxval, self._dtype(dtype),
                                         seed=self.seed)

    def get_config(self) -> Dict[str, Any]:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed,
                "dtype": self.dtype.name}


class RandomNormal(Initializer):
    """Normally distributed values."""

    def __init__(self, mean: float = 0.0, stddev: float = 1.0, seed: Optional[int] = None,
                 dtype: Any = _dtypes.float32):
        self.mean, self.stddev, self.seed = mean, stddev, seed
        self.dtype = _float_dtype(dtype, "random_normal_initializer")

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        dt = _float_dtype(self._dtype(dtype), "random_normal_initializer")
        return random_ops.random_normal(_shape_list(shape, "random_normal_initializer"),
                                        self.mean, self.stddev, dt, seed=self.seed)

    def get_config(self) -> Dict[str, Any]:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed,
                "dtype": self.dtype.name}


class TruncatedNormal(Initializer):
    """Normal values redrawn when further than two standard deviations from the mean."""

    def __init__(self, mean: float = 0.0, stddev: float = 1.0, seed: Optional[int] = None,
                 dtype: Any = _dtypes.float32):
        self.mean, self.stddev, self.seed = mean, stddev, seed
        self.dtype = _float_dtype(dtype, "truncated_normal_initializer")

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        dt = _float_dtype(self._dtype(dtype), "truncated_normal_initializer")
        return random_ops.truncated_normal(_shape_list(shape, "truncated_normal_initializer"),
                                           self.mean, self.stddev, dt, seed=self.seed)

    def get_config(self) -> Dict[str, Any]:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed,
                "dtype": self.dtype.name}


def _fans(dims: List[int]) -> tuple:
    if not dims:
        return 1.0, 1.0
    if len(dims) == 1:
        return float(dims[0]), float(dims[0])
    receptive = float(np.prod(dims[:-2])) if len(dims) > 2 else 1.0
    return dims[-2] * receptive, dims[-1] * receptive


# The standard deviation of a unit normal truncated to [-2, 2]; dividing by it
# makes truncated draws have the requested variance.
_TRUNC_STD = 0.87962566103423978


class VarianceScaling(Initializer):
    """Values whose variance is ``scale / n``, n being fan-in, fan-out or their mean."""

    def __init__(self, scale: float = 1.0, mode: str = "fan_in",
                 distribution: str = "truncated_normal", seed: Optional[int] = None,
                 dtype: Any = _dtypes.float32):
        if scale <= 0.0:
            raise ValueError(f"`scale` must be a positive float, got {scale}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"Invalid `mode` argument: {mode!r}")
        dist = distribution.lower()
        if dist == "normal":
            dist = "truncated_normal"
        if dist not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(f"Invalid `distribution` argument: {distribution!r}")
        self.scale, self.mode, self.distribution, self.seed = scale, mode, dist, seed
        self.dtype = _float_dtype(dtype, "variance_scaling_initializer")

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        dt = _float_dtype(self._dtype(dtype), "variance_scaling_initializer")
        dims = _shape_list(shape, "variance_scaling_initializer")
        if partition_info is not None and getattr(partition_info, "full_shape", None):
            fan_in, fan_out = _fans(list(partition_info.full_shape))
        else:
            fan_in, fan_out = _fans(dims)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        if self.distribution == "truncated_normal":
            return random_ops.truncated_normal(dims, 0.0, math.sqrt(scale) / _TRUNC_STD, dt,
                                               seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.random_normal(dims, 0.0, math.sqrt(scale), dt, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return random_ops.random_uniform(dims, -limit, limit, dt, seed=self.seed)

    def get_config(self) -> Dict[str, Any]:
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed, "dtype": self.dtype.name}


class GlorotUniform(VarianceScaling):
    """Uniform in ``[-l, l]`` with ``l = sqrt(6 / (fan_in + fan_out))`` (Xavier)."""

    def __init__(self, seed: Optional[int] = None, dtype: Any = _dtypes.float32):
        super().__init__(1.0, "fan_avg", "uniform", seed, dtype)

    def get_config(self) -> Dict[str, Any]:
        return {"seed": self.seed, "dtype": self.dtype.name}


class GlorotNormal(VarianceScaling):
    """Truncated normal with variance ``2 / (fan_in + fan_out)`` (Xavier)."""

    def __init__(self, seed: Optional[int] = None, dtype: Any = _dtypes.float32):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed, dtype)

    def get_config(self) -> Dict[str, Any]:
        return {"seed": self.seed, "dtype": self.dtype.name}


class UniformUnitScaling(Initializer):
    """Uniform in ``[-l, l]`` with ``l = factor * sqrt(3 / fan_in)``."""

    def __init__(self, factor: float = 1.0, seed: Optional[int] = None,
                 dtype: Any = _dtypes.float32):
        self.factor, self.seed = factor, seed
        self.dtype = _float_dtype(dtype, "uniform_unit_scaling_initializer")

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        dims = _shape_list(shape, "uniform_unit_scaling_initializer")
        input_size = float(np.prod(dims[:-1])) if len(dims) > 1 else (dims[0] if dims else 1.0)
        limit = math.sqrt(3.0 / max(1.0, input_size)) * self.factor
        return random_ops.random_uniform(dims, -limit, limit, self._dtype(dtype), seed=self.seed)

    def get_config(self) -> Dict[str, Any]:
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix, reshaped to the variable's shape, times ``gain``.

    The matrix is drawn with numpy when the graph is built (seeded like the
    random ops) and stored as a constant: there is no QR kernel in the graph.
    """

    def __init__(self, gain: float = 1.0, seed: Optional[int] = None,
                 dtype: Any = _dtypes.float32):
        self.gain, self.seed = gain, seed
        self.dtype = _float_dtype(dtype, "orthogonal_initializer")

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        dims = _shape_list(shape, "orthogonal_initializer")
        if len(dims) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional")
        rows, cols = int(np.prod(dims[:-1])), dims[-1]
        gseed, oseed = get_seed(self.seed)
        rng = np.random.default_rng(None if gseed is None else [gseed, oseed])
        a = rng.standard_normal((max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(a)
        q *= np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return array_ops.constant(self.gain * q.reshape(dims), dtype=self._dtype(dtype))

    def get_config(self) -> Dict[str, Any]:
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


class Identity(Initializer):
    """``gain`` times the identity matrix (2-D variables only)."""

    def __init__(self, gain: float = 1.0, dtype: Any = _dtypes.float32):
        self.gain = gain
        self.dtype = _float_dtype(dtype, "identity_initializer")

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        dims = _shape_list(shape, "identity_initializer")
        if len(dims) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices.")
        return array_ops.constant(self.gain * np.eye(*dims), dtype=self._dtype(dtype))

    def get_config(self) -> Dict[str, Any]:
        return {"gain": self.gain, "dtype": self.dtype.name}


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
uniform_unit_scaling_initializer = UniformUnitScaling
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal
orthogonal_initializer = Orthogonal
identity_initializer = Identity


def he_normal(seed: Optional[int] = None) -> VarianceScaling:
    """Truncated normal with variance ``2 / fan_in``."""
    return VarianceScaling(2.0, "fan_in", "truncated_normal", seed)


def he_uniform(seed: Optional[int] = None) -> VarianceScaling:
    """Uniform with variance ``2 / fan_in``."""
    return VarianceScaling(2.0, "fan_in", "uniform", seed)


def lecun_normal(seed: Optional[int] = None) -> VarianceScaling:
    """Truncated normal with variance ``1 / fan_in``."""
    return VarianceScaling(1.0, "fan_in", "truncated_normal", seed)


def lecun_uniform(seed: Optional[int] = None) -> VarianceScaling:
    """Uniform with variance ``1 / fan_in``."""
    return VarianceScaling(1.0, "fan_in", "uniform", seed)


__all__ = ["zeros_initializer", "ones_initializer", "constant_initializer",
           "random_uniform_initializer", "random_normal_initializer",
           "truncated_normal_initializer", "uniform_unit_scaling_initializer",
           "variance_scaling_initializer", "glorot_uniform_initializer",
           "glorot_normal_initializer", "orthogonal_initializer", "identity_initializer"]
