"""The scalar distributions of ``tf.distributions``: ``Normal``, ``Uniform``,
``Exponential``, ``Gamma``, ``Beta``, ``Laplace``, ``StudentT``, ``Bernoulli`` and
``Categorical``, with the KL divergences TensorFlow registers between them."""

from __future__ import annotations

import math
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
from tensorfleet.ops.math_ops_special import betainc, digamma, erfc, erfinv, lgamma
from tensorfleet.ops.special_functions import igamma

_HALF_LOG_TWO_PI = 0.5 * math.log(2.0 * math.pi)


def _params(dtype: Any = None, **values: Any) -> dict:
    """The parameters as tensors of one float dtype."""
    out = {}
    for k, v in values.items():
        own = isinstance(v, Tensor) or getattr(getattr(v, "dtype", None), "kind", "") == "f"
        if dtype is not None:
            t = convert_to_tensor(v, dtype=dtype)
        else:
            # Python numbers are float32, as in TensorFlow; numpy floats keep their type.
            t = convert_to_tensor(v) if own else convert_to_tensor(v, dtype=_dtypes.float32)
        if dtype is None:
            dtype = t.dtype
        if not t.dtype.is_floating:
            raise TypeError(f"{k} must be a float tensor, got {t.dtype.name}")
        out[k] = t
    return out


def _broadcast(*ts: Tensor) -> TensorShape:
    shape = ts[0].shape
    for t in ts[1:]:
        shape = broadcast_shape(shape, t.shape)
    return shape


def _full(shape: list, batch: TensorShape) -> list:
    dims = batch.as_list()
    if any(d is None for d in dims):
        raise ValueError(f"sampling needs a batch shape known when the graph is built, got "
                         f"{batch}")
    return list(shape) + dims


def _lbeta2(a: Tensor, b: Tensor) -> Tensor:
    return M.subtract(M.add(lgamma(a), lgamma(b)), lgamma(M.add(a, b)))


class _LocationScale(Distribution):
    """A distribution of location ``loc`` and ``scale`` (broadcast together), centred on
    ``loc``: its mean and mode."""

    def __init__(self, loc: Any, scale: Any, validate_args: bool, allow_nan_stats: bool,
                 name: str):
        p = _params(loc=loc, scale=scale)
        self._loc, self._scale = p["loc"], p["scale"]
        super().__init__(self._loc.dtype, FULLY_REPARAMETERIZED, validate_args,
                         allow_nan_stats, dict(loc=loc, scale=scale, validate_args=validate_args,
                                               allow_nan_stats=allow_nan_stats, name=name),
                         name=name)

    loc = property(lambda self: self._loc)
    scale = property(lambda self: self._scale)

    def _batch_shape(self) -> TensorShape:
        return _broadcast(self._loc, self._scale)

    def _z(self, x: Tensor) -> Tensor:
        return M.div(M.subtract(x, self._loc), self._scale)

    def _mean(self) -> Tensor:
        return self._loc + A.zeros_like(self._scale)

    _mode = _mean

    def _variance(self) -> Tensor:
        return M.square(self._stddev())


class Normal(_LocationScale):
    """The normal distribution of mean ``loc`` and standard deviation ``scale``."""

    def __init__(self, loc: Any, scale: Any, validate_args: bool = False,
                 allow_nan_stats: bool = True, name: str = "Normal"):
        super().__init__(loc, scale, validate_args, allow_nan_stats, name)

    def _sample_n(self, shape: list, seed: Optional[int]) -> Tensor:
        z = R.random_normal(_full(shape, self.batch_shape), dtype=self.dtype, seed=seed)
        return M.add(M.multiply(z, self._scale), self._loc)

    def _log_prob(self, x: Tensor) -> Tensor:
        return M.subtract(M.multiply(M.square(self._z(x)), -0.5),
                          M.add(M.log(self._scale), _HALF_LOG_TWO_PI))

    def _cdf(self, x: Tensor) -> Tensor:
        return M.multiply(erfc(M.multiply(self._z(x), -1.0 / math.sqrt(2.0))), 0.5)

    def _quantile(self, p: Tensor) -> Tensor:
        z = M.multiply(erfinv(M.subtract(M.multiply(p, 2.0), 1.0)), math.sqrt(2.0))
        return M.add(M.multiply(z, self._scale), self._loc)

    def _entropy(self) -> Tensor:
        scale = self._scale + A.zeros_like(self._loc)
        return M.add(M.log(scale), 0.5 + _HALF_LOG_TWO_PI)

    def _stddev(self) -> Tensor:
        return self._scale + A.zeros_like(self._loc)


