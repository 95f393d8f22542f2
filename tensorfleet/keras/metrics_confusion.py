"""Keras confusion-matrix metrics in graph mode: true/false positive/negative counts at
thresholds, ``Precision``, ``Recall``, ``AUC`` (Riemann or interpolated sums over
``num_thresholds`` thresholds) and the metrics read at a point of the curve
(``SensitivityAtSpecificity`` ...). Predictions are probabilities; a prediction counts as
positive when it is above the threshold."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.keras.metric_objects import Metric
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import control_flow_ops as CF
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.nn_sampling_ops import top_k as _top_k
from tensorfleet.ops import state_ops as S
from tensorfleet.ops.math_ops_special import div_no_nan

_EPS = 1e-7


def _prepare(y_true: Any, y_pred: Any, sample_weight: Any, top_k: Optional[int],
             class_id: Optional[int]) -> tuple:
    """Flattened float predictions, bool labels and weights (class slice, top-k kept)."""
    y_pred = A.cast(convert_to_tensor(y_pred), _dtypes.float32)
    y_true = A.cast(convert_to_tensor(y_true), _dtypes.float32)
    w = None if sample_weight is None else M.multiply(A.cast(sample_weight, _dtypes.float32),
                                                      A.ones_like(y_pred))
    if top_k is not None:
        k = int(top_k)
        kth = _top_k(y_pred, k=k).values[..., -1:]
        y_pred = A.where(M.greater_equal(y_pred, kth), y_pred,
                         M.multiply(A.ones_like(y_pred), -1e9))
    if class_id is not None:
        y_true, y_pred = y_true[..., class_id], y_pred[..., class_id]
        if w is not None:
            w = w[..., class_id]
    flat_p = A.reshape(y_pred, [-1])
    flat_t = M.greater(A.reshape(y_true, [-1]), 0.5)
    flat_w = A.ones_like(flat_p) if w is None else A.reshape(w, [-1])
    return flat_p, flat_t, flat_w


def _counts(pred: Tensor, label: Tensor, w: Tensor, thresholds: Sequence[float]) -> Dict[str, Tensor]:
    """Weighted tp, fp, tn, fn per threshold: [n_thresholds] each."""
    th = A.constant(np.asarray(thresholds, np.float32).reshape(-1, 1))
    above = A.cast(M.greater(A.expand_dims(pred, 0), th), _dtypes.float32)
    pos = A.expand_dims(A.cast(label, _dtypes.float32), 0)
    ww = A.expand_dims(w, 0)
    return {"tp": M.reduce_sum(above * pos * ww, axis=1),
            "fp": M.reduce_sum(above * (1.0 - pos) * ww, axis=1),
            "tn": M.reduce_sum((1.0 - above) * (1.0 - pos) * ww, axis=1),
            "fn": M.reduce_sum((1.0 - above) * pos * ww, axis=1)}


def _thresholds(thresholds: Any, default: float) -> List[float]:
    if thresholds is None:
        return [default]
    ts = [float(thresholds)] if np.isscalar(thresholds) else [float(t) for t in thresholds]
    if any(not 0.0 <= t <= 1.0 for t in ts):
        raise ValueError(f"Threshold values must be in [0, 1], got {thresholds!r}")
    return ts


class _ConfusionCounts(Metric):
    """Accumulates the counts named in ``_kinds`` at each of ``thresholds``."""

    _kinds: Sequence[str] = ()

    def __init__(self, thresholds: Any = None, name: Optional[str] = None, dtype: Any = None,
                 top_k: Optional[int] = None, class_id: Optional[int] = None, default: float = 0.5):
        super().__init__(name=name, dtype=dtype)
        self.thresholds = _thresholds(thresholds, default)
        self._scalar = thresholds is None or np.isscalar(thresholds)
        self.top_k, self.class_id = top_k, class_id
        self.acc = {k: self.add_weight(self._weight_name(k), [len(self.thresholds)])
                    for k in self._kinds}

    @staticmethod
    def _weight_name(kind: str) -> str:
        return {"tp": "true_positives", "fp": "false_positives", "tn": "true_negatives",
                "fn": "false_negatives"}[kind]

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """Adds the batch's weighted counts."""
        p, t, w = _prepare(y_true, y_pred, sample_weight, self.top_k, self.class_id)
        c = _counts(p, t, w, self.thresholds)
        return CF.group(*[S.assign_add(v, A.cast(c[k], v.dtype)) for k, v in self.acc.items()])

    def _out(self, value: Tensor) -> Tensor:
        return value[0] if self._scalar else value

    def get_config(self) -> Dict[str, Any]:
        """Name, dtype, thresholds, top_k and class_id."""
        return {**super().get_config(), "thresholds": self.thresholds[0] if self._scalar
                else self.thresholds, "top_k": self.top_k, "class_id": self.class_id}


