"""``tf.metrics``: streaming metrics for evaluation, as ``(value, update_op)`` pairs.

A metric accumulates over the batches of an evaluation in local variables
(collections ``LOCAL_VARIABLES`` and ``metric_variables``): not checkpointed,
not shared with other tasks, and reset by ``tf.local_variables_initializer()``.
Running ``update_op`` once per batch folds that batch in and returns the
running value; ``value`` reads the result without changing it. The metrics
over confusion counts at thresholds (``auc`` and friends) live in
``metrics_thresholds``.
"""

from __future__ import annotations

import logging
from typing import Any, Optional, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import state_ops as S
from tensorfleet.ops.nn_ops import in_top_k
from tensorfleet.estimator.metrics_top_k import top_k_index_hits, top_k_name
from tensorfleet.estimator.metrics_thresholds import (  # noqa: F401
    auc, false_negatives_at_thresholds, false_positives_at_thresholds,
    precision_at_thresholds, recall_at_thresholds, sensitivity_at_specificity,
    specificity_at_sensitivity, true_negatives_at_thresholds, true_positives_at_thresholds)
from tensorfleet.estimator.metrics_util import METRIC_VARIABLES  # noqa: F401
from tensorfleet.estimator.metrics_util import Colls, MetricPair, broadcast_weights, collect, \
    metric_variable, safe_div, squeeze_pair, to_bool, to_float

logger = logging.getLogger(__name__)


# -- means -----------------------------------------------------------------------------------

def mean(values: Any, weights: Any = None, metrics_collections: Colls = None,
         updates_collections: Colls = None, name: Optional[str] = None) -> MetricPair:
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
    with name_scope(name, "mean"):
        v = to_float(values)
        total = metric_variable([], _dtypes.float32, "total")
        count = metric_variable([], _dtypes.float32, "count")
        w = broadcast_weights(weights, v)
        update_total = S.assign_add(total, M.reduce_sum(M.multiply(v, w)))
        update_count = S.assign_add(count, M.reduce_sum(w))
        value = safe_div(total.value(), count.value(), "value")
        update_op = safe_div(update_total, update_count, "update_op")
    collect(value, update_op, metrics_collections, updates_collections)
    return value, update_op


def mean_tensor(values: Any, weights: Any = None, metrics_collections: Colls = None,
                updates_collections: Colls = None, name: Optional[str] = None) -> MetricPair:
    """The element-wise (weighted) mean of ``values`` over every batch seen; ``values``
    must have a fully defined shape, which the result has too.

    Raises:
      ValueError: when the shape of ``values`` is not fully defined.
    """
    with name_scope(name, "mean"):
        v = to_float(values)
        if not v.shape.is_fully_defined():
            raise ValueError(f"mean_tensor: values must have a fully defined shape, got "
                             f"{v.shape} ({v.name})")
        shape = v.shape.as_list()
        total = metric_variable(shape, _dtypes.float32, "total_tensor")
        count = metric_variable(shape, _dtypes.float32, "count_tensor")
        w = broadcast_weights(weights, v)
        update_total = S.assign_add(total, M.multiply(v, w))
        update_count = S.assign_add(count, w)
        value = safe_div(total.value(), count.value(), "mean")
        update_op = safe_div(update_total, update_count, "update_op")
    collect(value, update_op, metrics_collections, updates_collections)
    return value, update_op


def accuracy(labels: Any, predictions: Any, weights: Any = None,
             metrics_collections: Colls = None, updates_collections: Colls = None,
             name: Optional[str] = None) -> MetricPair:
    """How often ``predictions`` equals ``labels`` (weighted), over every batch seen.

    ``predictions`` is cast to the dtype of ``labels`` when they differ (class
    ids from ``tf.argmax`` are int64, labels often int32).
    """
    with name_scope(name, "accuracy"):
        lab, pred = squeeze_pair(labels, predictions)
        if pred.dtype is not lab.dtype:
            pred = A.cast(pred, lab.dtype)
        is_correct = to_float(M.equal(pred, lab))
        return mean(is_correct, weights, metrics_collections, updates_collections,
                    name="accuracy_mean")


