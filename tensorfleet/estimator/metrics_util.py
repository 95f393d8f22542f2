"""What every ``tf.metrics`` function shares: its local accumulator variables, safe
division, input shaping and the collections its results go to.

A metric's accumulators are local variables (collections ``LOCAL_VARIABLES``
and ``metric_variables``): not checkpointed, not shared with other tasks, and
reset by ``tf.local_variables_initializer()``.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import GraphKeys, Tensor, add_to_collections, \
    convert_to_tensor
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.variables import Variable

METRIC_VARIABLES = "metric_variables"

MetricPair = Tuple[Any, Any]
Colls = Optional[Sequence[str]]


def metric_variable(shape: Sequence[int], dtype: _dtypes.DType, name: str) -> Variable:
    """A zero-initialized local accumulator named ``<current scope>/name``."""
    return Variable(np.zeros(list(shape), dtype=dtype.np), trainable=False, name=name,
                    collections=[GraphKeys.LOCAL_VARIABLES, METRIC_VARIABLES])


def safe_div(numerator: Any, denominator: Any, name: Optional[str] = None) -> Tensor:
    """``numerator / denominator`` where the denominator is positive, else 0."""
    num = convert_to_tensor(numerator)
    den = convert_to_tensor(denominator)
    positive = M.greater(den, A.zeros_like(den))
    # Dividing by 1 where the denominator is not positive keeps numpy free of 0/0.
    ratio = M.truediv(num, A.where(positive, den, A.ones_like(den)))
    return A.where(positive, ratio, A.zeros_like(ratio), name=name)


def collect(value: Any, update_op: Any, metrics_collections: Colls,
            updates_collections: Colls) -> None:
    """Adds the value and update op to the requested collections."""
    if metrics_collections:
        add_to_collections(metrics_collections, value)
    if updates_collections:
        add_to_collections(updates_collections, update_op)


def to_float(x: Any, dtype: _dtypes.DType = _dtypes.float32) -> Tensor:
    """``x`` as a tensor of ``dtype`` (cast when it differs)."""
    t = convert_to_tensor(x)
    return t if t.dtype is dtype else A.cast(t, dtype)


def to_bool(x: Any) -> Tensor:
    """``x`` as a bool tensor (non-zero is true)."""
    t = convert_to_tensor(x)
    if t.dtype is _dtypes.bool:
        return t
    return M.not_equal(t, A.zeros_like(t))


def squeeze_pair(labels: Any, predictions: Any) -> Tuple[Tensor, Tensor]:
    """Drops a trailing size-1 dimension from whichever of the two has one more
    dimension than the other (labels [batch, 1] against predictions [batch])."""
    lab = convert_to_tensor(labels)
    pred = convert_to_tensor(predictions)
    lr, pr = lab.shape.ndims, pred.shape.ndims
    if lr is not None and pr is not None:
        if lr == pr + 1 and lab.shape[-1] in (1, None):
            lab = A.squeeze(lab, [-1])
        elif pr == lr + 1 and pred.shape[-1] in (1, None):
            pred = A.squeeze(pred, [-1])
    return lab, pred


def check_same_shape(a: Tensor, b: Tensor, what: str) -> None:
    """Raises ValueError when two statically known shapes cannot match."""
    if not a.shape.is_compatible_with(b.shape):
        raise ValueError(f"{what}: shapes {a.shape} and {b.shape} are incompatible "
                         f"({a.name}, {b.name})")


def broadcast_weights(weights: Any, values: Tensor) -> Tensor:
    """Float weights shaped like ``values`` (ones when None)."""
    ones = A.ones_like(to_float(values))
    return ones if weights is None else M.multiply(to_float(weights), ones)


__all__ = ["METRIC_VARIABLES", "MetricPair", "metric_variable", "safe_div", "collect",
           "to_float", "to_bool", "squeeze_pair", "check_same_shape", "broadcast_weights"]