@RegisterKL(Normal, Normal)
def _kl_normal_normal(a: Normal, b: Normal, name: Optional[str] = None) -> Tensor:
    ratio = M.square(M.div(a.scale, b.scale))
    diff = M.square(M.div(M.subtract(a.loc, b.loc), b.scale))
    return M.multiply(M.subtract(M.add(ratio, diff), M.add(M.log(ratio), 1.0)), 0.5)


class Uniform(Distribution):
    """The uniform distribution on ``[low, high)``."""

    def __init__(self, low: Any = 0.0, high: Any = 1.0, validate_args: bool = False,
                 allow_nan_stats: bool = True, name: str = "Uniform"):
        p = _params(low=low, high=high)
        self._low, self._high = p["low"], p["high"]
        super().__init__(self._low.dtype, FULLY_REPARAMETERIZED, validate_args,
                         allow_nan_stats, dict(low=low, high=high, validate_args=validate_args,
                                               allow_nan_stats=allow_nan_stats, name=name),
                         name=name)

    low = property(lambda self: self._low)
    high = property(lambda self: self._high)

    def range(self, name: str = "range") -> Tensor:
        """``high - low``."""
        return M.subtract(self._high, self._low, name=name)

    def _batch_shape(self) -> TensorShape:
        return _broadcast(self._low, self._high)

    def _sample_n(self, shape: list, seed: Optional[int]) -> Tensor:
        u = R.random_uniform(_full(shape, self.batch_shape), dtype=self.dtype, seed=seed)
        return M.add(self._low, M.multiply(u, self.range()))

    def _prob(self, x: Tensor) -> Tensor:
        dens = M.reciprocal(self.range()) + A.zeros_like(x)
        inside = M.logical_and(M.greater_equal(x + A.zeros_like(dens), self._low),
                               M.less(x + A.zeros_like(dens), self._high))
        return A.where(inside, dens, A.zeros_like(dens))

    def _log_prob(self, x: Tensor) -> Tensor:
        return M.log(self._prob(x))

    def _cdf(self, x: Tensor) -> Tensor:
        return M.minimum(M.maximum(M.div(M.subtract(x, self._low), self.range()), 0.0), 1.0)

    def _quantile(self, p: Tensor) -> Tensor:
        return M.add(self._low, M.multiply(p, self.range()))

    def _entropy(self) -> Tensor:
        return M.log(self.range())

    def _mean(self) -> Tensor:
        return M.multiply(M.add(self._low, self._high), 0.5)

    def _variance(self) -> Tensor:
        return M.div(M.square(self.range()), 12.0)


class Gamma(Distribution):
    """The gamma distribution of ``concentration`` (shape) and ``rate``."""

    def __init__(self, concentration: Any, rate: Any, validate_args: bool = False,
                 allow_nan_stats: bool = True, name: str = "Gamma"):
        p = _params(concentration=concentration, rate=rate)
        self._concentration, self._rate = p["concentration"], p["rate"]
        super().__init__(self._rate.dtype, FULLY_REPARAMETERIZED, validate_args,
                         allow_nan_stats, dict(concentration=concentration, rate=rate,
                                               validate_args=validate_args,
                                               allow_nan_stats=allow_nan_stats, name=name),
                         name=name)

    concentration = property(lambda self: self._concentration)
    rate = property(lambda self: self._rate)

    def _batch_shape(self) -> TensorShape:
        return _broadcast(self._concentration, self._rate)

    def _sample_n(self, shape: list, seed: Optional[int]) -> Tensor:
        batch = self.batch_shape.as_list()
        alpha = self._concentration + A.zeros(batch, dtype=self.dtype)
        return M.div(R.random_gamma(shape, alpha, dtype=self.dtype, seed=seed), self._rate)

    def _log_prob(self, x: Tensor) -> Tensor:
        a, b = self._concentration, self._rate
        return (M.multiply(M.subtract(a, 1.0), M.log(x)) - M.multiply(b, x) - lgamma(a)
                + M.multiply(a, M.log(b)))

    def _cdf(self, x: Tensor) -> Tensor:
        a = self._concentration + A.zeros_like(x)
        return igamma(a, M.multiply(self._rate, x))

    def _entropy(self) -> Tensor:
        a, b = self._concentration, self._rate
        return a - M.log(b) + lgamma(a) + M.multiply(M.subtract(1.0, a), digamma(a))

    def _mean(self) -> Tensor:
        return M.div(self._concentration, self._rate)

    def _variance(self) -> Tensor:
        return M.div(self._concentration, M.square(self._rate))

    def _mode(self) -> Tensor:
        mode = M.div(M.subtract(self._concentration, 1.0), self._rate)
        return self._nan_where(M.less(self._concentration + A.zeros_like(mode), 1.0), mode,
                               "mode")


