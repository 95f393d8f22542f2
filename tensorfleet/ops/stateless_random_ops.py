"""``tf.random.stateless_*``: random tensors that are a function of an explicit ``seed``
(a shape-[2] integer tensor): the same seed gives the same values, in every step and on
every task, with no state kept between steps.

The draws come from numpy's Philox counter-based generator keyed by the seed, so they
are deterministic but not the numbers TensorFlow's kernels draw for the same seed.
"""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, get_default_graph
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops import math_ops
from tensorfleet.ops.array_ops import shape_from_tensor, shape_tensor
from tensorfleet.ops.op_util import make_tensor


def _sample_shape(op: Any) -> List[TensorShape]:
    return [shape_from_tensor(op.inputs[0])]


for _t in ("StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal",
           "StatelessRandomUniformInt"):
    register_op(_t, _sample_shape)
register_op("StatelessMultinomial", lambda op: [TensorShape(
    [op.inputs[0].shape[0] if op.inputs[0].shape.ndims else None, None])])


def _seed(seed: Any) -> Tensor:
    s = convert_to_tensor(seed, name="seed")
    if s.dtype not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"stateless random ops: seed must be int32 or int64, got "
                        f"{s.dtype.name}")
    if s.shape.ndims is not None and s.shape.as_list() not in ([2], [None]):
        raise ValueError(f"stateless random ops: seed must have shape [2], got {s.shape}")
    return s


def _float(dtype: Any, what: str) -> _dtypes.DType:
    dt = _dtypes.as_dtype(dtype)
    if not dt.is_floating:
        raise ValueError(f"{what}: dtype must be a float type, got {dt.name}")
    return dt


def stateless_random_uniform(shape: Any, seed: Any, minval: Any = 0, maxval: Any = None,
                             dtype: Any = _dtypes.float32,
                             name: Optional[str] = None) -> Tensor:
    """Uniform values in ``[minval, maxval)`` determined by ``seed``; integer dtypes
    (int32, int64) need ``maxval``.

    Raises:
      ValueError: an integer dtype without ``maxval``, or another dtype.
    """
    dt = _dtypes.as_dtype(dtype)
    with get_default_graph().name_scope(name or "stateless_random_uniform"):
        s = _seed(seed)
        if dt in (_dtypes.int32, _dtypes.int64):
            if maxval is None:
                raise ValueError(f"stateless_random_uniform: maxval is needed for {dt.name}")
            lo, hi = convert_to_tensor(minval, dtype=dt), convert_to_tensor(maxval, dtype=dt)
            return make_tensor("StatelessRandomUniformInt", [shape_tensor(shape), s, lo, hi],
                               dt, {"dtype": dt})
        dt = _float(dt, "stateless_random_uniform")
        u = make_tensor("StatelessRandomUniform", [shape_tensor(shape), s], dt, {"dtype": dt})
        lo = convert_to_tensor(minval, dtype=dt)
        hi = convert_to_tensor(1 if maxval is None else maxval, dtype=dt)
        return math_ops.add(math_ops.multiply(u, math_ops.subtract(hi, lo)), lo)


def stateless_random_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0,
                            dtype: Any = _dtypes.float32,
                            name: Optional[str] = None) -> Tensor:
    """Normal values with ``mean`` and ``stddev``, determined by ``seed``."""
    dt = _float(dtype, "stateless_random_normal")
    with get_default_graph().name_scope(name or "stateless_random_normal"):
        z = make_tensor("StatelessRandomNormal", [shape_tensor(shape), _seed(seed)], dt,
                        {"dtype": dt})
        return math_ops.add(math_ops.multiply(z, convert_to_tensor(stddev, dtype=dt)),
                            convert_to_tensor(mean, dtype=dt))


def stateless_truncated_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0,
                               dtype: Any = _dtypes.float32,
                               name: Optional[str] = None) -> Tensor:
    """Normal values within two ``stddev`` of ``mean`` (others drawn again), determined
    by ``seed``."""
    dt = _float(dtype, "stateless_truncated_normal")
    with get_default_graph().name_scope(name or "stateless_truncated_normal"):
        z = make_tensor("StatelessTruncatedNormal", [shape_tensor(shape), _seed(seed)], dt,
                        {"dtype": dt})
        return math_ops.add(math_ops.multiply(z, convert_to_tensor(stddev, dtype=dt)),
                            convert_to_tensor(mean, dtype=dt))


def stateless_categorical(logits: Any, num_samples: Any, seed: Any,
                          dtype: Any = _dtypes.int64, name: Optional[str] = None) -> Tensor:
    """``num_samples`` class indices per row of ``logits`` ([batch, classes]), drawn with
    the softmax probabilities and determined by ``seed``.

    Raises:
      ValueError: logits not of rank 2, or an output dtype other than int32/int64.
    """
    dt = _dtypes.as_dtype(dtype)
    if dt not in (_dtypes.int32, _dtypes.int64):
        raise ValueError(f"stateless_categorical: dtype must be int32 or int64, got {dt.name}")
    with get_default_graph().name_scope(name or "stateless_categorical"):
        lg = convert_to_tensor(logits, name="logits")
        if lg.shape.ndims not in (None, 2):
            raise ValueError(f"stateless_categorical: logits must be [batch, classes], got "
                             f"{lg.shape}")
        n = convert_to_tensor(num_samples, dtype=_dtypes.int32, name="num_samples")
        return make_tensor("StatelessMultinomial", [lg, n, _seed(seed)], dt,
                           {"output_dtype": dt})


def stateless_multinomial(logits: Any, num_samples: Any, seed: Any,
                          output_dtype: Any = _dtypes.int64,
                          name: Optional[str] = None) -> Tensor:
    """``stateless_categorical`` under its TF 1.x name."""
    return stateless_categorical(logits, num_samples, seed, output_dtype, name)