def mean_squared_error(labels: Any, predictions: Any, weights: Any = None,
                       metrics_collections: Colls = None, updates_collections: Colls = None,
                       name: Optional[str] = None) -> MetricPair:
    """The (weighted) mean of ``(predictions - labels) ** 2`` over every batch seen."""
    with name_scope(name, "mean_squared_error"):
        lab, pred = squeeze_pair(labels, predictions)
        diff = M.squared_difference(to_float(pred), to_float(lab))
        return mean(diff, weights, metrics_collections, updates_collections, name="mse")


def mean_absolute_error(labels: Any, predictions: Any, weights: Any = None,
                        metrics_collections: Colls = None, updates_collections: Colls = None,
                        name: Optional[str] = None) -> MetricPair:
    """The (weighted) mean of ``|predictions - labels|`` over every batch seen."""
    with name_scope(name, "mean_absolute_error"):
        lab, pred = squeeze_pair(labels, predictions)
        diff = M.abs(M.subtract(to_float(pred), to_float(lab)))
        return mean(diff, weights, metrics_collections, updates_collections, name="mae")


def root_mean_squared_error(labels: Any, predictions: Any, weights: Any = None,
                            metrics_collections: Colls = None,
                            updates_collections: Colls = None,
                            name: Optional[str] = None) -> MetricPair:
    """The square root of ``mean_squared_error``."""
    with name_scope(name, "root_mean_squared_error"):
        mse, update_mse = mean_squared_error(labels, predictions, weights)
        value = M.sqrt(mse)
        update_op = M.sqrt(update_mse)
    collect(value, update_op, metrics_collections, updates_collections)
    return value, update_op


def mean_relative_error(labels: Any, predictions: Any, normalizer: Any, weights: Any = None,
                        metrics_collections: Colls = None, updates_collections: Colls = None,
                        name: Optional[str] = None) -> MetricPair:
    """The (weighted) mean of ``|labels - predictions| / normalizer`` (0 where the
    normalizer is 0)."""
    with name_scope(name, "mean_relative_error"):
        lab, pred = squeeze_pair(labels, predictions)
        lab, pred, norm = to_float(lab), to_float(pred), to_float(normalizer)
        err = M.abs(M.subtract(lab, pred))
        norm = M.multiply(norm, A.ones_like(err))
        rel = A.where(M.equal(norm, 0.0), A.zeros_like(err),
                      M.truediv(err, A.where(M.equal(norm, 0.0), A.ones_like(norm), norm)))
        return mean(rel, weights, metrics_collections, updates_collections,
                    name="mean_relative_error")


def mean_cosine_distance(labels: Any, predictions: Any, dim: int, weights: Any = None,
                         metrics_collections: Colls = None, updates_collections: Colls = None,
                         name: Optional[str] = None) -> MetricPair:
    """``1 - mean(sum(labels * predictions, dim))``: the cosine distance of unit-normalized
    vectors along ``dim``, averaged over every batch seen."""
    with name_scope(name, "mean_cosine_distance"):
        lab, pred = squeeze_pair(labels, predictions)
        dots = M.reduce_sum(M.multiply(to_float(pred), to_float(lab)), axis=[dim],
                            keepdims=True)
        mean_dot, update_dot = mean(dots, weights, name="mean_cosine_distance")
        value = M.subtract(1.0, mean_dot, name="value")
        update_op = M.subtract(1.0, update_dot, name="update_op")
    collect(value, update_op, metrics_collections, updates_collections)
    return value, update_op


def percentage_below(values: Any, threshold: float, weights: Any = None,
                     metrics_collections: Colls = None, updates_collections: Colls = None,
                     name: Optional[str] = None) -> MetricPair:
    """The (weighted) fraction of ``values`` strictly below ``threshold``."""
    with name_scope(name, "percentage_below_threshold"):
        below = to_float(M.less(to_float(values), float(threshold)))
        return mean(below, weights, metrics_collections, updates_collections, name="count")


# -- counts, precision and recall ------------------------------------------------------------