class Exponential(Gamma):
    """The exponential distribution of ``rate`` (a gamma of concentration 1)."""

    def __init__(self, rate: Any, validate_args: bool = False, allow_nan_stats: bool = True,
                 name: str = "Exponential"):
        r = _params(rate=rate)["rate"]
        super().__init__(A.ones_like(r), r, validate_args, allow_nan_stats, name)
        self._parameters = dict(rate=rate, validate_args=validate_args,
                                allow_nan_stats=allow_nan_stats, name=name)

    def _sample_n(self, shape: list, seed: Optional[int]) -> Tensor:
        u = R.random_uniform(_full(shape, self.batch_shape), minval=np.finfo(
            self.dtype.np).tiny, maxval=1.0, dtype=self.dtype, seed=seed)
        return M.div(M.negative(M.log(u)), self._rate)


@RegisterKL(Gamma, Gamma)
def _kl_gamma_gamma(a: Gamma, b: Gamma, name: Optional[str] = None) -> Tensor:
    a1, b1, a2, b2 = a.concentration, a.rate, b.concentration, b.rate
    return (M.multiply(M.subtract(a1, a2), digamma(a1)) - lgamma(a1) + lgamma(a2)
            + M.multiply(a2, M.subtract(M.log(b1), M.log(b2)))
            + M.multiply(a1, M.subtract(M.div(b2, b1), 1.0)))


class Beta(Distribution):
    """The beta distribution on ``[0, 1]`` with ``concentration1`` (alpha) and
    ``concentration0`` (beta)."""

    def __init__(self, concentration1: Any = None, concentration0: Any = None,
                 validate_args: bool = False, allow_nan_stats: bool = True,
                 name: str = "Beta"):
        if concentration1 is None or concentration0 is None:
            raise ValueError("Beta needs concentration1 and concentration0")
        p = _params(concentration1=concentration1, concentration0=concentration0)
        self._c1, self._c0 = p["concentration1"], p["concentration0"]
        super().__init__(self._c1.dtype, FULLY_REPARAMETERIZED, validate_args,
                         allow_nan_stats, dict(concentration1=concentration1,
                                               concentration0=concentration0,
                                               validate_args=validate_args,
                                               allow_nan_stats=allow_nan_stats, name=name),
                         name=name)

    concentration1 = property(lambda self: self._c1)
    concentration0 = property(lambda self: self._c0)

    @property
    def total_concentration(self) -> Tensor:
        return M.add(self._c1, self._c0)

    def _batch_shape(self) -> TensorShape:
        return _broadcast(self._c1, self._c0)

    def _sample_n(self, shape: list, seed: Optional[int]) -> Tensor:
        batch = self.batch_shape.as_list()
        g1 = R.random_gamma(shape, self._c1 + A.zeros(batch, dtype=self.dtype),
                            dtype=self.dtype, seed=seed)
        g0 = R.random_gamma(shape, self._c0 + A.zeros(batch, dtype=self.dtype),
                            dtype=self.dtype, seed=None if seed is None else seed + 1)
        return M.div(g1, M.add(g1, g0))

    def _log_prob(self, x: Tensor) -> Tensor:
        return (M.multiply(M.subtract(self._c1, 1.0), M.log(x))
                + M.multiply(M.subtract(self._c0, 1.0), M.log1p(M.negative(x)))
                - _lbeta2(self._c1, self._c0))

    def _cdf(self, x: Tensor) -> Tensor:
        zero = A.zeros_like(x)
        return betainc(self._c1 + zero, self._c0 + zero, x)

    def _entropy(self) -> Tensor:
        a, b = self._c1, self._c0
        return (_lbeta2(a, b) - M.multiply(M.subtract(a, 1.0), digamma(a))
                - M.multiply(M.subtract(b, 1.0), digamma(b))
                + M.multiply(M.subtract(M.add(a, b), 2.0), digamma(M.add(a, b))))

    def _mean(self) -> Tensor:
        return M.div(self._c1, self.total_concentration)

    def _variance(self) -> Tensor:
        t = self.total_concentration
        return M.div(M.multiply(self._c1, self._c0), M.multiply(M.square(t), M.add(t, 1.0)))

    def _mode(self) -> Tensor:
        mode = M.div(M.subtract(self._c1, 1.0), M.subtract(self.total_concentration, 2.0))
        bad = M.logical_or(M.less_equal(self._c1 + A.zeros_like(mode), 1.0),
                           M.less_equal(self._c0 + A.zeros_like(mode), 1.0))
        return self._nan_where(bad, mode, "mode")