def _count_class(name: str, kind: str) -> type:
    def __init__(self: Any, thresholds: Any = None, name: Optional[str] = None,
                 dtype: Any = None) -> None:
        _ConfusionCounts.__init__(self, thresholds, name=name, dtype=dtype)

    def result(self: Any) -> Tensor:
        return self._out(self.acc[kind].read_value())

    def get_config(self: Any) -> Dict[str, Any]:
        cfg = _ConfusionCounts.get_config(self)
        return {k: cfg[k] for k in ("name", "dtype", "thresholds")}
    return type(name, (_ConfusionCounts,), {
        "_kinds": (kind,), "__init__": __init__, "result": result, "get_config": get_config,
        "__doc__": f"The weighted number of {_ConfusionCounts._weight_name(kind)} at each "
                   f"threshold (0.5 by default; a list gives one count per threshold)."})


TruePositives = _count_class("TruePositives", "tp")
FalsePositives = _count_class("FalsePositives", "fp")
TrueNegatives = _count_class("TrueNegatives", "tn")
FalseNegatives = _count_class("FalseNegatives", "fn")


class Precision(_ConfusionCounts):
    """``tp / (tp + fp)`` at each threshold (``top_k``: only the k highest predictions
    count as positive; ``class_id``: one class of multi-label predictions)."""

    _kinds = ("tp", "fp")

    def __init__(self, thresholds: Any = None, top_k: Optional[int] = None,
                 class_id: Optional[int] = None, name: Optional[str] = None, dtype: Any = None):
        super().__init__(thresholds, name=name, dtype=dtype, top_k=top_k, class_id=class_id)

    def result(self) -> Tensor:
        """The precision."""
        tp, fp = self.acc["tp"].read_value(), self.acc["fp"].read_value()
        return self._out(div_no_nan(tp, M.add(tp, fp)))


class Recall(_ConfusionCounts):
    """``tp / (tp + fn)`` at each threshold."""

    _kinds = ("tp", "fn")

    def __init__(self, thresholds: Any = None, top_k: Optional[int] = None,
                 class_id: Optional[int] = None, name: Optional[str] = None, dtype: Any = None):
        super().__init__(thresholds, name=name, dtype=dtype, top_k=top_k, class_id=class_id)

    def result(self) -> Tensor:
        """The recall."""
        tp, fn = self.acc["tp"].read_value(), self.acc["fn"].read_value()
        return self._out(div_no_nan(tp, M.add(tp, fn)))


def _even_thresholds(num_thresholds: int) -> List[float]:
    """``num_thresholds`` thresholds from just below 0 to just above 1 (as Keras)."""
    if num_thresholds <= 1:
        raise ValueError(f"num_thresholds must be > 1, got {num_thresholds}")
    inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - _EPS] + inner + [1.0 + _EPS]


class _AllCounts(_ConfusionCounts):
    _kinds = ("tp", "fp", "tn", "fn")

    def __init__(self, num_thresholds: int, name: Optional[str], dtype: Any,
                 class_id: Optional[int] = None):
        Metric.__init__(self, name=name, dtype=dtype)
        self.num_thresholds = int(num_thresholds)
        self.thresholds = _even_thresholds(self.num_thresholds)
        self._scalar, self.top_k, self.class_id = False, None, class_id
        self.acc = {k: self.add_weight(self._weight_name(k), [len(self.thresholds)])
                    for k in self._kinds}


class AUC(_AllCounts):
    """Area under the ROC (``curve='ROC'``) or precision-recall (``'PR'``) curve, from
    counts at ``num_thresholds`` even thresholds; ``summation_method`` ``interpolation``
    (default), ``minoring`` or ``majoring``."""

    def __init__(self, num_thresholds: int = 200, curve: str = "ROC",
                 summation_method: str = "interpolation", name: Optional[str] = None,
                 dtype: Any = None, thresholds: Any = None, multi_label: bool = False,
                 num_labels: Optional[int] = None, label_weights: Any = None,
                 from_logits: bool = False):
        if curve not in ("ROC", "PR"):
            raise ValueError(f"AUC: curve must be 'ROC' or 'PR', got {curve!r}")
        if summation_method not in ("interpolation", "minoring", "majoring"):
            raise ValueError(f"AUC: unknown summation_method {summation_method!r}")
        if multi_label or num_labels is not None or label_weights is not None:
            raise ValueError("AUC: multi_label, num_labels and label_weights are not supported")
        super().__init__(num_thresholds, name, dtype)
        if thresholds is not None:
            inner = sorted(float(t) for t in thresholds)
            self.thresholds = [0.0 - _EPS] + inner + [1.0 + _EPS]
            self.num_thresholds = len(self.thresholds)
            self._weights, self._inits = [], []
            self.acc = {k: self.add_weight(self._weight_name(k), [self.num_thresholds])
                        for k in self._kinds}
        self.curve, self.summation_method, self.from_logits = curve, summation_method, \
            bool(from_logits)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """Adds the batch's counts at every threshold."""
        if self.from_logits:
            y_pred = M.sigmoid(y_pred)
        return super().update_state(y_true, y_pred, sample_weight)

    def result(self) -> Tensor:
        """The area under the curve."""
        tp, fp, tn, fn = (self.acc[k].read_value() for k in ("tp", "fp", "tn", "fn"))
        n = self.num_thresholds
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self._pr_interpolated(tp, fp, fn)
        recall = div_no_nan(tp, M.add(tp, fn))
        if self.curve == "ROC":
            x = div_no_nan(fp, M.add(fp, tn))
            y = recall
        else:
            x = recall
            y = div_no_nan(tp, M.add(tp, fp))
        if self.summation_method == "interpolation":
            heights = M.multiply(M.add(y[:n - 1], y[1:]), 0.5)
        elif self.summation_method == "minoring":
            heights = M.minimum(y[:n - 1], y[1:])
        else:
            heights = M.maximum(y[:n - 1], y[1:])
        return M.reduce_sum(M.multiply(M.subtract(x[:n - 1], x[1:]), heights))

    def _pr_interpolated(self, tp: Tensor, fp: Tensor, fn: Tensor) -> Tensor:
        """Davis and Goadrich's interpolation of the PR curve between thresholds."""
        n = self.num_thresholds
        dtp = M.subtract(tp[:n - 1], tp[1:])
        p = M.add(tp, fp)
        dp = M.subtract(p[:n - 1], p[1:])
        slope = div_no_nan(dtp, M.maximum(dp, 0.0))
        intercept = M.subtract(tp[1:], M.multiply(slope, p[1:]))
        safe_p = A.where(M.logical_and(M.greater(p[:n - 1], 0.0), M.greater(p[1:], 0.0)),
                         div_no_nan(p[:n - 1], M.maximum(p[1:], 0.0)), A.ones_like(p[1:]))
        pr_auc = div_no_nan(M.multiply(slope, M.add(dtp, M.multiply(intercept,
                                                                      M.log(safe_p)))),
                            M.maximum(M.add(tp[1:], fn[1:]), 0.0))
        return M.reduce_sum(pr_auc)

    def get_config(self) -> Dict[str, Any]:
        """The curve settings."""
        return {"name": self.name, "dtype": self.dtype, "num_thresholds": self.num_thresholds,
                "curve": self.curve, "summation_method": self.summation_method,
                "from_logits": self.from_logits}