def _count(cond: Tensor, weights: Any, metrics_collections: Colls, updates_collections: Colls,
           ) -> MetricPair:
    hits = to_float(cond)
    count = metric_variable([], _dtypes.float32, "count")
    update_op = S.assign_add(count, M.reduce_sum(M.multiply(hits,
                                                            broadcast_weights(weights, hits))))
    value = A.identity(count.value(), name="value")
    collect(value, update_op, metrics_collections, updates_collections)
    return value, update_op


def _bool_pair(labels: Any, predictions: Any) -> Tuple[Tensor, Tensor]:
    lab, pred = squeeze_pair(labels, predictions)
    return to_bool(lab), to_bool(pred)


def true_positives(labels: Any, predictions: Any, weights: Any = None,
                   metrics_collections: Colls = None, updates_collections: Colls = None,
                   name: Optional[str] = None) -> MetricPair:
    """Weighted count of elements where both labels and predictions are true."""
    with name_scope(name, "true_positives"):
        lab, pred = _bool_pair(labels, predictions)
        return _count(M.logical_and(lab, pred), weights, metrics_collections,
                      updates_collections)


def false_positives(labels: Any, predictions: Any, weights: Any = None,
                    metrics_collections: Colls = None, updates_collections: Colls = None,
                    name: Optional[str] = None) -> MetricPair:
    """Weighted count of elements predicted true whose label is false."""
    with name_scope(name, "false_positives"):
        lab, pred = _bool_pair(labels, predictions)
        return _count(M.logical_and(M.logical_not(lab), pred), weights, metrics_collections,
                      updates_collections)


def true_negatives(labels: Any, predictions: Any, weights: Any = None,
                   metrics_collections: Colls = None, updates_collections: Colls = None,
                   name: Optional[str] = None) -> MetricPair:
    """Weighted count of elements where both labels and predictions are false."""
    with name_scope(name, "true_negatives"):
        lab, pred = _bool_pair(labels, predictions)
        return _count(M.logical_and(M.logical_not(lab), M.logical_not(pred)), weights,
                      metrics_collections, updates_collections)


def false_negatives(labels: Any, predictions: Any, weights: Any = None,
                    metrics_collections: Colls = None, updates_collections: Colls = None,
                    name: Optional[str] = None) -> MetricPair:
    """Weighted count of elements predicted false whose label is true."""
    with name_scope(name, "false_negatives"):
        lab, pred = _bool_pair(labels, predictions)
        return _count(M.logical_and(lab, M.logical_not(pred)), weights, metrics_collections,
                      updates_collections)


def _ratio(labels: Any, predictions: Any, weights: Any, other: Any, name: Optional[str],
           default: str, metrics_collections: Colls, updates_collections: Colls) -> MetricPair:
    with name_scope(name, default):
        tp, tp_up = true_positives(labels, predictions, weights)
        o, o_up = other(labels, predictions, weights)
        value = safe_div(tp, M.add(tp, o), "value")
        update_op = safe_div(tp_up, M.add(tp_up, o_up), "update_op")
    collect(value, update_op, metrics_collections, updates_collections)
    return value, update_op


def precision(labels: Any, predictions: Any, weights: Any = None,
              metrics_collections: Colls = None, updates_collections: Colls = None,
              name: Optional[str] = None) -> MetricPair:
    """``tp / (tp + fp)`` of bool labels and predictions (0 before any positive)."""
    return _ratio(labels, predictions, weights, false_positives, name, "precision",
                  metrics_collections, updates_collections)


def recall(labels: Any, predictions: Any, weights: Any = None,
           metrics_collections: Colls = None, updates_collections: Colls = None,
           name: Optional[str] = None) -> MetricPair:
    """``tp / (tp + fn)`` of bool labels and predictions (0 before any positive label)."""
    return _ratio(labels, predictions, weights, false_negatives, name, "recall",
                  metrics_collections, updates_collections)


# -- class-id metrics ------------------------------------------------------------------------

