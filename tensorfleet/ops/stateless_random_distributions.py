"""More of ``tf.random``'s stateless ops: binomial, gamma, Poisson and parameterized
truncated normal draws, full-range integers, seed derivation (``fold_in`` / ``split``),
``stateless_shuffle`` and ``index_shuffle``.

As the other stateless ops, each draw is a function of its ``seed`` (numpy's Philox keyed
by it), the same on every run and task, though not TensorFlow's numbers. The
distribution parameters broadcast against the trailing dimensions of ``shape``.
"""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.array_ops import shape_from_tensor, shape_tensor
from tensorfleet.ops.op_util import make_tensor, same_shape
from tensorfleet.ops.stateless_random_ops import _seed

_ALGORITHMS = ("auto_select", "philox", "threefry", 1, 2, 3)


def _sample_shape(op: Any) -> List[TensorShape]:
    return [shape_from_tensor(op.inputs[0])]


for _t in ("StatelessRandomBinomial", "StatelessRandomGammaV2", "StatelessRandomPoisson",
           "StatelessParameterizedTruncatedNormal", "StatelessRandomUniformFullInt"):
    register_op(_t, _sample_shape)
register_op("StatelessShuffle", same_shape)
register_op("RandomIndexShuffle", same_shape)


def check_alg(alg: Any) -> None:
    """Refuses an algorithm name TensorFlow does not have."""
    key = alg.value if hasattr(alg, "value") else alg
    if isinstance(key, str):
        key = key.lower()
    if key not in _ALGORITHMS:
        raise ValueError(f"Unknown random algorithm {alg!r}; expected 'philox', 'threefry' "
                         f"or 'auto_select'")


def _check_int(dt: _dtypes.DType, what: str, allowed: tuple) -> None:
    if dt not in allowed:
        raise ValueError(f"{what}: dtype must be one of {[d.name for d in allowed]}, got "
                         f"{dt.name}")


def stateless_random_uniform_full_int(shape: Any, seed: Any, dtype: Any = _dtypes.uint64,
                                      alg: Any = "auto_select",
                                      name: Optional[str] = None) -> Tensor:
    """Integers over the whole range of ``dtype`` (int32, int64, uint32, uint64)."""
    check_alg(alg)
    dt = _dtypes.as_dtype(dtype)
    _check_int(dt, "stateless_random_uniform_full_int",
               (_dtypes.int32, _dtypes.int64, _dtypes.uint32, _dtypes.uint64))
    return make_tensor("StatelessRandomUniformFullInt", [shape_tensor(shape), _seed(seed)],
                       dt, {"dtype": dt}, name=name or "StatelessRandomUniformFullInt")


def stateless_random_binomial(shape: Any, seed: Any, counts: Any, probs: Any,
                              output_dtype: Any = _dtypes.int32,
                              name: Optional[str] = None) -> Tensor:
    """Binomial draws: successes in ``counts`` trials of probability ``probs``."""
    dt = _dtypes.as_dtype(output_dtype)
    _check_int(dt, "stateless_binomial", (_dtypes.int32, _dtypes.int64, _dtypes.float16,
                                          _dtypes.float32, _dtypes.float64))
    with name_scope(name, "stateless_random_binomial"):
        c = convert_to_tensor(counts)
        p = convert_to_tensor(probs, dtype=c.dtype if c.dtype.is_floating else None)
        return make_tensor("StatelessRandomBinomial", [shape_tensor(shape), _seed(seed), c, p],
                           dt, {"dtype": dt, "T": c.dtype})


def stateless_random_gamma(shape: Any, seed: Any, alpha: Any, beta: Any = None,
                           dtype: Any = _dtypes.float32,
                           name: Optional[str] = None) -> Tensor:
    """Gamma draws of concentration ``alpha`` and rate ``beta`` (default 1); the
    gradient with respect to ``alpha`` is the implicit reparameterization one."""
    dt = _dtypes.as_dtype(dtype)
    if not dt.is_floating:
        raise ValueError(f"stateless_gamma: dtype must be a float type, got {dt.name}")
    with name_scope(name, "stateless_random_gamma"):
        a = convert_to_tensor(alpha, dtype=dt)
        out = make_tensor("StatelessRandomGammaV2", [shape_tensor(shape), _seed(seed), a], dt,
                          {"dtype": dt})
        return out if beta is None else M.div(out, convert_to_tensor(beta, dtype=dt))