class _AtPoint(_AllCounts):
    """A rate read where another reaches a target value, over even thresholds."""

    def __init__(self, value: float, num_thresholds: int = 200, class_id: Optional[int] = None,
                 name: Optional[str] = None, dtype: Any = None):
        if not 0.0 <= float(value) <= 1.0:
            raise ValueError(f"{type(self).__name__}: the target must be in [0, 1], got {value}")
        super().__init__(num_thresholds, name, dtype, class_id=class_id)
        self.value = float(value)

    def _rates(self) -> Dict[str, Tensor]:
        tp, fp, tn, fn = (self.acc[k].read_value() for k in ("tp", "fp", "tn", "fn"))
        return {"sensitivity": div_no_nan(tp, M.add(tp, fn)),
                "specificity": div_no_nan(tn, M.add(tn, fp)),
                "precision": div_no_nan(tp, M.add(tp, fp)),
                "recall": div_no_nan(tp, M.add(tp, fn))}

    def _best_where(self, target: Tensor, read: Tensor) -> Tensor:
        """The largest ``read`` among thresholds where ``target >= value`` (0 if none)."""
        ok = M.greater_equal(target, self.value)
        return M.reduce_max(A.where(ok, read, A.zeros_like(read)))

    def get_config(self) -> Dict[str, Any]:
        """The target and threshold count."""
        return {"name": self.name, "dtype": self.dtype, "num_thresholds": self.num_thresholds,
                "class_id": self.class_id}


class SensitivityAtSpecificity(_AtPoint):
    """The best sensitivity (recall) where the specificity is at least ``specificity``."""

    def __init__(self, specificity: float, **kwargs: Any):
        super().__init__(specificity, **kwargs)

    def result(self) -> Tensor:
        """The sensitivity."""
        r = self._rates()
        return self._best_where(r["specificity"], r["sensitivity"])


class SpecificityAtSensitivity(_AtPoint):
    """The best specificity where the sensitivity is at least ``sensitivity``."""

    def __init__(self, sensitivity: float, **kwargs: Any):
        super().__init__(sensitivity, **kwargs)

    def result(self) -> Tensor:
        """The specificity."""
        r = self._rates()
        return self._best_where(r["sensitivity"], r["specificity"])


class PrecisionAtRecall(_AtPoint):
    """The best precision where the recall is at least ``recall``."""

    def __init__(self, recall: float, **kwargs: Any):
        super().__init__(recall, **kwargs)

    def result(self) -> Tensor:
        """The precision."""
        r = self._rates()
        return self._best_where(r["recall"], r["precision"])


class RecallAtPrecision(_AtPoint):
    """The best recall where the precision is at least ``precision``."""

    def __init__(self, precision: float, **kwargs: Any):
        super().__init__(precision, **kwargs)

    def result(self) -> Tensor:
        """The recall."""
        r = self._rates()
        return self._best_where(r["precision"], r["recall"])


__all__ = ["TruePositives", "FalsePositives", "TrueNegatives", "FalseNegatives", "Precision",
           "Recall", "AUC", "SensitivityAtSpecificity", "SpecificityAtSensitivity",
           "PrecisionAtRecall", "RecallAtPrecision"]