def _class_pair(labels: Any, predictions: Any, num_classes: int, fname: str
                ) -> Tuple[Tensor, Tensor]:
    if not isinstance(num_classes, int) or num_classes < 1:
        raise ValueError(f"{fname}: num_classes must be a positive integer, got "
                         f"{num_classes!r}")
    lab, pred = squeeze_pair(labels, predictions)
    for t, what in ((lab, "labels"), (pred, "predictions")):
        if not t.dtype.is_integer:
            raise TypeError(f"{fname}: {what} must be integer class ids, got {t.dtype.name}")
    return A.cast(A.reshape(lab, [-1]), _dtypes.int32), A.cast(A.reshape(pred, [-1]),
                                                               _dtypes.int32)


def _flat_weights(weights: Any, like: Tensor) -> Tensor:
    return A.reshape(broadcast_weights(weights, like), [-1])


def mean_iou(labels: Any, predictions: Any, num_classes: int, weights: Any = None,
             metrics_collections: Colls = None, updates_collections: Colls = None,
             name: Optional[str] = None) -> MetricPair:
    """The mean over classes of intersection-over-union, from a running
    [num_classes, num_classes] confusion matrix (rows: labels, columns: predictions);
    classes never seen in labels nor predictions are left out of the mean. The
    update op returns the updated confusion matrix (float64), as in TF 1.x.

    Raises:
      ValueError: for num_classes < 1. TypeError: for non-integer ids.
    """
    with name_scope(name, "mean_iou"):
        lab, pred = _class_pair(labels, predictions, num_classes, "mean_iou")
        w = A.cast(_flat_weights(weights, convert_to_tensor(predictions)), _dtypes.float64)
        total_cm = metric_variable([num_classes, num_classes], _dtypes.float64,
                                   "total_confusion_matrix")
        cells = M.add(M.multiply(lab, num_classes), pred)
        batch_cm = A.reshape(A.unsorted_segment_sum(w, cells, num_classes * num_classes),
                             [num_classes, num_classes])
        update_cm = S.assign_add(total_cm, batch_cm)

        def compute(cm64: Tensor, out_name: str) -> Tensor:
            cm = A.cast(cm64, _dtypes.float32)
            rows, cols = M.reduce_sum(cm, 0), M.reduce_sum(cm, 1)
            diag = A.gather(A.reshape(cm, [-1]), list(range(0, num_classes * num_classes,
                                                            num_classes + 1)))
            den = rows + cols - diag
            valid = M.reduce_sum(to_float(M.not_equal(den, 0.0)))
            iou = safe_div(diag, den)
            return safe_div(M.reduce_sum(iou), valid, out_name)

        value = compute(total_cm.value(), "mean_iou")
        # As in TF 1.x, the update op returns the running confusion matrix.
        update_op = update_cm
    collect(value, update_op, metrics_collections, updates_collections)
    return value, update_op


def mean_per_class_accuracy(labels: Any, predictions: Any, num_classes: int,
                            weights: Any = None, metrics_collections: Colls = None,
                            updates_collections: Colls = None,
                            name: Optional[str] = None) -> MetricPair:
    """The mean over all ``num_classes`` classes of each class's accuracy (a class
    never seen in labels counts as 0). The update op returns the per-class
    accuracies [num_classes].

    Raises:
      ValueError: for num_classes < 1. TypeError: for non-integer ids.
    """
    with name_scope(name, "mean_accuracy"):
        lab, pred = _class_pair(labels, predictions, num_classes, "mean_per_class_accuracy")
        w = _flat_weights(weights, convert_to_tensor(predictions))
        total = metric_variable([num_classes], _dtypes.float32, "total")
        count = metric_variable([num_classes], _dtypes.float32, "count")
        correct = to_float(M.equal(lab, pred))
        update_total = S.assign_add(total, A.unsorted_segment_sum(w, lab, num_classes))
        update_count = S.assign_add(count, A.unsorted_segment_sum(M.multiply(w, correct), lab,
                                                                  num_classes))
        value = M.reduce_mean(safe_div(count.value(), total.value()), name="mean_accuracy")
        # As in TF 1.x, the update op gives the per-class accuracies, the value their mean.
        update_op = safe_div(update_count, update_total, "update_op")
    collect(value, update_op, metrics_collections, updates_collections)
    return value, update_op


