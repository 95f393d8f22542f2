"""``tf.contrib.metrics``: the ``streaming_*`` forms of the ``tf.metrics`` functions.

They compute the same ``(value, update_op)`` pairs; a few take their arguments
in the older order (``predictions`` before ``labels``), as TF 1.x's did.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.estimator import metrics as _m
from tensorfleet.framework.graph import convert_to_tensor, name_scope
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M

MetricPair = Tuple[Any, Any]
Colls = Optional[Sequence[str]]


def streaming_mean(values: Any, weights: Any = None, metrics_collections: Colls = None,
                   updates_collections: Colls = None, name: Optional[str] = None) -> MetricPair:
    """``tf.metrics.mean``."""
    return _m.mean(values, weights, metrics_collections, updates_collections, name)


def streaming_accuracy(predictions: Any, labels: Any, weights: Any = None,
                       metrics_collections: Colls = None, updates_collections: Colls = None,
                       name: Optional[str] = None) -> MetricPair:
    """``tf.metrics.accuracy`` with predictions first."""
    return _m.accuracy(labels, predictions, weights, metrics_collections, updates_collections,
                       name)


def streaming_mean_squared_error(predictions: Any, labels: Any, weights: Any = None,
                                 metrics_collections: Colls = None,
                                 updates_collections: Colls = None,
                                 name: Optional[str] = None) -> MetricPair:
    """``tf.metrics.mean_squared_error`` with predictions first."""
    return _m.mean_squared_error(labels, predictions, weights, metrics_collections,
                                 updates_collections, name)


def streaming_mean_absolute_error(predictions: Any, labels: Any, weights: Any = None,
                                  metrics_collections: Colls = None,
                                  updates_collections: Colls = None,
                                  name: Optional[str] = None) -> MetricPair:
    """``tf.metrics.mean_absolute_error`` with predictions first."""
    return _m.mean_absolute_error(labels, predictions, weights, metrics_collections,
                                  updates_collections, name)


def streaming_root_mean_squared_error(predictions: Any, labels: Any, weights: Any = None,
                                      metrics_collections: Colls = None,
                                      updates_collections: Colls = None,
                                      name: Optional[str] = None) -> MetricPair:
    """``tf.metrics.root_mean_squared_error`` with predictions first."""
    return _m.root_mean_squared_error(labels, predictions, weights, metrics_collections,
                                      updates_collections, name)


def _swap(metric: Any, predictions: Any, labels: Any, *args: Any, **kwargs: Any) -> MetricPair:
    return metric(labels, predictions, *args, **kwargs)


def streaming_true_positives(predictions: Any, labels: Any, weights: Any = None,
                             metrics_collections: Colls = None,
                             updates_collections: Colls = None,
                             name: Optional[str] = None) -> MetricPair:
    """``tf.metrics.true_positives`` with predictions first."""
    return _swap(_m.true_positives, predictions, labels, weights, metrics_collections,
                 updates_collections, name)


def streaming_false_positives(predictions: Any, labels: Any, weights: Any = None,
                              metrics_collections: Colls = None,
                              updates_collections: Colls = None,
                              name: Optional[str] = None) -> MetricPair:
    """``tf.metrics.false_positives`` with predictions first."""
    return _swap(_m.false_positives, predictions, labels, weights, metrics_collections,
                 updates_collections, name)


def streaming_true_negatives(predictions: Any, labels: Any, weights: Any = None,
                             metrics_collections: Colls = None,
                             updates_collections: Colls = None,
                             name: Optional[str] = None) -> MetricPair:
    """``tf.metrics.true_negatives`` with predictions first."""
    return _swap(_m.true_negatives, predictions, labels, weights, metrics_collections,
                 updates_collections, name)


def streaming_false_negatives(predictions: Any, labels: Any, weights: Any = None,
                              metrics_collections: Colls = None,
                              updates_collections: Colls = None,
                              name: Optional[str] = None) -> MetricPair:
    """``tf.metrics.false_negatives`` with predictions first."""
    return _swap(_m.false_negatives, predictions, labels, weights, metrics_collections,
                 updates_collections, name)


def streaming_precision(predictions: Any, labels: Any, weights: Any = None,
                        metrics_collections: Colls = None, updates_collections: Colls = None,
                        name: Optional[str] = None) -> MetricPair:
    """``tf.metrics.precision`` with predictions first."""
    return _swap(_m.precision, predictions, labels, weights, metrics_collections,
                 updates_collections, name)


def streaming_recall(predictions: Any, labels: Any, weights: Any = None,
                     metrics_collections: Colls = None, updates_collections: Colls = None,
                     name: Optional[str] = None) -> MetricPair:
    """``tf.metrics.recall`` with predictions first."""
    return _swap(_m.recall, predictions, labels, weights, metrics_collections,
                 updates_collections, name)


def streaming_auc(predictions: Any, labels: Any, weights: Any = None,
                  num_thresholds: int = 200, metrics_collections: Colls = None,
                  updates_collections: Colls = None, curve: str = "ROC",
                  name: Optional[str] = None,
                  summation_method: str = "trapezoidal") -> MetricPair:
    """``tf.metrics.auc`` with predictions first."""
    return _m.auc(labels, predictions, weights, num_thresholds, metrics_collections,
                  updates_collections, curve, name, summation_method)


def streaming_precision_at_thresholds(predictions: Any, labels: Any,
                                      thresholds: Sequence[float], weights: Any = None,
                                      metrics_collections: Colls = None,
                                      updates_collections: Colls = None,
                                      name: Optional[str] = None) -> MetricPair:
    """``tf.metrics.precision_at_thresholds`` with predictions first."""
    return _swap(_m.precision_at_thresholds, predictions, labels, thresholds, weights,
                 metrics_collections, updates_collections, name)


def streaming_recall_at_thresholds(predictions: Any, labels: Any,
                                   thresholds: Sequence[float], weights: Any = None,
                                   metrics_collections: Colls = None,
                                   updates_collections: Colls = None,
                                   name: Optional[str] = None) -> MetricPair:
    """``tf.metrics.recall_at_thresholds`` with predictions first."""
    return _swap(_m.recall_at_thresholds, predictions, labels, thresholds, weights,
                 metrics_collections, updates_collections, name)


def streaming_sensitivity_at_specificity(predictions: Any, labels: Any, specificity: float,
                                         weights: Any = None, num_thresholds: int = 200,
                                         metrics_collections: Colls = None,
                                         updates_collections: Colls = None,
                                         name: Optional[str] = None) -> MetricPair:
    """``tf.metrics.sensitivity_at_specificity`` with predictions first."""
    return _swap(_m.sensitivity_at_specificity, predictions, labels, specificity, weights,
                 num_thresholds, metrics_collections, updates_collections, name)


def streaming_specificity_at_sensitivity(predictions: Any, labels: Any, sensitivity: float,
                                         weights: Any = None, num_thresholds: int = 200,
                                         metrics_collections: Colls = None,
                                         updates_collections: Colls = None,
                                         name: Optional[str] = None) -> MetricPair:
    """``tf.metrics.specificity_at_sensitivity`` with predictions first."""
    return _swap(_m.specificity_at_sensitivity, predictions, labels, sensitivity, weights,
                 num_thresholds, metrics_collections, updates_collections, name)


def streaming_mean_iou(predictions: Any, labels: Any, num_classes: int, weights: Any = None,
                       metrics_collections: Colls = None, updates_collections: Colls = None,
                       name: Optional[str] = None) -> MetricPair:
    """``tf.metrics.mean_iou`` with predictions first."""
    return _swap(_m.mean_iou, predictions, labels, num_classes, weights, metrics_collections,
                 updates_collections, name)


def streaming_mean_relative_error(predictions: Any, labels: Any, normalizer: Any,
                                  weights: Any = None, metrics_collections: Colls = None,
                                  updates_collections: Colls = None,
                                  name: Optional[str] = None) -> MetricPair:
    """``tf.metrics.mean_relative_error`` with predictions first."""
    return _swap(_m.mean_relative_error, predictions, labels, normalizer, weights,
                 metrics_collections, updates_collections, name)


def streaming_mean_cosine_distance(predictions: Any, labels: Any, dim: int,
                                   weights: Any = None, metrics_collections: Colls = None,
                                   updates_collections: Colls = None,
                                   name: Optional[str] = None) -> MetricPair:
    """``tf.metrics.mean_cosine_distance`` with predictions first."""
    return _swap(_m.mean_cosine_distance, predictions, labels, dim, weights,
                 metrics_collections, updates_collections, name)


def streaming_percentage_less(values: Any, threshold: float, weights: Any = None,
                              metrics_collections: Colls = None,
                              updates_collections: Colls = None,
                              name: Optional[str] = None) -> MetricPair:
    """``tf.metrics.percentage_below``."""
    return _m.percentage_below(values, threshold, weights, metrics_collections,
                               updates_collections, name)


def streaming_mean_tensor(values: Any, weights: Any = None, metrics_collections: Colls = None,
                          updates_collections: Colls = None,
                          name: Optional[str] = None) -> MetricPair:
    """``tf.metrics.mean_tensor``."""
    return _m.mean_tensor(values, weights, metrics_collections, updates_collections, name)


def streaming_sparse_precision_at_k(predictions: Any, labels: Any, k: int,
                                    class_id: Optional[int] = None, weights: Any = None,
                                    metrics_collections: Colls = None,
                                    updates_collections: Colls = None,
                                    name: Optional[str] = None) -> MetricPair:
    """``tf.metrics.precision_at_k`` with predictions first."""
    return _swap(_m.precision_at_k, predictions, labels, k, class_id, weights,
                 metrics_collections, updates_collections, name)


def streaming_sparse_recall_at_k(predictions: Any, labels: Any, k: int,
                                 class_id: Optional[int] = None, weights: Any = None,
                                 metrics_collections: Colls = None,
                                 updates_collections: Colls = None,
                                 name: Optional[str] = None) -> MetricPair:
    """``tf.metrics.recall_at_k`` with predictions first."""
    return _swap(_m.recall_at_k, predictions, labels, k, class_id, weights,
                 metrics_collections, updates_collections, name)


def accuracy(predictions: Any, labels: Any, weights: Any = None,
             name: Optional[str] = None) -> Any:
    """The (weighted) fraction of ``predictions`` equal to ``labels`` in this batch only
    (not streaming).

    Raises:
      ValueError: when the two shapes cannot match.
    """
    with name_scope(name, "accuracy"):
        pred, lab = convert_to_tensor(predictions), convert_to_tensor(labels)
        if not pred.shape.is_compatible_with(lab.shape):
            raise ValueError(f"accuracy: predictions shape {pred.shape} and labels shape "
                             f"{lab.shape} do not match")
        if pred.dtype is not lab.dtype:
            pred = A.cast(pred, lab.dtype)
        correct = A.cast(M.equal(pred, lab), _dtypes.float32)
        if weights is None:
            return M.reduce_mean(correct)
        w = M.multiply(A.cast(convert_to_tensor(weights), _dtypes.float32),
                       A.ones_like(correct))
        return M.truediv(M.reduce_sum(M.multiply(correct, w)), M.reduce_sum(w))


def aggregate_metrics(*value_update_tuples: MetricPair) -> Tuple[List[Any], List[Any]]:
    """``([values], [update_ops])`` from ``(value, update_op)`` pairs.

    Raises:
      ValueError: when no pair is given.
    """
    if not value_update_tuples:
        raise ValueError("Expected at least one value_tensor/update_op pair")
    values, updates = zip(*value_update_tuples)
    return list(values), list(updates)


def aggregate_metric_map(names_to_tuples: Dict[str, MetricPair]
                         ) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """``({name: value}, {name: update_op})`` from ``{name: (value, update_op)}``."""
    names = list(names_to_tuples)
    return ({n: names_to_tuples[n][0] for n in names},
            {n: names_to_tuples[n][1] for n in names})


from tensorfleet.estimator.metrics_ranking import f1_score  # noqa: F401,E402

__all__ = ["streaming_mean", "streaming_accuracy", "streaming_mean_squared_error",
           "streaming_mean_absolute_error", "streaming_root_mean_squared_error",
           "streaming_true_positives", "streaming_false_positives", "streaming_true_negatives",
           "streaming_false_negatives", "streaming_precision", "streaming_recall",
           "streaming_auc", "streaming_precision_at_thresholds",
           "streaming_recall_at_thresholds", "streaming_sensitivity_at_specificity",
           "streaming_specificity_at_sensitivity", "streaming_mean_iou",
           "streaming_mean_relative_error", "streaming_mean_cosine_distance",
           "streaming_percentage_less", "streaming_mean_tensor",
           "streaming_sparse_precision_at_k", "streaming_sparse_recall_at_k", "accuracy",
           "aggregate_metrics", "aggregate_metric_map"]
__all__ += ["f1_score"]
