"""The vector distributions of ``tf.distributions``: ``Dirichlet``, ``Multinomial`` and
``DirichletMultinomial``; events are the innermost axis ``[..., K]``."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.tensor_shape import TensorShape, broadcast_shape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops import random_ops as R
from tensorfleet.ops.distribution import (FULLY_REPARAMETERIZED, NOT_REPARAMETERIZED,
                                          Distribution, RegisterKL)
from tensorfleet.ops.distributions_univariate import _logits_probs, _params
from tensorfleet.ops.linalg_ops import matrix_diag, matrix_diag_part
from tensorfleet.ops.math_ops_special import digamma, lbeta, lgamma
from tensorfleet.ops.op_util import const_value


def _known_event(t: Tensor, what: str) -> int:
    if t.shape.ndims is None or t.shape.ndims < 1 or not t.shape.is_fully_defined():
        raise ValueError(f"{what} needs a parameter [..., K] of known shape, got {t.shape}")
    return t.shape.as_list()[-1]


def _covariance_of(mean_frac: Tensor, scale: Tensor) -> Tensor:
    """``scale * (diag(p) - p p^T)`` for the probabilities ``p`` ``[..., K]``."""
    outer = M.multiply(A.expand_dims(mean_frac, -1), A.expand_dims(mean_frac, -2))
    return M.multiply(A.expand_dims(A.expand_dims(scale, -1), -1),
                      M.subtract(matrix_diag(mean_frac), outer))


class Dirichlet(Distribution):
    """The Dirichlet distribution on the simplex with ``concentration`` ``[..., K]``."""

    def __init__(self, concentration: Any, validate_args: bool = False,
                 allow_nan_stats: bool = True, name: str = "Dirichlet"):
        self._concentration = _params(concentration=concentration)["concentration"]
        self._k = _known_event(self._concentration, "Dirichlet")
        super().__init__(self._concentration.dtype, FULLY_REPARAMETERIZED, validate_args,
                         allow_nan_stats, dict(concentration=concentration,
                                               validate_args=validate_args,
                                               allow_nan_stats=allow_nan_stats, name=name),
                         name=name)

    concentration = property(lambda self: self._concentration)

    @property
    def total_concentration(self) -> Tensor:
        return M.reduce_sum(self._concentration, -1)

    def _batch_shape(self) -> TensorShape:
        return self._concentration.shape[:-1]

    def _event_shape(self) -> TensorShape:
        return self._concentration.shape[-1:]

    def _sample_n(self, shape: list, seed: Optional[int]) -> Tensor:
        g = R.random_gamma(shape, self._concentration, dtype=self.dtype, seed=seed)
        return M.div(g, M.reduce_sum(g, -1, keepdims=True))

    def _log_prob(self, x: Tensor) -> Tensor:
        return M.subtract(M.reduce_sum(M.multiply(M.subtract(self._concentration, 1.0),
                                                  M.log(x)), -1), lbeta(self._concentration))

    def _entropy(self) -> Tensor:
        a, a0 = self._concentration, self.total_concentration
        return (lbeta(a) + M.multiply(M.subtract(a0, float(self._k)), digamma(a0))
                - M.reduce_sum(M.multiply(M.subtract(a, 1.0), digamma(a)), -1))

    def _mean(self) -> Tensor:
        return M.div(self._concentration, A.expand_dims(self.total_concentration, -1))

    def _variance(self) -> Tensor:
        a0 = A.expand_dims(self.total_concentration, -1)
        p = self._mean()
        return M.div(M.multiply(p, M.subtract(1.0, p)), M.add(a0, 1.0))

    def _covariance(self) -> Tensor:
        return _covariance_of(self._mean(), M.reciprocal(M.add(self.total_concentration, 1.0)))

    def _mode(self) -> Tensor:
        mode = M.div(M.subtract(self._concentration, 1.0),
                     A.expand_dims(M.subtract(self.total_concentration, float(self._k)), -1))
        return self._nan_where(M.less_equal(self._concentration, 1.0), mode, "mode")


@RegisterKL(Dirichlet, Dirichlet)
def _kl_dirichlet(a: Dirichlet, b: Dirichlet, name: Optional[str] = None) -> Tensor:
    da = M.subtract(digamma(a.concentration),
                    A.expand_dims(digamma(a.total_concentration), -1))
    return (M.reduce_sum(M.multiply(M.subtract(a.concentration, b.concentration), da), -1)
            - lbeta(a.concentration) + lbeta(b.concentration))


def _count_prefix(counts: Tensor, total: Tensor) -> Tensor:
    """``log(n! / prod(c_i!))``."""
    return M.subtract(lgamma(M.add(total, 1.0)), M.reduce_sum(lgamma(M.add(counts, 1.0)), -1))


def _static_total(total: Tensor, what: str) -> int:
    value = const_value(total)
    if value is None:
        raise ValueError(f"{what}.sample needs total_count known when the graph is built")
    value = np.asarray(value)
    if np.any(value != np.floor(value)) or np.any(value < 0):
        raise ValueError(f"{what}: total_count must be non-negative integers, got {value}")
    return int(value.max()) if value.size else 0


def _multinomial_counts(logits: Tensor, total: Tensor, shape: list, k: int,
                        seed: Optional[int], what: str) -> Tensor:
    """Counts of ``total`` categorical draws per batch member (fewer where the total is
    smaller than the largest one)."""
    n_max = _static_total(total, what)
    batch = logits.shape.as_list()[:-1]
    n = int(np.prod(shape)) if shape else 1
    flat = A.reshape(A.tile(A.expand_dims(logits, 0), [n] + [1] * len(logits.shape.as_list())),
                     [-1, k])
    draws = R.multinomial(flat, max(n_max, 1), seed=seed)  # [n * batch, n_max]
    onehot = A.one_hot(draws, k, dtype=logits.dtype)
    used = A.cast(M.less(A.range(0.0, float(max(n_max, 1)), dtype=logits.dtype), A.reshape(
        A.tile(A.expand_dims(total + A.zeros(batch, logits.dtype), 0), [n] + [1] * len(batch)),
        [-1, 1])), logits.dtype)
    counts = M.reduce_sum(M.multiply(onehot, A.expand_dims(used, -1)), 1)
    return A.reshape(counts, list(shape) + batch + [k])


class Multinomial(Distribution):
    """Counts of ``total_count`` draws over ``K`` classes of ``logits`` or ``probs``."""

    def __init__(self, total_count: Any, logits: Any = None, probs: Any = None,
                 validate_args: bool = False, allow_nan_stats: bool = True,
                 name: str = "Multinomial"):
        lg, pr = _logits_probs(logits, probs, "Multinomial")
        self._logits = lg if lg is not None else M.log(pr)
        self._probs = pr if pr is not None else N.softmax(lg)
        self._total = convert_to_tensor(total_count, dtype=self._probs.dtype)
        self._k = _known_event(self._logits, "Multinomial")
        super().__init__(self._probs.dtype, NOT_REPARAMETERIZED, validate_args,
                         allow_nan_stats, dict(total_count=total_count, logits=logits,
                                               probs=probs, validate_args=validate_args,
                                               allow_nan_stats=allow_nan_stats, name=name),
                         name=name)

    total_count = property(lambda self: self._total)
    logits = property(lambda self: self._logits)
    probs = property(lambda self: self._probs)

    def _batch_shape(self) -> TensorShape:
        return broadcast_shape(self._total.shape, self._logits.shape[:-1])

    def _event_shape(self) -> TensorShape:
        return self._logits.shape[-1:]

    def _sample_n(self, shape: list, seed: Optional[int]) -> Tensor:
        return _multinomial_counts(self._logits, self._total, shape, self._k, seed,
                                   "Multinomial")

    def _log_prob(self, counts: Tensor) -> Tensor:
        return M.add(_count_prefix(counts, self._total),
                     M.reduce_sum(M.multiply(counts, N.log_softmax(self._logits)), -1))

    def _mean(self) -> Tensor:
        return M.multiply(A.expand_dims(self._total, -1), self._probs)

    def _variance(self) -> Tensor:
        return M.multiply(self._mean(), M.subtract(1.0, self._probs))

    def _covariance(self) -> Tensor:
        return _covariance_of(self._probs, self._total + A.zeros(
            self.batch_shape.as_list(), self.dtype))


class DirichletMultinomial(Distribution):
    """Counts of ``total_count`` draws whose class probabilities are themselves drawn
    from ``Dirichlet(concentration)``."""

    def __init__(self, total_count: Any, concentration: Any, validate_args: bool = False,
                 allow_nan_stats: bool = True, name: str = "DirichletMultinomial"):
        self._concentration = _params(concentration=concentration)["concentration"]
        self._total = convert_to_tensor(total_count, dtype=self._concentration.dtype)
        self._k = _known_event(self._concentration, "DirichletMultinomial")
        super().__init__(self._concentration.dtype, NOT_REPARAMETERIZED, validate_args,
                         allow_nan_stats, dict(total_count=total_count,
                                               concentration=concentration,
                                               validate_args=validate_args,
                                               allow_nan_stats=allow_nan_stats, name=name),
                         name=name)

    total_count = property(lambda self: self._total)
    concentration = property(lambda self: self._concentration)

    @property
    def total_concentration(self) -> Tensor:
        return M.reduce_sum(self._concentration, -1)

    def _batch_shape(self) -> TensorShape:
        return broadcast_shape(self._total.shape, self._concentration.shape[:-1])

    def _event_shape(self) -> TensorShape:
        return self._concentration.shape[-1:]

    def _sample_n(self, shape: list, seed: Optional[int]) -> Tensor:
        p = Dirichlet(self._concentration).sample(shape, seed=seed)
        return _multinomial_counts(M.log(p), self._total, [], self._k,
                                   None if seed is None else seed + 1, "DirichletMultinomial")

    def _log_prob(self, counts: Tensor) -> Tensor:
        return M.add(_count_prefix(counts, self._total),
                     M.subtract(lbeta(M.add(self._concentration, counts)),
                                lbeta(self._concentration)))

    def _mean(self) -> Tensor:
        frac = M.div(self._concentration, A.expand_dims(self.total_concentration, -1))
        return M.multiply(A.expand_dims(self._total, -1), frac)

    def _variance(self) -> Tensor:
        return matrix_diag_part(self._covariance())

    def _covariance(self) -> Tensor:
        a0 = self.total_concentration
        frac = M.div(self._concentration, A.expand_dims(a0, -1))
        scale = M.div(M.multiply(self._total, M.add(self._total, a0)), M.add(1.0, a0))
        return _covariance_of(frac, scale)
