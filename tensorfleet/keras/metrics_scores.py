"""Keras metrics accumulated over a confusion matrix or per-class counts: the IoU family
(``IoU``, ``MeanIoU``, ``BinaryIoU``, ``OneHotIoU``, ``OneHotMeanIoU``), ``F1Score`` /
``FBetaScore`` and ``R2Score``."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.keras.metric_objects import Metric
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import control_flow_ops as CF
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import state_ops as S
from tensorfleet.ops.linalg_ops import diag_part as _diag_part
from tensorfleet.ops.math_ops_special import div_no_nan


class IoU(Metric):
    """Intersection over union ``tp / (tp + fp + fn)`` per class, averaged over
    ``target_class_ids``; labels and predictions are integer class ids."""

    def __init__(self, num_classes: int, target_class_ids: Sequence[int],
                 name: Optional[str] = None, dtype: Any = None,
                 ignore_class: Optional[int] = None, sparse_y_true: bool = True,
                 sparse_y_pred: bool = True, axis: int = -1):
        super().__init__(name=name, dtype=dtype)
        self.num_classes = int(num_classes)
        self.target_class_ids = [int(c) for c in target_class_ids]
        if any(not 0 <= c < self.num_classes for c in self.target_class_ids):
            raise ValueError(f"IoU: target_class_ids must be in [0, {self.num_classes}), got "
                             f"{target_class_ids!r}")
        self.ignore_class, self.axis = ignore_class, axis
        self.sparse_y_true, self.sparse_y_pred = bool(sparse_y_true), bool(sparse_y_pred)
        self.total_cm = self.add_weight("total_confusion_matrix",
                                        [self.num_classes, self.num_classes], dtype="float64")

    def _ids(self, y_true: Any, y_pred: Any) -> tuple:
        y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
        if not self.sparse_y_true:
            y_true = M.argmax(y_true, axis=self.axis)
        if not self.sparse_y_pred:
            y_pred = M.argmax(y_pred, axis=self.axis)
        return A.cast(A.reshape(y_true, [-1]), _dtypes.int32), \
            A.cast(A.reshape(y_pred, [-1]), _dtypes.int32)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """Adds the batch's (weighted) confusion matrix."""
        t, p = self._ids(y_true, y_pred)
        w = A.ones_like(t, dtype=_dtypes.float64) if sample_weight is None else \
            A.reshape(A.cast(sample_weight, _dtypes.float64), [-1]) * \
            A.ones_like(t, dtype=_dtypes.float64)
        if self.ignore_class is not None:
            keep = M.not_equal(t, int(self.ignore_class))
            w = M.multiply(w, A.cast(keep, _dtypes.float64))
            t = A.where(keep, t, A.zeros_like(t))
        n = self.num_classes
        cells = A.one_hot(M.add(M.multiply(t, n), p), n * n, dtype=_dtypes.float64)
        cm = A.reshape(M.reduce_sum(M.multiply(cells, A.expand_dims(w, 1)), axis=0), [n, n])
        return S.assign_add(self.total_cm, cm)

    def _per_class(self) -> Tensor:
        cm = self.total_cm.read_value()
        rows, cols = M.reduce_sum(cm, axis=1), M.reduce_sum(cm, axis=0)
        tp = _diag_part(cm)
        return tp, M.subtract(M.add(rows, cols), tp)

    def result(self) -> Tensor:
        """The mean IoU over the target classes that occur (0 if none)."""
        tp, union = self._per_class()
        ids = self.target_class_ids
        tp_t, union_t = A.gather(tp, ids), A.gather(union, ids)
        present = M.reduce_sum(A.cast(M.not_equal(union_t, 0.0), _dtypes.float64))
        iou = div_no_nan(tp_t, union_t)
        return A.cast(div_no_nan(M.reduce_sum(iou), present), self._dtype)

    def get_config(self) -> Dict[str, Any]:
        """The classes and options."""
        return {"name": self.name, "dtype": self.dtype, "num_classes": self.num_classes,
                "target_class_ids": self.target_class_ids, "ignore_class": self.ignore_class,
                "sparse_y_true": self.sparse_y_true, "sparse_y_pred": self.sparse_y_pred,
                "axis": self.axis}


class MeanIoU(IoU):
    """IoU averaged over every class."""

    def __init__(self, num_classes: int, name: Optional[str] = None, dtype: Any = None,
                 ignore_class: Optional[int] = None, sparse_y_true: bool = True,
                 sparse_y_pred: bool = True, axis: int = -1):
        super().__init__(num_classes, list(range(int(num_classes))), name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=sparse_y_true,
                         sparse_y_pred=sparse_y_pred, axis=axis)


