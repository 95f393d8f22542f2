"""``tf.metrics``: streaming metrics for evaluation, as ``(value, update_op)`` pairs.

A metric accumulates over the batches of an evaluation in local variables
(collections ``LOCAL_VARIABLES`` and ``metric_variables``): not checkpointed,
not shared with other tasks, and reset by ``tf.local_variables_initializer()``.
Running ``update_op`` once per batch folds that batch in and returns the
running value; ``value`` reads the result without changing it.
"""

from __future__ import annotations

import logging
from typing import Any, Optional, Sequence, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import GraphKeys, add_to_collections, convert_to_tensor, \
    get_default_graph

logger = logging.getLogger(__name__)

METRIC_VARIABLES = "metric_variables"

MetricPair = Tuple[Any, Any]


def _metric_variable(shape: Sequence[int], dtype: _dtypes.DType, name: str) -> Any:
    from tensorfleet.ops.variables import Variable
    return Variable(np.zeros(shape, dtype=dtype.np), trainable=False, name=name,
                    collections=[GraphKeys.LOCAL_VARIABLES, METRIC_VARIABLES])


def _safe_div(numerator: Any, denominator: Any, name: str) -> Any:
    """``numerator / denominator``, 0 while nothing has been counted."""
    from tensorfleet.ops import math_ops
    # An empty metric has total 0 and count 0: dividing by a tiny positive
    # number gives the 0 TensorFlow reports, without a 0/0 in numpy.
    return math_ops.truediv(numerator, math_ops.maximum(denominator, 1e-30), name=name)


def _collect(value: Any, update_op: Any, metrics_collections: Optional[Sequence[str]],
             updates_collections: Optional[Sequence[str]]) -> None:
    if metrics_collections:
        add_to_collections(metrics_collections, value)
    if updates_collections:
        add_to_collections(updates_collections, update_op)


def _float(x: Any) -> Any:
    from tensorfleet.ops.array_ops import cast
    t = convert_to_tensor(x)
    return t if t.dtype is _dtypes.float32 else cast(t, _dtypes.float32)


def mean(values: Any, weights: Any = None, metrics_collections: Optional[Sequence[str]] = None,
         updates_collections: Optional[Sequence[str]] = None,
         name: Optional[str] = None) -> MetricPair:
    """The (weighted) mean of ``values`` over every batch seen.

    Args:
      values: a tensor of any shape; every element counts.
      weights: None, or a tensor broadcastable to ``values`` (0 excludes an element).
      metrics_collections / updates_collections: collections to add the value /
        the update op to.
      name: the name scope of the metric's variables and ops.

    Returns:
      ``(mean, update_op)``.
    """
    from tensorfleet.ops import math_ops, state_ops
    from tensorfleet.ops.array_ops import ones_like
    g = get_default_graph()
    with g.name_scope(name or "mean"):
        v = _float(values)
        total = _metric_variable([], _dtypes.float32, "total")
        count = _metric_variable([], _dtypes.float32, "count")
        if weights is None:
            num = math_ops.reduce_sum(v)
            den = math_ops.reduce_sum(ones_like(v))
        else:
            w = math_ops.multiply(_float(weights), ones_like(v))
            num = math_ops.reduce_sum(math_ops.multiply(v, w))
            den = math_ops.reduce_sum(w)
        update_total = state_ops.assign_add(total, num)
        update_count = state_ops.assign_add(count, den)
        value = _safe_div(total, count, "value")
        update_op = _safe_div(update_total, update_count, "update_op")
    _collect(value, update_op, metrics_collections, updates_collections)
    return value, update_op


def accuracy(labels: Any, predictions: Any, weights: Any = None,
             metrics_collections: Optional[Sequence[str]] = None,
             updates_collections: Optional[Sequence[str]] = None,
             name: Optional[str] = None) -> MetricPair:
    """How often ``predictions`` equals ``labels`` (weighted), over every batch seen.

    ``predictions`` is cast to the dtype of ``labels`` when they differ (class
    ids from ``tf.argmax`` are int64, labels often int32).

    Returns:
      ``(accuracy, update_op)``.
    """
    from tensorfleet.ops import math_ops
    from tensorfleet.ops.array_ops import cast, reshape
    g = get_default_graph()
    with g.name_scope(name or "accuracy"):
        lab = convert_to_tensor(labels)
        pred = convert_to_tensor(predictions)
        if pred.dtype is not lab.dtype:
            pred = cast(pred, lab.dtype)
        if lab.shape.ndims is not None and pred.shape.ndims is not None and \
                lab.shape.ndims == pred.shape.ndims + 1:
            lab = reshape(lab, [-1])  # labels of shape [batch, 1] against [batch]
        is_correct = _float(math_ops.equal(pred, lab))
        return mean(is_correct, weights, metrics_collections, updates_collections,
                    name="accuracy_mean")


def mean_squared_error(labels: Any, predictions: Any, weights: Any = None,
                       metrics_collections: Optional[Sequence[str]] = None,
                       updates_collections: Optional[Sequence[str]] = None,
                       name: Optional[str] = None) -> MetricPair:
    """The (weighted) mean of ``(predictions - labels) ** 2`` over every batch seen."""
    from tensorfleet.ops import math_ops
    g = get_default_graph()
    with g.name_scope(name or "mean_squared_error"):
        diff = math_ops.squared_difference(_float(predictions), _float(labels))
        return mean(diff, weights, metrics_collections, updates_collections, name="mse")


def mean_absolute_error(labels: Any, predictions: Any, weights: Any = None,
                        metrics_collections: Optional[Sequence[str]] = None,
                        updates_collections: Optional[Sequence[str]] = None,
                        name: Optional[str] = None) -> MetricPair:
    """The (weighted) mean of ``|predictions - labels|`` over every batch seen."""
    from tensorfleet.ops import math_ops
    g = get_default_graph()
    with g.name_scope(name or "mean_absolute_error"):
        diff = math_ops.abs(math_ops.subtract(_float(predictions), _float(labels)))
        return mean(diff, weights, metrics_collections, updates_collections, name="mae")


def root_mean_squared_error(labels: Any, predictions: Any, weights: Any = None,
                            metrics_collections: Optional[Sequence[str]] = None,
                            updates_collections: Optional[Sequence[str]] = None,
                            name: Optional[str] = None) -> MetricPair:
    """The square root of ``mean_squared_error``."""
    from tensorfleet.ops import math_ops
    g = get_default_graph()
    with g.name_scope(name or "root_mean_squared_error"):
        mse, update_mse = mean_squared_error(labels, predictions, weights)
        value = math_ops.sqrt(mse)
        update_op = math_ops.sqrt(update_mse)
    _collect(value, update_op, metrics_collections, updates_collections)
    return value, update_op


__all__ = ["mean", "accuracy", "mean_squared_error", "mean_absolute_error",
           "root_mean_squared_error", "METRIC_VARIABLES"]
