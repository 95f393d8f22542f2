"""``tf.nn.experimental.stateless_dropout`` (the mask a function of a seed) and
``general_dropout`` (the mask drawn by a caller's uniform sampler)."""

from __future__ import annotations

from typing import Any, Callable, Optional

from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.op_util import const_value
from tensorfleet.ops.stateless_random_distributions import check_alg
from tensorfleet.ops.stateless_random_ops import stateless_random_uniform


def _dropout(x: Any, rate: Any, noise_shape: Any, sample: Callable[[Any, Any], Tensor],
             name: Optional[str], default: str) -> Tensor:
    with name_scope(name, default):
        t = convert_to_tensor(x)
        if not t.dtype.is_floating:
            raise ValueError(f"{default} takes a floating-point tensor, got {t.dtype.name}")
        r = convert_to_tensor(rate, dtype=t.dtype)
        rv = const_value(r)
        if rv is not None and not 0.0 <= float(rv) < 1.0:
            raise ValueError(f"rate must be a scalar in [0, 1), got {float(rv)}")
        shape = A.shape(t) if noise_shape is None else noise_shape
        keep = M.greater_equal(sample(shape, t.dtype), r)
        scale = M.reciprocal(M.subtract(A.ones_like(r), r))
        return M.multiply(M.multiply(t, scale), A.cast(keep, t.dtype))


def stateless_dropout(x: Any, rate: Any, seed: Any, rng_alg: Any = None,
                      noise_shape: Any = None, name: Optional[str] = None) -> Tensor:
    """Dropout whose mask is determined by ``seed`` (``[2]`` ints): elements are zeroed
    with probability ``rate`` and the rest scaled by ``1 / (1 - rate)``."""
    check_alg(rng_alg if rng_alg is not None else "auto_select")
    return _dropout(x, rate, noise_shape,
                    lambda shape, dt: stateless_random_uniform(shape, seed, dtype=dt), name,
                    "stateless_dropout")


def general_dropout(x: Any, rate: Any, uniform_sampler: Callable, noise_shape: Any = None,
                    name: Optional[str] = None) -> Tensor:
    """Dropout with the mask from ``uniform_sampler(shape=..., dtype=...)``, which must
    return uniform values in ``[0, 1)``."""
    if not callable(uniform_sampler):
        raise TypeError("uniform_sampler must be callable")
    return _dropout(x, rate, noise_shape,
                    lambda shape, dt: uniform_sampler(shape=shape, dtype=dt), name,
                    "general_dropout")
