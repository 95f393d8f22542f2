"""``tf.distributions.Distribution``: the TensorFlow 1.x probability distribution
interface (sampling, densities, CDFs, moments, entropy), its reparameterization markers
and the KL-divergence registry (``RegisterKL``, ``kl_divergence``).

A distribution keeps its parameters as tensors; each method builds graph ops, so
densities and reparameterized samples differentiate with respect to the parameters.
Batch shapes must be known when the graph is built.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Tuple

import numpy as np

from tensorfleet.framework.graph import Tensor, control_dependencies, convert_to_tensor, \
    name_scope
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.check_ops import assert_equal


class ReparameterizationType:
    """Whether samples are a differentiable function of the parameters."""

    def __init__(self, rep_type: str):
        self._rep_type = rep_type

    def __repr__(self) -> str:
        return f"<Reparameterization Type: {self._rep_type}>"

    def __eq__(self, other: Any) -> bool:
        return self is other


FULLY_REPARAMETERIZED = ReparameterizationType("FULLY_REPARAMETERIZED")
NOT_REPARAMETERIZED = ReparameterizationType("NOT_REPARAMETERIZED")


class Distribution:
    """The base class of the distributions of ``tf.distributions``."""

    def __init__(self, dtype: Any, reparameterization_type: ReparameterizationType,
                 validate_args: bool, allow_nan_stats: bool, parameters: Optional[dict] = None,
                 graph_parents: Any = None, name: Optional[str] = None):
        if not isinstance(reparameterization_type, ReparameterizationType):
            raise TypeError("reparameterization_type must be FULLY_REPARAMETERIZED or "
                            "NOT_REPARAMETERIZED")
        self._dtype = dtype
        self._reparameterization_type = reparameterization_type
        self._validate_args = bool(validate_args)
        self._allow_nan_stats = bool(allow_nan_stats)
        self._parameters = dict(parameters or {})
        self._parameters.pop("self", None)
        self._name = name or type(self).__name__

    # -- facts --------------------------------------------------------------------------
    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def name(self) -> str:
        return self._name

    @property
    def parameters(self) -> dict:
        return dict(self._parameters)

    @property
    def reparameterization_type(self) -> ReparameterizationType:
        return self._reparameterization_type

    @property
    def validate_args(self) -> bool:
        return self._validate_args

    @property
    def allow_nan_stats(self) -> bool:
        return self._allow_nan_stats

    @property
    def batch_shape(self) -> TensorShape:
        return self._batch_shape()

    @property
    def event_shape(self) -> TensorShape:
        return self._event_shape()

    def batch_shape_tensor(self, name: str = "batch_shape_tensor") -> Tensor:
        return convert_to_tensor(np.asarray(self._static(self.batch_shape), np.int32),
                                 name=name)

    def event_shape_tensor(self, name: str = "event_shape_tensor") -> Tensor:
        return convert_to_tensor(np.asarray(self._static(self.event_shape), np.int32),
                                 name=name)

    def is_scalar_batch(self, name: str = "is_scalar_batch") -> Tensor:
        return convert_to_tensor(self.batch_shape.ndims == 0, name=name)

    def is_scalar_event(self, name: str = "is_scalar_event") -> Tensor:
        return convert_to_tensor(self.event_shape.ndims == 0, name=name)

    def copy(self, **override_parameters_kwargs: Any) -> "Distribution":
        """A new distribution of the same class with some parameters replaced."""
        params = self.parameters
        params.update(override_parameters_kwargs)
        return type(self)(**params)

    def _static(self, shape: TensorShape) -> list:
        dims = shape.as_list()
        if any(d is None for d in dims):
            raise ValueError(f"{self.name}: shape {shape} must be known when the graph is built")
        return dims

    def _event_shape(self) -> TensorShape:
        return TensorShape([])

    def _batch_shape(self) -> TensorShape:
        raise TypeError(f"{type(self).__name__} does not say its batch shape")

    # -- methods ------------------------------------------------------------------------
    def _call(self, method: str, name: str, *args: Any) -> Tensor:
        fn = getattr(self, "_" + method, None)
        if fn is None:
            raise TypeError(f"{type(self).__name__} has no {method}")
        with name_scope(self.name):
            with name_scope(name):
                return fn(*args)

    def _value(self, value: Any) -> Tensor:
        return convert_to_tensor(value, dtype=self.dtype)

    def sample(self, sample_shape: Any = (), seed: Optional[int] = None,
               name: str = "sample") -> Tensor:
        """Draws of shape ``sample_shape + batch_shape + event_shape``."""
        shape = [int(d) for d in np.asarray(sample_shape, np.int64).reshape(-1)]
        return self._call("sample_n", name, shape, seed)

    def log_prob(self, value: Any, name: str = "log_prob") -> Tensor:
        """The log density (or log mass) at ``value``."""
        return self._call("log_prob", name, self._value(value))

    def prob(self, value: Any, name: str = "prob") -> Tensor:
        """The density (or mass) at ``value``."""
        with name_scope(self.name):
            with name_scope(name):
                if hasattr(self, "_prob"):
                    return self._prob(self._value(value))
                return M.exp(self._log_prob(self._value(value)))

    def cdf(self, value: Any, name: str = "cdf") -> Tensor:
        """``P(X <= value)``."""
        return self._call("cdf", name, self._value(value))

    def log_cdf(self, value: Any, name: str = "log_cdf") -> Tensor:
        return M.log(self.cdf(value), name=name)

    def survival_function(self, value: Any, name: str = "survival_function") -> Tensor:
        """``P(X > value)``."""
        c = self.cdf(value)
        return M.subtract(A.ones_like(c), c, name=name)

    def log_survival_function(self, value: Any, name: str = "log_survival_function") -> Tensor:
        return M.log(self.survival_function(value), name=name)

    def quantile(self, value: Any, name: str = "quantile") -> Tensor:
        """The value below which a fraction ``value`` of the mass lies."""
        return self._call("quantile", name, self._value(value))

    def entropy(self, name: str = "entropy") -> Tensor:
        """The Shannon entropy (in nats)."""
        return self._call("entropy", name)

    def mean(self, name: str = "mean") -> Tensor:
        return self._call("mean", name)

    def mode(self, name: str = "mode") -> Tensor:
        return self._call("mode", name)

    def variance(self, name: str = "variance") -> Tensor:
        return self._call("variance", name)

    def stddev(self, name: str = "stddev") -> Tensor:
        with name_scope(self.name):
            with name_scope(name):
                if hasattr(self, "_stddev"):
                    return self._stddev()
                return M.sqrt(self._variance())

    def covariance(self, name: str = "covariance") -> Tensor:
        """The covariance matrix of each (vector-valued) event."""
        return self._call("covariance", name)

    def cross_entropy(self, other: "Distribution", name: str = "cross_entropy") -> Tensor:
        """``H[self, other] = H[self] + KL[self || other]``."""
        with name_scope(self.name):
            with name_scope(name):
                return M.add(self.entropy(), kl_divergence(self, other))

    def kl_divergence(self, other: "Distribution", name: str = "kl_divergence") -> Tensor:
        """``KL[self || other]``."""
        return kl_divergence(self, other, name=name)

    def _nan_where(self, cond: Tensor, value: Tensor, what: str) -> Tensor:
        """``value`` with nan where ``cond`` (or an error unless ``allow_nan_stats``)."""
        if self.allow_nan_stats:
            return A.where(cond, A.fill(A.shape(value), np.array(np.nan, self.dtype.np)),
                           value)
        check = assert_equal(M.reduce_any(cond), False,
                             message=f"{self.name}: the {what} is undefined for some "
                                     f"parameters (allow_nan_stats=False)")
        with control_dependencies([check]):
            return A.identity(value)


_KL: Dict[Tuple[type, type], Callable] = {}


class RegisterKL:
    """Decorator registering ``fn(a, b, name=None)`` as ``KL[a || b]`` for the two
    distribution classes (and their subclasses)."""

    def __init__(self, dist_cls_a: type, dist_cls_b: type):
        self._key = (dist_cls_a, dist_cls_b)

    def __call__(self, fn: Callable) -> Callable:
        if not callable(fn):
            raise TypeError(f"fn must be callable, got {fn!r}")
        if self._key in _KL:
            raise ValueError(f"KL({self._key[0].__name__} || {self._key[1].__name__}) has "
                             f"already been registered to {_KL[self._key]}")
        _KL[self._key] = fn
        return fn


def kl_divergence(distribution_a: Distribution, distribution_b: Distribution,
                  allow_nan_stats: bool = True, name: Optional[str] = None) -> Tensor:
    """``KL[a || b]`` by the function registered for the closest pair of classes.

    Raises:
      TypeError: no KL divergence is registered for the two classes.
    """
    for ca in type(distribution_a).__mro__:
        for cb in type(distribution_b).__mro__:
            fn = _KL.get((ca, cb))
            if fn is not None:
                with name_scope(name, "KullbackLeibler"):
                    kl = fn(distribution_a, distribution_b, name=None)
                if allow_nan_stats:
                    return kl
                with control_dependencies([assert_equal(M.reduce_any(M.is_nan(kl)), False,
                                                        message="KL divergence is nan")]):
                    return A.identity(kl)
    raise TypeError(f"No KL(distribution_a || distribution_b) registered for distribution_a "
                    f"type {type(distribution_a).__name__} and distribution_b type "
                    f"{type(distribution_b).__name__}")
