"""Random ops: normal, truncated normal, uniform, shuffle, multinomial (categorical) and
gamma sampling.

Seeding follows TF 1.x: ``framework.graph.get_seed(seed)`` turns the graph seed
and the op seed into the op's ``seed``/``seed2`` attrs. With neither set the op is
nondeterministic; otherwise a new session replays the same sequence, while
successive runs in one session keep drawing new values (the generator lives in
the op's per-session kernel state).
"""

from __future__ import annotations

import logging
from typing import Any, Dict, List, Optional

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, get_default_graph, get_seed
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops.array_ops import shape_from_tensor, shape_tensor, zeros_like
from tensorfleet.ops.op_util import const_value, make_tensor, same_shape
from tensorfleet.ops import math_ops

logger = logging.getLogger(__name__)


def _multinomial_shape(op: Any) -> List[TensorShape]:
    logits = op.inputs[0].shape
    n = const_value(op.inputs[1])
    if logits.ndims is not None and logits.ndims != 2:
        raise ValueError(f"logits must be 2-D [batch_size, num_classes], got shape {logits}")
    batch = logits[0] if logits.ndims == 2 else None
    return [TensorShape([batch, None if n is None else int(n)])]


def _from_shape_input(op: Any) -> List[TensorShape]:
    s = op.inputs[0]
    if s.shape.ndims not in (None, 1):
        raise ValueError(f"shape must be a vector, got a tensor of shape {s.shape}")
    return [shape_from_tensor(s)]


for _name in ("RandomStandardNormal", "TruncatedNormal", "RandomUniform", "RandomUniformInt"):
    register_op(_name, _from_shape_input, stateful=True)
register_op("RandomShuffle", same_shape, stateful=True)
register_op("Multinomial", _multinomial_shape, stateful=True)
register_op("RandomGamma", lambda op: [shape_from_tensor(op.inputs[0]).concatenate(
    op.inputs[1].shape)], stateful=True)
register_op("RandomGammaGrad", lambda op: [op.inputs[1].shape])
register_op("RandomPoissonV2", lambda op: [shape_from_tensor(op.inputs[0]).concatenate(
    op.inputs[1].shape)], stateful=True)


def _seed_attrs(seed: Optional[int]) -> Dict[str, Any]:
    graph_seed, op_seed = get_seed(seed)
    return {"seed": None if graph_seed is None else int(graph_seed),
            "seed2": None if op_seed is None else int(op_seed)}


def _float_dtype(dtype: Any, fn: str) -> _dtypes.DType:
    dt = _dtypes.as_dtype(dtype)
    if not dt.is_floating:
        raise ValueError(f"Invalid dtype {dt.name} for {fn}: a floating point type is required")
    return dt


def _is_number(v: Any, value: float) -> bool:
    return not isinstance(v, Tensor) and isinstance(v, (int, float)) and float(v) == value


def _scale_shift(x: Tensor, scale: Any, shift: Any) -> Tensor:
    """``x * scale + shift``, skipping the multiply by 1 and the add of 0."""
    if not _is_number(scale, 1.0):
        x = math_ops.multiply(x, convert_to_tensor(scale, dtype=x.dtype))
    if not _is_number(shift, 0.0):
        x = math_ops.add(x, convert_to_tensor(shift, dtype=x.dtype))
    return x


def _sample(op_type: str, shape: Any, dt: _dtypes.DType, seed: Optional[int],
            inputs: Optional[list] = None, attrs: Optional[dict] = None) -> Tensor:
    a = {"dtype": dt}
    a.update(attrs or {})
    a.update(_seed_attrs(seed))
    return make_tensor(op_type, [shape_tensor(shape)] + list(inputs or []), dt, a, name=op_type)


def random_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = _dtypes.float32,
                  seed: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    """Samples from a normal distribution with the given ``mean`` and ``stddev``."""
    dt = _float_dtype(dtype, "random_normal")
    with get_default_graph().name_scope(name or "random_normal"):
        x = _sample("RandomStandardNormal", shape, dt, seed)
        return _scale_shift(x, stddev, mean)


def truncated_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0,
                     dtype: Any = _dtypes.float32, seed: Optional[int] = None,
                     name: Optional[str] = None) -> Tensor:
    """Normal samples, each one beyond 2 standard deviations redrawn until it is within."""
    dt = _float_dtype(dtype, "truncated_normal")
    with get_default_graph().name_scope(name or "truncated_normal"):
        x = _sample("TruncatedNormal", shape, dt, seed)
        return _scale_shift(x, stddev, mean)