@RegisterKL(Beta, Beta)
def _kl_beta_beta(a: Beta, b: Beta, name: Optional[str] = None) -> Tensor:
    t1 = a.total_concentration
    return (_lbeta2(b.concentration1, b.concentration0)
            - _lbeta2(a.concentration1, a.concentration0)
            + M.multiply(M.subtract(a.concentration1, b.concentration1),
                         digamma(a.concentration1))
            + M.multiply(M.subtract(a.concentration0, b.concentration0),
                         digamma(a.concentration0))
            + M.multiply(M.subtract(b.total_concentration, t1), digamma(t1)))


class Laplace(_LocationScale):
    """The Laplace distribution of location ``loc`` and ``scale``."""

    def __init__(self, loc: Any, scale: Any, validate_args: bool = False,
                 allow_nan_stats: bool = True, name: str = "Laplace"):
        super().__init__(loc, scale, validate_args, allow_nan_stats, name)

    def _sample_n(self, shape: list, seed: Optional[int]) -> Tensor:
        eps = np.finfo(self.dtype.np).eps
        u = R.random_uniform(_full(shape, self.batch_shape), minval=-0.5 + eps, maxval=0.5,
                             dtype=self.dtype, seed=seed)
        return M.subtract(self._loc, M.multiply(M.multiply(self._scale, M.sign(u)),
                                                M.log1p(M.multiply(M.abs(u), -2.0))))

    def _log_prob(self, x: Tensor) -> Tensor:
        return M.negative(M.add(M.log(M.multiply(self._scale, 2.0)),
                                M.div(M.abs(M.subtract(x, self._loc)), self._scale)))

    def _cdf(self, x: Tensor) -> Tensor:
        z = self._z(x)
        return M.add(0.5, M.multiply(M.multiply(M.sign(z), 0.5),
                                     M.subtract(1.0, M.exp(M.negative(M.abs(z))))))

    def _entropy(self) -> Tensor:
        return M.add(M.log(M.multiply(self._scale + A.zeros_like(self._loc), 2.0)), 1.0)

    def _stddev(self) -> Tensor:
        return M.multiply(self._scale + A.zeros_like(self._loc), math.sqrt(2.0))