# -- top-k metrics ---------------------------------------------------------------------------

def _at_k_name(prefix: str, k: int, class_id: Optional[int]) -> str:
    name = f"{prefix}_at_{k}"
    return name if class_id is None else f"{name}_class{class_id}"


def _topk_hits(labels: Any, predictions: Any, k: int, class_id: Optional[int], weights: Any,
               fname: str) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    """Per-example weighted (hits, predicted-but-wrong, missed) counts and the weights."""
    if isinstance(labels, SparseTensor):
        raise TypeError(f"{fname}: SparseTensor labels are not supported; pass dense class "
                        f"ids [batch] or [batch, num_labels] (ids outside [0, classes) "
                        f"are ignored)")
    if not isinstance(k, int) or k < 1:
        raise ValueError(f"{fname}: k must be a positive integer, got {k!r}")
    pred = to_float(predictions)
    if pred.shape.ndims != 2 or pred.shape[1] is None:
        raise ValueError(f"{fname}: predictions must be [batch, num_classes] with known "
                         f"num_classes, got {pred.shape}")
    n_classes = int(pred.shape[1])
    lab = convert_to_tensor(labels)
    if not lab.dtype.is_integer:
        raise TypeError(f"{fname}: labels must be integer class ids, got {lab.dtype.name}")
    lab = A.cast(lab, _dtypes.int32)
    if lab.shape.ndims == 1:
        lab = A.expand_dims(lab, 1)
    valid = M.logical_and(M.greater_equal(lab, 0), M.less(lab, n_classes))   # [B, L]
    safe = A.where(valid, lab, A.zeros_like(lab))
    n_labels = A.shape(lab)[1]
    batch = A.shape(lab)[0]
    if class_id is None:
        # in_top_k per label column, all columns in one call over the repeated rows.
        rows = A.reshape(A.tile(A.expand_dims(pred, 1), A.stack([1, n_labels, 1])),
                         [-1, n_classes])
        in_k = A.reshape(in_top_k(rows, A.reshape(safe, [-1]), k), A.shape(lab))
        hits = M.reduce_sum(to_float(M.logical_and(in_k, valid)), 1)
        n_valid = M.reduce_sum(to_float(valid), 1)
        wrong = float(min(k, n_classes)) - hits
        missed = n_valid - hits
    else:
        has_class = M.reduce_any(M.logical_and(valid, M.equal(lab, int(class_id))), 1)
        cls = A.fill(A.stack([batch]), int(class_id))
        predicted = in_top_k(pred, cls, k)
        hits = to_float(M.logical_and(has_class, predicted))
        wrong = to_float(M.logical_and(M.logical_not(has_class), predicted))
        missed = to_float(M.logical_and(has_class, M.logical_not(predicted)))
    w = A.reshape(broadcast_weights(weights, A.expand_dims(hits, 1)), [-1])
    return hits, wrong, missed, w


def _k_ratio(labels: Any, predictions: Any, k: int, class_id: Optional[int], weights: Any,
             other: str, prefix: str, metrics_collections: Colls, updates_collections: Colls,
             name: Optional[str], hits_fn: Any = None) -> MetricPair:
    with name_scope(name, _at_k_name(prefix, k, class_id)):
        hits, wrong, missed, w = (hits_fn or _topk_hits)(labels, predictions, k, class_id,
                                                         weights, prefix + "_at_k")
        f64 = _dtypes.float64
        tp = metric_variable([], f64, _at_k_name("true_positive", k, class_id))
        o = metric_variable([], f64, _at_k_name(other, k, class_id))
        second = wrong if other == "false_positive" else missed
        up_tp = S.assign_add(tp, A.cast(M.reduce_sum(M.multiply(hits, w)), f64))
        up_o = S.assign_add(o, A.cast(M.reduce_sum(M.multiply(second, w)), f64))
        value = safe_div(tp.value(), M.add(tp.value(), o.value()), "value")
        update_op = safe_div(up_tp, M.add(up_tp, up_o), "update_op")
    collect(value, update_op, metrics_collections, updates_collections)
    return value, update_op


