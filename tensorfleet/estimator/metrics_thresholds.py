"""``tf.metrics`` built on confusion counts at a list of thresholds: ``auc``,
``precision_at_thresholds``, ``sensitivity_at_specificity``, ``true_positives_at_thresholds``...

A prediction (a probability in [0, 1]) counts as positive at threshold t when
it is strictly greater than t. The four counts are accumulated per threshold in
local variables ``true_positives``, ``false_negatives``, ``true_negatives`` and
``false_positives`` (each [num_thresholds]); all thresholds are compared at once
as one [thresholds, examples] comparison.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, name_scope
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import state_ops as S
from tensorfleet.estimator.metrics_util import Colls, MetricPair, broadcast_weights, \
    check_same_shape, collect, metric_variable, safe_div, squeeze_pair, to_bool, to_float

_KEPSILON = 1e-7
_COUNT_NAMES = {"tp": "true_positives", "fn": "false_negatives", "tn": "true_negatives",
                "fp": "false_positives"}


def _confusion_at_thresholds(labels: Any, predictions: Any, thresholds: Sequence[float],
                             weights: Any, includes: Sequence[str]
                             ) -> Tuple[Dict[str, Tensor], Dict[str, Tensor]]:
    """Per-threshold accumulators of the requested counts: ``(values, update ops)``."""
    lab, pred = squeeze_pair(labels, predictions)
    pred = to_float(pred)
    lab = to_bool(lab)
    check_same_shape(lab, pred, "labels and predictions")
    n = len(thresholds)
    pred_row = A.reshape(pred, [1, -1])
    thresh_col = A.reshape(A.constant([float(t) for t in thresholds], dtype=_dtypes.float32),
                           [n, 1])
    pred_pos = M.greater(pred_row, thresh_col)                       # [T, N]
    label_pos = A.reshape(lab, [1, -1])                              # [1, N]
    w = A.reshape(broadcast_weights(weights, pred), [1, -1])         # [1, N]
    pred_neg = M.logical_not(pred_pos)
    label_neg = M.logical_not(label_pos)
    conds = {"tp": (label_pos, pred_pos), "fn": (label_pos, pred_neg),
             "tn": (label_neg, pred_neg), "fp": (label_neg, pred_pos)}
    values, updates = {}, {}
    for key in includes:
        var = metric_variable([n], _dtypes.float32, _COUNT_NAMES[key])
        hit = A.cast(M.logical_and(*conds[key]), _dtypes.float32)
        updates[key] = S.assign_add(var, M.reduce_sum(M.multiply(hit, w), 1))
        values[key] = var.value()
    return values, updates


def _check_fractions(thresholds: Sequence[float], fname: str) -> List[float]:
    out = [float(t) for t in thresholds]
    if not out:
        raise ValueError(f"{fname}: thresholds must not be empty")
    return out


def _counts_at_thresholds(key: str, labels: Any, predictions: Any, thresholds: Sequence[float],
                          weights: Any, metrics_collections: Colls, updates_collections: Colls,
                          name: Optional[str]) -> MetricPair:
    fname = _COUNT_NAMES[key] + "_at_thresholds"
    with name_scope(name, _COUNT_NAMES[key]):
        values, updates = _confusion_at_thresholds(
            labels, predictions, _check_fractions(thresholds, fname), weights, (key,))
    collect(values[key], updates[key], metrics_collections, updates_collections)
    return values[key], updates[key]


def true_positives_at_thresholds(labels: Any, predictions: Any, thresholds: Sequence[float],
                                 weights: Any = None, metrics_collections: Colls = None,
                                 updates_collections: Colls = None,
                                 name: Optional[str] = None) -> MetricPair:
    """Weighted count of positive labels with ``predictions > t``, one per threshold t."""
    return _counts_at_thresholds("tp", labels, predictions, thresholds, weights,
                                 metrics_collections, updates_collections, name)


def false_positives_at_thresholds(labels: Any, predictions: Any, thresholds: Sequence[float],
                                  weights: Any = None, metrics_collections: Colls = None,
                                  updates_collections: Colls = None,
                                  name: Optional[str] = None) -> MetricPair:
    """Weighted count of negative labels with ``predictions > t``, one per threshold t."""
    return _counts_at_thresholds("fp", labels, predictions, thresholds, weights,
                                 metrics_collections, updates_collections, name)


def true_negatives_at_thresholds(labels: Any, predictions: Any, thresholds: Sequence[float],
                                 weights: Any = None, metrics_collections: Colls = None,
                                 updates_collections: Colls = None,
                                 name: Optional[str] = None) -> MetricPair:
    """Weighted count of negative labels with ``predictions <= t``, one per threshold t."""
    return _counts_at_thresholds("tn", labels, predictions, thresholds, weights,
                                 metrics_collections, updates_collections, name)


def false_negatives_at_thresholds(labels: Any, predictions: Any, thresholds: Sequence[float],
                                  weights: Any = None, metrics_collections: Colls = None,
                                  updates_collections: Colls = None,
                                  name: Optional[str] = None) -> MetricPair:
    """Weighted count of positive labels with ``predictions <= t``, one per threshold t."""
    return _counts_at_thresholds("fn", labels, predictions, thresholds, weights,
                                 metrics_collections, updates_collections, name)


def _ratio_at_thresholds(num_key: str, other_key: str, labels: Any, predictions: Any,
                         thresholds: Sequence[float], weights: Any, metrics_collections: Colls,
                         updates_collections: Colls, name: Optional[str], default: str,
                         fname: str) -> MetricPair:
    with name_scope(name, default):
        values, updates = _confusion_at_thresholds(
            labels, predictions, _check_fractions(thresholds, fname), weights,
            (num_key, other_key))

        def ratio(c: Dict[str, Tensor], out_name: str) -> Tensor:
            tp = c[num_key]
            return M.truediv(tp, M.add(M.add(tp, c[other_key]), _KEPSILON), name=out_name)

        value, update_op = ratio(values, "value"), ratio(updates, "update_op")
    collect(value, update_op, metrics_collections, updates_collections)
    return value, update_op


def precision_at_thresholds(labels: Any, predictions: Any, thresholds: Sequence[float],
                            weights: Any = None, metrics_collections: Colls = None,
                            updates_collections: Colls = None,
                            name: Optional[str] = None) -> MetricPair:
    """``tp / (tp + fp + 1e-7)`` at each threshold."""
    return _ratio_at_thresholds("tp", "fp", labels, predictions, thresholds, weights,
                                metrics_collections, updates_collections, name,
                                "precision_at_thresholds", "precision_at_thresholds")


def recall_at_thresholds(labels: Any, predictions: Any, thresholds: Sequence[float],
                         weights: Any = None, metrics_collections: Colls = None,
                         updates_collections: Colls = None,
                         name: Optional[str] = None) -> MetricPair:
    """``tp / (tp + fn + 1e-7)`` at each threshold."""
    return _ratio_at_thresholds("tp", "fn", labels, predictions, thresholds, weights,
                                metrics_collections, updates_collections, name,
                                "recall_at_thresholds", "recall_at_thresholds")


def _evenly_spaced(num_thresholds: int, fname: str) -> List[float]:
    """``num_thresholds`` thresholds: just below 0, evenly inside (0, 1), just above 1."""
    if not isinstance(num_thresholds, int) or num_thresholds < 2:
        raise ValueError(f"{fname}: num_thresholds must be an integer > 1, got "
                         f"{num_thresholds!r}")
    inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - _KEPSILON] + inner + [1.0 + _KEPSILON]


_SUMMATIONS = ("trapezoidal", "careful_interpolation", "minoring", "majoring")


def _interpolated_pr_auc(tp: Tensor, fp: Tensor, fn: Tensor, n: int, name: str) -> Tensor:
    # Precision is interpolated between thresholds as a function of the positive
    # count (Davis & Goadrich), then integrated exactly over recall.
    dtp = tp[:n - 1] - tp[1:]
    p = tp + fp
    dp = M.maximum(p[:n - 1] - p[1:], 0.0)
    slope = safe_div(dtp, dp)
    intercept = tp[1:] - slope * p[1:]
    both_pos = M.logical_and(M.greater(p[:n - 1], 0.0), M.greater(p[1:], 0.0))
    p_ratio = A.where(both_pos, safe_div(p[:n - 1], M.maximum(p[1:], 0.0)),
                      A.ones_like(p[1:]))
    term = safe_div(slope * (dtp + intercept * M.log(p_ratio)), M.maximum(tp[1:] + fn[1:], 0.0))
    return M.reduce_sum(term, name=name)


def _auc_of(c: Dict[str, Tensor], n: int, curve: str, summation_method: str,
            name: str) -> Tensor:
    tp, fn, tn, fp = c["tp"], c["fn"], c["tn"], c["fp"]
    if curve == "PR" and summation_method == "careful_interpolation":
        return _interpolated_pr_auc(tp, fp, fn, n, name)
    eps = 1.0e-6
    rec = M.truediv(tp + eps, tp + fn + eps)
    if curve == "ROC":
        x, y = M.truediv(fp, fp + tn + eps), rec
    else:
        x, y = rec, M.truediv(tp + eps, tp + fp + eps)
    dx = x[:n - 1] - x[1:]
    if summation_method == "minoring":
        height = M.minimum(y[:n - 1], y[1:])
    elif summation_method == "majoring":
        height = M.maximum(y[:n - 1], y[1:])
    else:
        height = (y[:n - 1] + y[1:]) / 2.0
    return M.reduce_sum(M.multiply(dx, height), name=name)


def auc(labels: Any, predictions: Any, weights: Any = None, num_thresholds: int = 200,
        metrics_collections: Colls = None, updates_collections: Colls = None,
        curve: str = "ROC", name: Optional[str] = None,
        summation_method: str = "trapezoidal",
        thresholds: Optional[Sequence[float]] = None) -> MetricPair:
    """Area under the ROC (or precision-recall, ``curve='PR'``) curve, approximated by a
    Riemann sum over ``num_thresholds`` thresholds (or the given ``thresholds``,
    plus one just below 0 and one just above 1).

    ``summation_method``: ``trapezoidal``, ``minoring`` / ``majoring`` (lower /
    upper Riemann sums), or ``careful_interpolation`` (exact interpolation of the
    PR curve; the trapezoidal rule for ROC).

    Raises:
      ValueError: for an unknown curve or summation method, or num_thresholds < 2.
    """
    if curve not in ("ROC", "PR"):
        raise ValueError(f"curve must be either ROC or PR, {curve} unknown")
    if summation_method not in _SUMMATIONS:
        raise ValueError(f"Invalid summation_method: {summation_method}; expected one of "
                         f"{', '.join(_SUMMATIONS)}")
    if thresholds is not None:
        ts = [0.0 - _KEPSILON] + sorted(float(t) for t in thresholds) + [1.0 + _KEPSILON]
    else:
        ts = _evenly_spaced(num_thresholds, "auc")
    with name_scope(name, "auc"):
        values, updates = _confusion_at_thresholds(labels, predictions, ts, weights,
                                                   ("tp", "fn", "tn", "fp"))
        value = _auc_of(values, len(ts), curve, summation_method, "value")
        update_op = _auc_of(updates, len(ts), curve, summation_method, "update_op")
    collect(value, update_op, metrics_collections, updates_collections)
    return value, update_op


def _check_fraction(v: float, what: str, fname: str) -> float:
    if not 0.0 <= float(v) <= 1.0:
        raise ValueError(f"`{what}` must be in the range [0, 1], got {v} ({fname}).")
    return float(v)


def _sensitivity_at(c: Dict[str, Tensor], specificity: float, name: str) -> Tensor:
    spec = M.truediv(c["tn"], c["tn"] + c["fp"] + _KEPSILON)
    # The first threshold whose specificity is closest to the target.
    i = A.cast(M.argmin(M.abs(spec - specificity), 0), _dtypes.int32)
    tp, fn = A.gather(c["tp"], i), A.gather(c["fn"], i)
    return M.truediv(tp, tp + fn + _KEPSILON, name=name)


def _specificity_at(c: Dict[str, Tensor], sensitivity: float, name: str) -> Tensor:
    sens = M.truediv(c["tp"], c["tp"] + c["fn"] + _KEPSILON)
    gap = M.abs(sens - sensitivity)
    # The last threshold whose sensitivity is closest to the target: the cumulative
    # count of closest ones reaches its maximum there first.
    closest = A.cast(M.equal(gap, M.reduce_min(gap)), _dtypes.int64)
    i = A.cast(M.argmax(M.cumsum(closest), 0), _dtypes.int32)
    tn, fp = A.gather(c["tn"], i), A.gather(c["fp"], i)
    return M.truediv(tn, tn + fp + _KEPSILON, name=name)


def sensitivity_at_specificity(labels: Any, predictions: Any, specificity: float,
                               weights: Any = None, num_thresholds: int = 200,
                               metrics_collections: Colls = None,
                               updates_collections: Colls = None,
                               name: Optional[str] = None) -> MetricPair:
    """The sensitivity (recall) at the threshold whose specificity is closest to
    ``specificity``.

    Raises:
      ValueError: for a specificity outside [0, 1] or num_thresholds < 2.
    """
    target = _check_fraction(specificity, "specificity", "sensitivity_at_specificity")
    ts = _evenly_spaced(num_thresholds, "sensitivity_at_specificity")
    with name_scope(name, "sensitivity_at_specificity"):
        values, updates = _confusion_at_thresholds(labels, predictions, ts, weights,
                                                   ("tp", "fn", "tn", "fp"))
        value = _sensitivity_at(values, target, "value")
        update_op = _sensitivity_at(updates, target, "update_op")
    collect(value, update_op, metrics_collections, updates_collections)
    return value, update_op


def specificity_at_sensitivity(labels: Any, predictions: Any, sensitivity: float,
                               weights: Any = None, num_thresholds: int = 200,
                               metrics_collections: Colls = None,
                               updates_collections: Colls = None,
                               name: Optional[str] = None) -> MetricPair:
    """The specificity at the threshold whose sensitivity is closest to ``sensitivity``.

    Raises:
      ValueError: for a sensitivity outside [0, 1] or num_thresholds < 2.
    """
    target = _check_fraction(sensitivity, "sensitivity", "specificity_at_sensitivity")
    ts = _evenly_spaced(num_thresholds, "specificity_at_sensitivity")
    with name_scope(name, "specificity_at_sensitivity"):
        values, updates = _confusion_at_thresholds(labels, predictions, ts, weights,
                                                   ("tp", "fn", "tn", "fp"))
        value = _specificity_at(values, target, "value")
        update_op = _specificity_at(updates, target, "update_op")
    collect(value, update_op, metrics_collections, updates_collections)
    return value, update_op


__all__ = ["auc", "precision_at_thresholds", "recall_at_thresholds",
           "true_positives_at_thresholds", "false_positives_at_thresholds",
           "true_negatives_at_thresholds", "false_negatives_at_thresholds",
           "sensitivity_at_specificity", "specificity_at_sensitivity"]