class StudentT(Distribution):
    """Student's t distribution of ``df`` degrees of freedom, ``loc`` and ``scale``."""

    def __init__(self, df: Any, loc: Any, scale: Any, validate_args: bool = False,
                 allow_nan_stats: bool = True, name: str = "StudentT"):
        p = _params(df=df, loc=loc, scale=scale)
        self._df, self._loc, self._scale = p["df"], p["loc"], p["scale"]
        super().__init__(self._df.dtype, FULLY_REPARAMETERIZED, validate_args,
                         allow_nan_stats, dict(df=df, loc=loc, scale=scale,
                                               validate_args=validate_args,
                                               allow_nan_stats=allow_nan_stats, name=name),
                         name=name)

    df = property(lambda self: self._df)
    loc = property(lambda self: self._loc)
    scale = property(lambda self: self._scale)

    def _batch_shape(self) -> TensorShape:
        return _broadcast(self._df, self._loc, self._scale)

    def _sample_n(self, shape: list, seed: Optional[int]) -> Tensor:
        full = _full(shape, self.batch_shape)
        z = R.random_normal(full, dtype=self.dtype, seed=seed)
        half = M.multiply(self._df, 0.5) + A.zeros(self.batch_shape.as_list(), self.dtype)
        g = R.random_gamma(shape, half, dtype=self.dtype,
                           seed=None if seed is None else seed + 1)
        return M.add(self._loc, M.multiply(self._scale, M.multiply(z, M.rsqrt(M.div(g, half)))))

    def _log_prob(self, x: Tensor) -> Tensor:
        v = self._df
        y = M.div(M.subtract(x, self._loc), self._scale)
        half1 = M.multiply(M.add(v, 1.0), 0.5)
        return (lgamma(half1) - lgamma(M.multiply(v, 0.5))
                - M.multiply(M.log(M.multiply(v, math.pi)), 0.5) - M.log(self._scale)
                - M.multiply(half1, M.log1p(M.div(M.square(y), v))))

    def _cdf(self, x: Tensor) -> Tensor:
        v = self._df + A.zeros_like(x)
        t = M.div(M.subtract(x, self._loc), self._scale)
        tail = M.multiply(betainc(M.multiply(v, 0.5), A.zeros_like(v) + 0.5,
                                  M.div(v, M.add(v, M.square(t)))), 0.5)
        return A.where(M.less(t, 0.0), tail, M.subtract(1.0, tail))

    def _entropy(self) -> Tensor:
        v = self._df + A.zeros_like(self._loc) + A.zeros_like(self._scale)
        half1 = M.multiply(M.add(v, 1.0), 0.5)
        return (M.multiply(half1, M.subtract(digamma(half1), digamma(M.multiply(v, 0.5))))
                + M.multiply(M.log(v), 0.5)
                + _lbeta2(M.multiply(v, 0.5), A.zeros_like(v) + 0.5) + M.log(self._scale))

    def _mean(self) -> Tensor:
        mean = self._loc + A.zeros(self.batch_shape.as_list(), self.dtype)
        return self._nan_where(M.less_equal(self._df + A.zeros_like(mean), 1.0), mean, "mean")

    def _mode(self) -> Tensor:
        return self._loc + A.zeros(self.batch_shape.as_list(), self.dtype)

    def _variance(self) -> Tensor:
        v = self._df + A.zeros(self.batch_shape.as_list(), self.dtype)
        var = M.div(M.multiply(M.square(self._scale), v), M.subtract(v, 2.0))
        inf = A.fill(A.shape(var), np.array(np.inf, self.dtype.np))
        var = A.where(M.logical_and(M.greater(v, 1.0), M.less_equal(v, 2.0)), inf, var)
        return self._nan_where(M.less_equal(v, 1.0), var, "variance")


def _logits_probs(logits: Any, probs: Any, what: str) -> tuple:
    if (logits is None) == (probs is None):
        raise ValueError(f"{what} needs exactly one of logits and probs")
    if logits is not None:
        return _params(logits=logits)["logits"], None
    return None, _params(probs=probs)["probs"]


class Bernoulli(Distribution):
    """The Bernoulli distribution of ``logits`` (log-odds) or ``probs``; draws are
    ``dtype`` (int32)."""

    def __init__(self, logits: Any = None, probs: Any = None, dtype: Any = _dtypes.int32,
                 validate_args: bool = False, allow_nan_stats: bool = True,
                 name: str = "Bernoulli"):
        lg, pr = _logits_probs(logits, probs, "Bernoulli")
        self._logits = lg if lg is not None else M.subtract(M.log(pr), M.log1p(M.negative(pr)))
        self._probs = pr if pr is not None else M.sigmoid(lg)
        super().__init__(_dtypes.as_dtype(dtype), NOT_REPARAMETERIZED, validate_args,
                         allow_nan_stats, dict(logits=logits, probs=probs, dtype=dtype,
                                               validate_args=validate_args,
                                               allow_nan_stats=allow_nan_stats, name=name),
                         name=name)

    logits = property(lambda self: self._logits)
    probs = property(lambda self: self._probs)

    def _batch_shape(self) -> TensorShape:
        return self._logits.shape

    def _value(self, value: Any) -> Tensor:
        return convert_to_tensor(value, dtype=self._logits.dtype) if not isinstance(
            value, Tensor) else A.cast(value, self._logits.dtype)

    def _sample_n(self, shape: list, seed: Optional[int]) -> Tensor:
        u = R.random_uniform(_full(shape, self.batch_shape), dtype=self._probs.dtype,
                             seed=seed)
        return A.cast(M.less(u, self._probs), self.dtype)

    def _log_prob(self, x: Tensor) -> Tensor:
        return M.subtract(M.multiply(x, self._logits), N.softplus(self._logits))

    def _cdf(self, x: Tensor) -> Tensor:
        q = M.subtract(1.0, self._probs) + A.zeros_like(x)
        return A.where(M.less(x, 0.0), A.zeros_like(q),
                       A.where(M.less(x, 1.0), q, A.ones_like(q)))

    def _entropy(self) -> Tensor:
        return M.subtract(N.softplus(self._logits), M.multiply(self._probs, self._logits))

    def _mean(self) -> Tensor:
        return self._probs

    def _variance(self) -> Tensor:
        return M.multiply(self._probs, M.subtract(1.0, self._probs))

    def _mode(self) -> Tensor:
        return A.cast(M.greater(self._probs, 0.5), self.dtype)

    def prob(self, value: Any, name: str = "prob") -> Tensor:
        return M.exp(self.log_prob(value), name=name)