class BinaryIoU(IoU):
    """IoU of binary labels against probabilities cut at ``threshold``, averaged over
    ``target_class_ids`` (0, 1 or both)."""

    def __init__(self, target_class_ids: Sequence[int] = (0, 1), threshold: float = 0.5,
                 name: Optional[str] = None, dtype: Any = None):
        super().__init__(2, target_class_ids, name=name, dtype=dtype)
        self.threshold = float(threshold)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """Adds the batch's confusion matrix of thresholded predictions."""
        p = A.cast(M.greater(A.cast(y_pred, _dtypes.float32), self.threshold), _dtypes.int32)
        return super().update_state(A.cast(y_true, _dtypes.int32), p, sample_weight)


class OneHotIoU(IoU):
    """IoU of one-hot labels against class scores (arg-max), over ``target_class_ids``."""

    def __init__(self, num_classes: int, target_class_ids: Sequence[int],
                 name: Optional[str] = None, dtype: Any = None,
                 ignore_class: Optional[int] = None, sparse_y_pred: bool = False,
                 axis: int = -1):
        super().__init__(num_classes, target_class_ids, name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=False,
                         sparse_y_pred=sparse_y_pred, axis=axis)


class OneHotMeanIoU(MeanIoU):
    """Mean IoU of one-hot labels against class scores (arg-max)."""

    def __init__(self, num_classes: int, name: Optional[str] = None, dtype: Any = None,
                 ignore_class: Optional[int] = None, sparse_y_pred: bool = False,
                 axis: int = -1):
        super().__init__(num_classes, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis)


class FBetaScore(Metric):
    """F-beta per class of multi-label predictions cut at ``threshold`` (the arg-max
    when None): ``(1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp)``, reduced by ``average``
    (None, ``micro``, ``macro`` or ``weighted``)."""

    def __init__(self, average: Optional[str] = None, beta: float = 1.0,
                 threshold: Optional[float] = None, name: str = "fbeta_score",
                 dtype: Any = None):
        super().__init__(name=name, dtype=dtype)
        if average not in (None, "micro", "macro", "weighted"):
            raise ValueError(f"FBetaScore: average must be None, 'micro', 'macro' or "
                             f"'weighted', got {average!r}")
        if float(beta) <= 0:
            raise ValueError(f"FBetaScore: beta must be positive, got {beta}")
        if threshold is not None and not 0 < float(threshold) <= 1:
            raise ValueError(f"FBetaScore: threshold must be in (0, 1], got {threshold}")
        self.average, self.beta, self.threshold = average, float(beta), threshold
        self._acc: Optional[Dict[str, Any]] = None

    def _build(self, n: int) -> None:
        shape = [] if self.average == "micro" else [n]
        self._acc = {k: self.add_weight(k, shape) for k in
                     ("true_positives", "false_positives", "false_negatives",
                      "intermediate_weights")}

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """Adds the batch's per-class counts."""
        y_pred = A.cast(convert_to_tensor(y_pred), self._dtype)
        y_true = A.cast(convert_to_tensor(y_true), self._dtype)
        n = y_pred.shape.as_list()[-1]
        if n is None:
            raise ValueError("FBetaScore: the number of classes must be known")
        if self._acc is None:
            self._build(int(n))
        if self.threshold is None:
            top = M.reduce_max(y_pred, axis=-1, keepdims=True)
            hard = A.cast(M.greater_equal(y_pred, top), self._dtype)
        else:
            hard = A.cast(M.greater(y_pred, float(self.threshold)), self._dtype)
        w = A.ones_like(y_true) if sample_weight is None else \
            M.multiply(A.expand_dims(A.cast(sample_weight, self._dtype), -1),
                       A.ones_like(y_true))
        axis = [0, 1] if self.average == "micro" else [0]
        acc = self._acc
        assert acc is not None
        return CF.group(
            S.assign_add(acc["true_positives"], M.reduce_sum(hard * y_true * w, axis=axis)),
            S.assign_add(acc["false_positives"],
                         M.reduce_sum(hard * (1 - y_true) * w, axis=axis)),
            S.assign_add(acc["false_negatives"],
                         M.reduce_sum((1 - hard) * y_true * w, axis=axis)),
            S.assign_add(acc["intermediate_weights"], M.reduce_sum(y_true * w, axis=axis)))

    def result(self) -> Tensor:
        """The score (per class when ``average`` is None)."""
        if self._acc is None:
            raise ValueError(f"{type(self).__name__} has no result before its first update")
        tp, fp, fn = (self._acc[k].read_value() for k in ("true_positives", "false_positives",
                                                          "false_negatives"))
        b2 = self.beta ** 2
        precision = div_no_nan(tp, M.add(tp, fp))
        recall = div_no_nan(tp, M.add(tp, fn))
        f = div_no_nan(M.multiply((1 + b2), M.multiply(precision, recall)),
                       M.add(M.multiply(b2, precision), recall))
        if self.average == "weighted":
            w = self._acc["intermediate_weights"].read_value()
            return div_no_nan(M.reduce_sum(M.multiply(f, w)), M.reduce_sum(w))
        if self.average == "macro":
            return M.reduce_mean(f)
        return f

    def get_config(self) -> Dict[str, Any]:
        """The averaging, beta and threshold."""
        return {"name": self.name, "dtype": self.dtype, "average": self.average,
                "beta": self.beta, "threshold": self.threshold}