def stateless_random_poisson(shape: Any, seed: Any, lam: Any, dtype: Any = _dtypes.int32,
                             name: Optional[str] = None) -> Tensor:
    """Poisson draws of rate ``lam``."""
    dt = _dtypes.as_dtype(dtype)
    _check_int(dt, "stateless_poisson", (_dtypes.int32, _dtypes.int64, _dtypes.float16,
                                         _dtypes.float32, _dtypes.float64))
    with name_scope(name, "stateless_random_poisson"):
        lam_t = convert_to_tensor(lam)
        if not lam_t.dtype.is_floating:
            lam_t = A.cast(lam_t, _dtypes.float32)
        return make_tensor("StatelessRandomPoisson", [shape_tensor(shape), _seed(seed), lam_t],
                           dt, {"dtype": dt})


def stateless_parameterized_truncated_normal(shape: Any, seed: Any, means: Any = 0.0,
                                             stddevs: Any = 1.0, minvals: Any = -2.0,
                                             maxvals: Any = 2.0,
                                             name: Optional[str] = None) -> Tensor:
    """Normal draws of ``means`` and ``stddevs`` restricted to ``[minvals, maxvals]``."""
    with name_scope(name, "stateless_parameterized_truncated_normal"):
        m = convert_to_tensor(means)
        dt = m.dtype if m.dtype.is_floating else _dtypes.float32
        params = [convert_to_tensor(v, dtype=dt) for v in (means, stddevs, minvals, maxvals)]
        return make_tensor("StatelessParameterizedTruncatedNormal",
                           [shape_tensor(shape), _seed(seed)] + params, dt, {"dtype": dt})


def stateless_fold_in(seed: Any, data: Any, alg: Any = "auto_select") -> Tensor:
    """A new seed made from ``seed`` and the integer ``data`` (e.g. a step or a task id):
    ``[a draw of seed, data]``."""
    check_alg(alg)
    s = _seed(seed)
    d = convert_to_tensor(data, dtype=s.dtype)
    first = stateless_random_uniform_full_int([], s, dtype=s.dtype)
    return A.stack([first, d])


def stateless_split(seed: Any, num: int = 2, alg: Any = "auto_select") -> Tensor:
    """``num`` new seeds (``[num, 2]``) derived from ``seed``."""
    check_alg(alg)
    s = _seed(seed)
    return stateless_random_uniform_full_int([int(num), 2], s, dtype=s.dtype)


def stateless_shuffle(value: Any, seed: Any, alg: Any = "auto_select",
                      name: Optional[str] = None) -> Tensor:
    """``value`` with its first dimension permuted as ``seed`` determines."""
    check_alg(alg)
    v = convert_to_tensor(value)
    return make_tensor("StatelessShuffle", [v, _seed(seed)], v.dtype,
                       name=name or "StatelessShuffle")


def index_shuffle(index: Any, seed: Any, max_index: Any) -> Tensor:
    """``random_index_shuffle`` with four rounds."""
    return random_index_shuffle(index, seed, max_index)


def random_index_shuffle(index: Any, seed: Any, max_index: Any, rounds: int = 4,
                         name: Optional[str] = None) -> Tensor:
    """Where each ``index`` in ``[0, max_index]`` goes under a random permutation of
    that range fixed by ``seed`` (``[3]``): a bijection computed per index (a keyed Feistel
    network with cycle walking), without materializing the permutation."""
    i = convert_to_tensor(index)
    if not i.dtype.is_integer:
        raise TypeError(f"index_shuffle: index must be an integer tensor, got {i.dtype.name}")
    s = convert_to_tensor(seed)
    if s.shape.ndims is not None and s.shape.as_list() != [3]:
        raise ValueError(f"index_shuffle: seed must have shape [3], got {s.shape}")
    if int(rounds) < 1:
        raise ValueError(f"random_index_shuffle: rounds must be positive, got {rounds}")
    m = convert_to_tensor(max_index, dtype=i.dtype)
    return make_tensor("RandomIndexShuffle", [i, s, m], i.dtype, {"rounds": int(rounds)},
                       name=name or "RandomIndexShuffle")