@RegisterKL(Bernoulli, Bernoulli)
def _kl_bernoulli(a: Bernoulli, b: Bernoulli, name: Optional[str] = None) -> Tensor:
    pa = a.probs
    return (M.multiply(pa, M.subtract(N.softplus(M.negative(b.logits)),
                                      N.softplus(M.negative(a.logits))))
            + M.multiply(M.subtract(1.0, pa), M.subtract(N.softplus(b.logits),
                                                         N.softplus(a.logits))))


class Categorical(Distribution):
    """The categorical distribution over ``0 .. K - 1`` of ``logits`` or ``probs``
    (``[..., K]``); draws are ``dtype`` (int32)."""

    def __init__(self, logits: Any = None, probs: Any = None, dtype: Any = _dtypes.int32,
                 validate_args: bool = False, allow_nan_stats: bool = True,
                 name: str = "Categorical"):
        lg, pr = _logits_probs(logits, probs, "Categorical")
        self._logits = lg if lg is not None else M.log(pr)
        self._probs = pr if pr is not None else N.softmax(lg)
        if self._logits.shape.ndims is None or self._logits.shape.ndims < 1 or \
                not self._logits.shape.is_fully_defined():
            raise ValueError(f"Categorical needs logits/probs [..., K] of known shape, got "
                             f"{self._logits.shape}")
        super().__init__(_dtypes.as_dtype(dtype), NOT_REPARAMETERIZED, validate_args,
                         allow_nan_stats, dict(logits=logits, probs=probs, dtype=dtype,
                                               validate_args=validate_args,
                                               allow_nan_stats=allow_nan_stats, name=name),
                         name=name)

    logits = property(lambda self: self._logits)
    probs = property(lambda self: self._probs)

    @property
    def event_size(self) -> int:
        return self._logits.shape.as_list()[-1]

    def _batch_shape(self) -> TensorShape:
        return self._logits.shape[:-1]

    def _value(self, value: Any) -> Tensor:
        return convert_to_tensor(value)

    def _log_prob(self, k: Tensor) -> Tensor:
        logp = N.log_softmax(self._logits)
        k = A.cast(k, _dtypes.int32)
        onehot = A.one_hot(k, self.event_size, dtype=logp.dtype)
        return M.reduce_sum(M.multiply(onehot, logp), -1)

    def _cdf(self, k: Tensor) -> Tensor:
        k = A.cast(k, _dtypes.int32)
        below = A.cast(M.less_equal(A.range(self.event_size),
                                    A.expand_dims(k, -1)), self._probs.dtype)
        return M.reduce_sum(M.multiply(below, self._probs), -1)

    def _sample_n(self, shape: list, seed: Optional[int]) -> Tensor:
        n = int(np.prod(shape)) if shape else 1
        flat = A.reshape(self._logits, [-1, self.event_size])
        draws = R.multinomial(flat, n, seed=seed)  # [batch, n]
        draws = A.reshape(A.transpose(draws), list(shape) + self.batch_shape.as_list())
        return A.cast(draws, self.dtype)

    def _entropy(self) -> Tensor:
        return M.negative(M.reduce_sum(M.multiply(self._probs, N.log_softmax(self._logits)),
                                       -1))

    def _mode(self) -> Tensor:
        return A.cast(M.argmax(self._logits, -1), self.dtype)


@RegisterKL(Categorical, Categorical)
def _kl_categorical(a: Categorical, b: Categorical, name: Optional[str] = None) -> Tensor:
    return M.reduce_sum(M.multiply(a.probs, M.subtract(N.log_softmax(a.logits),
                                                       N.log_softmax(b.logits))), -1)