def random_uniform(shape: Any, minval: Any = 0, maxval: Any = None,
                   dtype: Any = _dtypes.float32, seed: Optional[int] = None,
                   name: Optional[str] = None) -> Tensor:
    """Uniform samples in ``[minval, maxval)``; integer dtypes require ``maxval``."""
    dt = _dtypes.as_dtype(dtype)
    with get_default_graph().name_scope(name or "random_uniform"):
        if dt.is_integer:
            if dt not in (_dtypes.int32, _dtypes.int64):
                raise ValueError(f"Invalid dtype {dt.name} for random_uniform: expected a "
                                 f"float type, int32 or int64")
            if maxval is None:
                raise ValueError(f"Must specify maxval for integer dtype {dt!r}")
            lo = convert_to_tensor(minval, dtype=dt)
            hi = convert_to_tensor(maxval, dtype=dt)
            for t, what in ((lo, "minval"), (hi, "maxval")):
                if t.shape.ndims not in (None, 0):
                    raise ValueError(f"{what} must be a scalar, got shape {t.shape}")
            lv, hv = const_value(lo), const_value(hi)
            if lv is not None and hv is not None and not lv < hv:
                raise ValueError(f"Need minval < maxval, got {lv} >= {hv}")
            return _sample("RandomUniformInt", shape, dt, seed, [lo, hi], {"Tout": dt})
        dt = _float_dtype(dt, "random_uniform")
        x = _sample("RandomUniform", shape, dt, seed)
        if maxval is None:
            maxval = 1
        if not isinstance(minval, Tensor) and not isinstance(maxval, Tensor):
            return _scale_shift(x, float(maxval) - float(minval), float(minval))
        lo = convert_to_tensor(minval, dtype=dt)
        hi = convert_to_tensor(maxval, dtype=dt)
        return math_ops.add(math_ops.multiply(x, math_ops.subtract(hi, lo)), lo)


def random_shuffle(value: Any, seed: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    """``value`` with its first dimension randomly permuted."""
    x = convert_to_tensor(value)
    return make_tensor("RandomShuffle", [x], x.dtype, _seed_attrs(seed),
                       name=name or "RandomShuffle")


def multinomial(logits: Any, num_samples: Any, seed: Optional[int] = None,
                name: Optional[str] = None, output_dtype: Any = _dtypes.int64) -> Tensor:
    """Class indices drawn from the categorical distributions given by rows of ``logits``."""
    lg = convert_to_tensor(logits)
    if not lg.dtype.is_floating:
        raise TypeError(f"logits of multinomial must be floating point, got {lg.dtype.name}")
    dt = _dtypes.as_dtype(output_dtype)
    if dt not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"output_dtype of multinomial must be int32 or int64, got {dt.name}")
    n = num_samples if isinstance(num_samples, Tensor) else convert_to_tensor(
        num_samples, dtype=_dtypes.int32)
    attrs = {"output_dtype": dt}
    attrs.update(_seed_attrs(seed))
    return make_tensor("Multinomial", [lg, n], dt, attrs, name=name or "Multinomial")


def categorical(logits: Any, num_samples: Any, dtype: Any = None, seed: Optional[int] = None,
                name: Optional[str] = None) -> Tensor:
    """``tf.random.categorical``: ``multinomial`` with the index dtype given as ``dtype``
    (int64 by default)."""
    return multinomial(logits, num_samples, seed=seed, name=name,
                       output_dtype=_dtypes.int64 if dtype is None else dtype)


def random_gamma(shape: Any, alpha: Any, beta: Any = None, dtype: Any = _dtypes.float32,
                 seed: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    """Gamma samples of shape ``shape + broadcast(alpha, beta).shape``: for each alpha
    (concentration) and beta (rate, default 1), ``shape`` draws of ``Gamma(alpha) /
    beta``, never below the dtype's smallest normal number. Differentiable with respect
    to ``alpha`` (implicit reparameterisation, ``gradients/random_grad.py``) and ``beta``.

    Raises:
      ValueError: a non-float ``dtype``.
    """
    dt = _dtypes.as_dtype(dtype)
    if dt not in (_dtypes.float16, _dtypes.float32, _dtypes.float64):
        raise ValueError(f"Invalid dtype {dt.name} for random_gamma: float16, float32 or "
                         f"float64 is required")
    with get_default_graph().name_scope(name or "random_gamma"):
        a = convert_to_tensor(alpha, dtype=dt, name="alpha")
        b = convert_to_tensor(1 if beta is None else beta, dtype=dt, name="beta")
        a_b = math_ops.add(a, zeros_like(b))
        attrs = {"T": dt}
        attrs.update(_seed_attrs(seed))
        x = make_tensor("RandomGamma", [shape_tensor(shape), a_b], dt, attrs, name="RandomGamma")
        tiny = convert_to_tensor(float(np.finfo(dt.np).tiny), dtype=dt)
        return math_ops.maximum(tiny, math_ops.divide(x, b))


def random_poisson(lam: Any, shape: Any, dtype: Any = _dtypes.float32,
                   seed: Optional[int] = None, name: Optional[str] = None) -> Tensor:
    """Poisson samples of shape ``shape + lam.shape``: for each rate in ``lam``, ``shape``
    draws, as ``dtype`` (a float or integer type). Not differentiable.

    Raises:
      ValueError: a ``dtype`` that is neither float nor integer.
    """
    dt = _dtypes.as_dtype(dtype)
    if not (dt.is_floating or dt in (_dtypes.int32, _dtypes.int64)):
        raise ValueError(f"Invalid dtype {dt.name} for random_poisson: float16, float32, "
                         f"float64, int32 or int64 is required")
    with get_default_graph().name_scope(name or "random_poisson"):
        rate = convert_to_tensor(lam, name="lam")
        if not rate.dtype.is_floating and rate.dtype not in (_dtypes.int32, _dtypes.int64):
            raise TypeError(f"random_poisson: lam must be a float or integer tensor, got "
                            f"{rate.dtype.name}")
        attrs = {"dtype": dt, "R": rate.dtype}
        attrs.update(_seed_attrs(seed))
        return make_tensor("RandomPoissonV2", [shape_tensor(shape), rate], dt, attrs,
                           name="RandomPoissonV2")


__all__ = ["random_normal", "truncated_normal", "random_uniform", "random_shuffle",
           "multinomial", "random_gamma", "random_poisson"]