class F1Score(FBetaScore):
    """F1 (``FBetaScore`` with beta 1)."""

    def __init__(self, average: Optional[str] = None, threshold: Optional[float] = None,
                 name: str = "f1_score", dtype: Any = None):
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name,
                         dtype=dtype)

    def get_config(self) -> Dict[str, Any]:
        """The averaging and threshold."""
        cfg = super().get_config()
        cfg.pop("beta")
        return cfg


class R2Score(Metric):
    """The coefficient of determination ``1 - SS_res / SS_tot`` per output, averaged
    (``class_aggregation``: ``uniform_average``, ``variance_weighted_average`` or None),
    adjusted for ``num_regressors`` when given."""

    def __init__(self, class_aggregation: Optional[str] = "uniform_average",
                 num_regressors: int = 0, name: str = "r2_score", dtype: Any = None):
        super().__init__(name=name, dtype=dtype)
        if class_aggregation not in (None, "uniform_average", "variance_weighted_average"):
            raise ValueError(f"R2Score: unknown class_aggregation {class_aggregation!r}")
        if num_regressors < 0:
            raise ValueError(f"R2Score: num_regressors must be >= 0, got {num_regressors}")
        self.class_aggregation, self.num_regressors = class_aggregation, int(num_regressors)
        self._acc: Optional[List[Any]] = None

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """Adds the batch's sums of y, y^2, residuals^2 and weights."""
        y_pred = A.cast(convert_to_tensor(y_pred), self._dtype)
        y_true = A.cast(convert_to_tensor(y_true), self._dtype)
        if y_true.shape.ndims == 1:
            y_true, y_pred = A.expand_dims(y_true, 1), A.expand_dims(y_pred, 1)
        n = y_true.shape.as_list()[-1]
        if n is None:
            raise ValueError("R2Score: the number of outputs must be known")
        if self._acc is None:
            self._acc = [self.add_weight(k, [int(n)]) for k in
                         ("squared_sum", "sum", "total_mse", "count")]
            self.num_samples = self.add_weight("num_samples", [], dtype="int32")
        w = A.ones_like(y_true) if sample_weight is None else \
            M.multiply(A.reshape(A.cast(sample_weight, self._dtype), [-1, 1]),
                       A.ones_like(y_true))
        sq, sm, mse, cnt = self._acc
        return CF.group(
            S.assign_add(sm, M.reduce_sum(y_true * w, axis=0)),
            S.assign_add(sq, M.reduce_sum(y_true * y_true * w, axis=0)),
            S.assign_add(mse, M.reduce_sum(M.square(y_true - y_pred) * w, axis=0)),
            S.assign_add(cnt, M.reduce_sum(w, axis=0)),
            S.assign_add(self.num_samples, A.shape(y_true)[0]))

    def result(self) -> Tensor:
        """The (aggregated) R^2."""
        if self._acc is None:
            raise ValueError("R2Score has no result before its first update")
        sq, sm, mse, cnt = (v.read_value() for v in self._acc)
        mean = div_no_nan(sm, cnt)
        total = M.subtract(sq, M.multiply(sm, mean))
        raw = M.subtract(1.0, div_no_nan(mse, total))
        raw = A.where(M.equal(total, 0.0), A.zeros_like(raw), raw)
        if self.class_aggregation == "uniform_average":
            r2 = M.reduce_mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            r2 = div_no_nan(M.reduce_sum(M.multiply(total, raw)), M.reduce_sum(total))
        else:
            r2 = raw
        if self.num_regressors:
            n = A.cast(self.num_samples.read_value(), self._dtype)
            p = float(self.num_regressors)
            r2 = M.subtract(1.0, M.divide(M.multiply(M.subtract(1.0, r2), M.subtract(n, 1.0)),
                                          M.subtract(M.subtract(n, p), 1.0)))
        return r2

    def get_config(self) -> Dict[str, Any]:
        """The aggregation and regressor count."""
        return {"name": self.name, "dtype": self.dtype,
                "class_aggregation": self.class_aggregation,
                "num_regressors": self.num_regressors}


__all__ = ["IoU", "MeanIoU", "BinaryIoU", "OneHotIoU", "OneHotMeanIoU", "FBetaScore",
           "F1Score", "R2Score"]