def precision_at_k(labels: Any, predictions: Any, k: int, class_id: Optional[int] = None,
                   weights: Any = None, metrics_collections: Colls = None,
                   updates_collections: Colls = None, name: Optional[str] = None) -> MetricPair:
    """Of the top ``k`` classes of each row of ``predictions`` [batch, classes], the
    (weighted) fraction that are among the row's ``labels`` ([batch] or
    [batch, num_labels] ids; ids outside [0, classes) are padding). With
    ``class_id`` only predictions of that class count. float64, as TF. Classes
    tied with the k-th score count as in the top k (as ``tf.nn.in_top_k``).

    Raises:
      ValueError: for k < 1 or predictions not [batch, classes].
      TypeError: for SparseTensor or non-integer labels.
    """
    return _k_ratio(labels, predictions, k, class_id, weights, "false_positive", "precision",
                    metrics_collections, updates_collections, name)


def recall_at_k(labels: Any, predictions: Any, k: int, class_id: Optional[int] = None,
                weights: Any = None, metrics_collections: Colls = None,
                updates_collections: Colls = None, name: Optional[str] = None) -> MetricPair:
    """Of the ``labels`` of each row, the (weighted) fraction found among the row's top
    ``k`` predicted classes (see ``precision_at_k`` for shapes). float64, as TF.

    Raises:
      ValueError: for k < 1 or predictions not [batch, classes].
      TypeError: for SparseTensor or non-integer labels.
    """
    return _k_ratio(labels, predictions, k, class_id, weights, "false_negative", "recall",
                    metrics_collections, updates_collections, name)


def precision_at_top_k(labels: Any, predictions_idx: Any, k: Optional[int] = None,
                       class_id: Optional[int] = None, weights: Any = None,
                       metrics_collections: Colls = None, updates_collections: Colls = None,
                       name: Optional[str] = None) -> MetricPair:
    """``precision_at_k`` of predictions given as class ids (``predictions_idx``
    [batch, k]); ``k`` names the metric (default: the last dimension)."""
    return _k_ratio(labels, predictions_idx, top_k_name(predictions_idx, k), class_id,
                    weights, "false_positive", "precision", metrics_collections,
                    updates_collections, name, hits_fn=top_k_index_hits)


def recall_at_top_k(labels: Any, predictions_idx: Any, k: Optional[int] = None,
                    class_id: Optional[int] = None, weights: Any = None,
                    metrics_collections: Colls = None, updates_collections: Colls = None,
                    name: Optional[str] = None) -> MetricPair:
    """``recall_at_k`` of predictions given as class ids (``predictions_idx`` [batch, k])."""
    return _k_ratio(labels, predictions_idx, top_k_name(predictions_idx, k), class_id,
                    weights, "false_negative", "recall", metrics_collections,
                    updates_collections, name, hits_fn=top_k_index_hits)


# The earlier name of precision_at_k.
sparse_precision_at_k = precision_at_k


__all__ = ["precision_at_top_k", "recall_at_top_k", "sparse_precision_at_k",
           "mean", "mean_tensor", "accuracy", "mean_squared_error", "mean_absolute_error",
           "root_mean_squared_error", "mean_relative_error", "mean_cosine_distance",
           "percentage_below", "true_positives", "false_positives", "true_negatives",
           "false_negatives", "precision", "recall", "mean_iou", "mean_per_class_accuracy",
           "precision_at_k", "recall_at_k", "auc", "precision_at_thresholds",
           "recall_at_thresholds", "true_positives_at_thresholds",
           "false_positives_at_thresholds", "true_negatives_at_thresholds",
           "false_negatives_at_thresholds", "sensitivity_at_specificity",
           "specificity_at_sensitivity", "METRIC_VARIABLES"]
from tensorfleet.estimator.metrics_ranking import (  # noqa: F401,E402
    average_precision_at_k, sparse_average_precision_at_k)
__all__ += ["average_precision_at_k", "sparse_average_precision_at_k"]
