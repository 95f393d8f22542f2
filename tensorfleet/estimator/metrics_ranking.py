"""``tf.metrics.average_precision_at_k`` (alias ``sparse_average_precision_at_k``) and
``tf.contrib.metrics.f1_score``.

Average precision at k of one example: walk its top ``k`` predicted classes in order;
at each rank that holds one of its labels, take the precision of the ranks so far;
sum those and divide by ``min(k, number of labels)``. The metric is the weighted mean
over examples (local ``total`` and ``max`` accumulators, float64 as in TF).

``f1_score`` is the best F1 over ``num_thresholds`` thresholds of the confusion counts
that ``tf.metrics.auc`` accumulates.
"""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import state_ops as S
from tensorfleet.ops.nn_sampling_ops import top_k
from tensorfleet.ops.sparse_ops import sparse_tensor_to_dense
from tensorfleet.estimator.metrics_thresholds import _KEPSILON, _confusion_at_thresholds, \
    _evenly_spaced
from tensorfleet.estimator.metrics_util import Colls, MetricPair, broadcast_weights, collect, \
    metric_variable, safe_div, to_float


def _dense_labels(labels: Any, fname: str) -> Tensor:
    """Labels as int64 ``[batch, n]``; ids < 0 are padding (a SparseTensor's gaps)."""
    if isinstance(labels, SparseTensor):
        lab = sparse_tensor_to_dense(labels, default_value=-1)
    else:
        lab = convert_to_tensor(labels)
    if not lab.dtype.is_integer:
        raise TypeError(f"{fname}: labels must be integer class ids, got {lab.dtype.name}")
    lab = A.cast(lab, _dtypes.int64)
    if lab.shape.ndims == 1:
        lab = A.expand_dims(lab, 1)
    if lab.shape.ndims != 2:
        raise ValueError(f"{fname}: labels must be [batch] or [batch, num_labels], got "
                         f"{lab.shape}")
    return lab


def _average_precision(labels: Tensor, predictions: Tensor, k: int) -> Tensor:
    """Per-example average precision at ``k`` (float64 ``[batch]``)."""
    _, top = top_k(predictions, k=k)                                       # [B, k]
    top = A.cast(top, _dtypes.int64)
    valid = M.greater_equal(labels, 0)                                     # [B, L]
    match = M.logical_and(M.equal(A.expand_dims(top, 2), A.expand_dims(labels, 1)),
                          A.expand_dims(valid, 1))                         # [B, k, L]
    relevant = A.cast(M.reduce_any(match, 2), _dtypes.float64)             # [B, k]
    ranks = A.constant([float(i + 1) for i in range(k)], dtype=_dtypes.float64)
    precision = M.truediv(M.cumsum(relevant, axis=1), ranks)
    # The labels count as a set: a repeated id counts once.
    n = A.shape(labels)[1]
    pos = A.range(n)
    earlier = M.less(A.expand_dims(pos, 0), A.expand_dims(pos, 1))        # [j, i]: i < j
    same = M.logical_and(M.equal(A.expand_dims(labels, 2), A.expand_dims(labels, 1)),
                         A.expand_dims(valid, 1))                          # [B, j, i]
    repeated = M.reduce_any(M.logical_and(same, A.expand_dims(earlier, 0)), 2)
    distinct = M.logical_and(valid, M.logical_not(repeated))
    n_labels = M.reduce_sum(A.cast(distinct, _dtypes.float64), 1)
    n_relevant = M.minimum(n_labels, A.constant(float(k), dtype=_dtypes.float64))
    return safe_div(M.reduce_sum(M.multiply(precision, relevant), 1), n_relevant)


def average_precision_at_k(labels: Any, predictions: Any, k: int, weights: Any = None,
                           metrics_collections: Colls = None, updates_collections: Colls = None,
                           name: Optional[str] = None) -> MetricPair:
    """The running weighted mean of each example's average precision at ``k`` (see the
    module docstring).

    Args:
      labels: int class ids ``[batch]`` or ``[batch, num_labels]`` (negative ids are
        padding), or a SparseTensor of them.
      predictions: scores ``[batch, num_classes]``.
      k: how many top classes to look at.
      weights: per-example weights (``[batch]`` or broadcastable).

    Raises:
      ValueError: ``k`` < 1 or predictions not ``[batch, classes]``.
      TypeError: non-integer labels.
    """
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise ValueError(f"average_precision_at_k: k must be a positive integer, got {k!r}")
    pred = to_float(predictions)
    if pred.shape.ndims != 2:
        raise ValueError(f"average_precision_at_k: predictions must be [batch, num_classes], "
                         f"got {pred.shape}")
    with name_scope(name, f"average_precision_at_{k}"):
        lab = _dense_labels(labels, "average_precision_at_k")
        ap = _average_precision(lab, pred, k)
        w = A.cast(broadcast_weights(weights, to_float(ap)), _dtypes.float64)
        total = metric_variable([], _dtypes.float64, "total")
        count = metric_variable([], _dtypes.float64, "max")
        up_total = S.assign_add(total, M.reduce_sum(M.multiply(ap, w)))
        up_count = S.assign_add(count, M.reduce_sum(w))
        value = safe_div(total.value(), count.value(), "mean")
        update_op = safe_div(up_total, up_count, "update")
    collect(value, update_op, metrics_collections, updates_collections)
    return value, update_op


sparse_average_precision_at_k = average_precision_at_k


def _best_f1(tp: Tensor, fp: Tensor, fn: Tensor, name: str) -> Tensor:
    precision = M.truediv(tp, _KEPSILON + tp + fp)
    recall = M.truediv(tp, _KEPSILON + tp + fn)
    f1 = 2.0 * precision * recall / (precision + recall + _KEPSILON)
    return M.reduce_max(f1, name=name)


def f1_score(labels: Any, predictions: Any, weights: Any = None, num_thresholds: int = 200,
             metrics_collections: Colls = None, updates_collections: Colls = None,
             name: Optional[str] = None) -> MetricPair:
    """The best F1 score over ``num_thresholds`` thresholds of ``predictions`` (in
    [0, 1]) for the bool ``labels``; float32.

    Raises:
      ValueError: ``num_thresholds`` < 2, or labels and predictions of other shapes.
    """
    thresholds = _evenly_spaced(num_thresholds, "f1_score")
    with name_scope(name, "f1"):
        values, updates = _confusion_at_thresholds(labels, predictions, thresholds, weights,
                                                   ("tp", "fp", "fn"))
        value = _best_f1(values["tp"], values["fp"], values["fn"], "value")
        update_op = _best_f1(updates["tp"], updates["fp"], updates["fn"], "update")
    collect(value, update_op, metrics_collections, updates_collections)
    return value, update_op


__all__ = ["average_precision_at_k", "sparse_average_precision_at_k", "f1_score"]
