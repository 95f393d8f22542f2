"""Heads of the canned estimators: loss, predictions, metrics and exports from logits.

A head turns the ``[batch, logits_dimension]`` logits of a model into the
``EstimatorSpec`` of a mode. Three heads, as TensorFlow's canned estimators use:

* binary classification: sigmoid cross-entropy, one logit per example;
* multi-class: sparse softmax cross-entropy over ``n_classes`` logits;
* regression: squared error over ``label_dimension`` outputs.

The training loss is the weighted *sum* of the per-example losses of the batch
(TensorFlow 1.x's default reduction); ``average_loss`` in evaluation is their
weighted mean.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Dict, Optional, Sequence

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.estimator import metrics as metrics_lib
from tensorfleet.estimator.estimator import EstimatorSpec, ModeKeys
from tensorfleet.estimator.export.export_output import (ClassificationOutput, PredictOutput,
                                                        RegressionOutput)
from tensorfleet.feature_column.base import FeatureColumn, FeatureTransformationCache
from tensorfleet.framework.graph import Tensor, control_dependencies, convert_to_tensor, \
    name_scope
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.ops import array_ops
from tensorfleet.ops.array_concat_ops import concat
from tensorfleet.ops.array_indexing_ops import gather, tile
from tensorfleet.ops.categorical_ops import as_string, vocabulary_lookup
from tensorfleet.ops.control_flow_ops import Assert
from tensorfleet.ops.math_ops import greater_equal, less, logical_and, maximum, multiply, \
    sigmoid, squared_difference, subtract
from tensorfleet.ops.math_ops_reduce import argmax, reduce_all, reduce_sum
from tensorfleet.ops.nn_ops import sigmoid_cross_entropy_with_logits, softmax, \
    sparse_softmax_cross_entropy_with_logits
from tensorfleet.saved_model import signature_constants

logger = logging.getLogger(__name__)

_DEFAULT_SERVING_KEY = signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY
_CLASSIFY_KEY = "classification"
_REGRESS_KEY = "regression"
_PREDICT_KEY = "predict"

TrainOpFn = Callable[[Tensor], Any]


def _weights(features: Dict[str, Any], weight_column: Any, logits: Tensor) -> Any:
    """The example weights ``[batch, 1]`` (float32), or 1.0 without a weight column."""
    if weight_column is None:
        return 1.0
    if isinstance(weight_column, str):
        if weight_column not in features:
            raise ValueError(f"weight_column {weight_column!r} is not in features "
                             f"({sorted(features)})")
        w = features[weight_column]
    else:
        w = FeatureTransformationCache(features).get(weight_column)
    if isinstance(w, SparseTensor):
        raise ValueError(f"Weight column {weight_column} must be dense, got a SparseTensor")
    w = convert_to_tensor(w)
    if not (w.dtype.is_floating or w.dtype.is_integer):
        raise ValueError(f"Weight column should be castable to float. Given dtype: "
                         f"{w.dtype.name}")
    return array_ops.reshape(array_ops.cast(w, _dtypes.float32), [-1, 1])


def check_weight_column(weight_column: Any) -> Any:
    """``weight_column`` when it is None, a key or a numeric column; ValueError otherwise."""
    if weight_column is None or isinstance(weight_column, str):
        return weight_column
    if isinstance(weight_column, FeatureColumn) and hasattr(weight_column, "normalizer_fn"):
        return weight_column
    raise ValueError(f"Weight column must be either a string or a numeric column, given "
                     f"{weight_column!r}")


class _Head:
    """What the three heads share: the spec of each mode from logits and a loss."""

    logits_dimension = 1

    def __init__(self, weight_column: Any, name: Optional[str] = None):
        self._weight_column = check_weight_column(weight_column)
        self.name = name

    # subclasses define these
    def _labels(self, labels: Any, logits: Tensor) -> Tensor:
        raise TypeError(f"{type(self).__name__} must define _labels")

    def _unreduced_loss(self, labels: Tensor, logits: Tensor) -> Tensor:
        raise TypeError(f"{type(self).__name__} must define _unreduced_loss")

    def _predictions(self, logits: Tensor) -> Dict[str, Tensor]:
        raise TypeError(f"{type(self).__name__} must define _predictions")

    def _export_outputs(self, predictions: Dict[str, Tensor]) -> Dict[str, Any]:
        raise TypeError(f"{type(self).__name__} must define _export_outputs")

    def _metrics(self, labels: Tensor, predictions: Dict[str, Tensor], unreduced: Tensor,
                 weights: Any) -> Dict[str, Any]:
        raise TypeError(f"{type(self).__name__} must define _metrics")

    def _check_logits(self, logits: Any) -> Tensor:
        logits = convert_to_tensor(logits)
        if logits.shape.ndims is not None and logits.shape.ndims != 2:
            raise ValueError(f"logits shape must be [batch_size, {self.logits_dimension}], "
                             f"got {logits.shape}")
        last = logits.shape[-1] if logits.shape.ndims == 2 else None
        if last is not None and last != self.logits_dimension:
            raise ValueError(f"logits shape must be [D0, {self.logits_dimension}], got "
                             f"{logits.shape}")
        return logits

    def create_estimator_spec(self, features: Dict[str, Any], mode: str, logits: Any,
                              labels: Any = None,
                              train_op_fn: Optional[TrainOpFn] = None) -> EstimatorSpec:
        """The ``EstimatorSpec`` of ``mode``: predictions (and export outputs) in PREDICT,
        loss and metrics in EVAL, loss and ``train_op_fn(loss)`` in TRAIN."""
        with name_scope(self.name or "head"):
            logits = self._check_logits(logits)
            predictions = self._predictions(logits)
            if mode == ModeKeys.PREDICT:
                return EstimatorSpec(mode=mode, predictions=predictions,
                                     export_outputs=self._export_outputs(predictions))
            if labels is None:
                raise ValueError(f"You must provide a labels Tensor. Given: None. Suggested "
                                 f"troubleshooting steps: Check that your data contain your "
                                 f"label feature. Check that your input_fn properly parses "
                                 f"and returns labels. (mode {mode})")
            lab = self._labels(labels, logits)
            unreduced = self._unreduced_loss(lab, logits)
            weights = _weights(features, self._weight_column, logits)
            weighted = unreduced if isinstance(weights, float) else multiply(unreduced, weights)
            loss = reduce_sum(weighted, name="training_loss")
            if mode == ModeKeys.EVAL:
                with name_scope("metrics"):
                    metric_ops = self._metrics(lab, predictions, unreduced, weights)
                return EstimatorSpec(mode=mode, predictions=predictions, loss=loss,
                                     eval_metric_ops=metric_ops)
            if train_op_fn is None:
                raise ValueError("train_op_fn cannot be None in TRAIN mode")
            return EstimatorSpec(mode=mode, predictions=predictions, loss=loss,
                                 train_op=train_op_fn(loss))

    def _metric_weights(self, weights: Any) -> Any:
        return None if isinstance(weights, float) else weights


def _check_classes(n_classes: Any) -> int:
    if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)) or \
            n_classes < 2:
        raise ValueError(f"n_classes must be > 1: {n_classes}")
    return int(n_classes)


class _ClassificationHead(_Head):
    """Labels as class ids (or strings of ``label_vocabulary``) for both classifier heads."""

    def __init__(self, n_classes: int, weight_column: Any, label_vocabulary: Any,
                 name: Optional[str] = None):
        super().__init__(weight_column, name)
        self._n_classes = n_classes
        if label_vocabulary is not None:
            if not isinstance(label_vocabulary, (list, tuple)) or \
                    not all(isinstance(v, str) for v in label_vocabulary):
                raise ValueError(f"label_vocabulary should be a list or a tuple of strings. "
                                 f"Given type: {type(label_vocabulary).__name__}")
            if len(label_vocabulary) != n_classes:
                raise ValueError(f"label_vocabulary has {len(label_vocabulary)} entries but "
                                 f"n_classes is {n_classes}")
        self._vocab = list(label_vocabulary) if label_vocabulary is not None else None

    def _labels(self, labels: Any, logits: Tensor) -> Tensor:
        lab = labels if isinstance(labels, Tensor) else convert_to_tensor(labels)
        lab = array_ops.reshape(lab, [-1, 1])
        if self._vocab is not None:
            if lab.dtype is not _dtypes.string:
                raise ValueError("Labels dtype should be string if there is a vocabulary.")
            lab = vocabulary_lookup(lab, self._vocab, default_value=-1, name="class_id_lookup")
        elif lab.dtype is _dtypes.string:
            raise ValueError("Labels are strings: give label_vocabulary to the estimator")
        elif lab.dtype.is_floating:
            lab = array_ops.cast(lab, _dtypes.int64)
        ok = logical_and(greater_equal(lab, array_ops.zeros_like(lab)),
                         less(lab, array_ops.fill(array_ops.shape(lab), array_ops.cast(
                             self._n_classes, lab.dtype))))
        check = Assert(reduce_all(ok), [f"Labels must be class ids in [0, {self._n_classes})"
                                        f" (or entries of label_vocabulary)", lab])
        with control_dependencies([check]):
            return array_ops.identity(array_ops.cast(lab, _dtypes.int64))

    def _class_strings(self, class_ids: Tensor) -> Tensor:
        if self._vocab is None:
            return as_string(class_ids, name="str_classes")
        return gather(array_ops.constant(self._vocab, dtype=_dtypes.string), class_ids,
                      name="str_classes")

    def _all_classes(self, logits: Tensor) -> Tensor:
        names = self._vocab or [str(i) for i in range(self._n_classes)]
        row = array_ops.reshape(array_ops.constant(names, dtype=_dtypes.string), [1, -1])
        batch = array_ops.shape(logits)[:1]
        return tile(row, concat([batch, [1]], 0), name="all_classes")

    def _export_outputs(self, predictions: Dict[str, Tensor]) -> Dict[str, Any]:
        classify = ClassificationOutput(scores=predictions["probabilities"],
                                        classes=self._all_classes(predictions["logits"]))
        return {_DEFAULT_SERVING_KEY: classify, _CLASSIFY_KEY: classify,
                _PREDICT_KEY: PredictOutput(predictions)}


class BinaryClassHead(_ClassificationHead):
    """Two classes from one logit: ``logistic = sigmoid(logit)`` is P(class 1)."""

    logits_dimension = 1

    def __init__(self, weight_column: Any = None, label_vocabulary: Any = None,
                 name: Optional[str] = None):
        super().__init__(2, weight_column, label_vocabulary, name)

    def _unreduced_loss(self, labels: Tensor, logits: Tensor) -> Tensor:
        return sigmoid_cross_entropy_with_logits(labels=array_ops.cast(labels, logits.dtype),
                                                 logits=logits)

    def _predictions(self, logits: Tensor) -> Dict[str, Tensor]:
        with name_scope("predictions"):
            logistic = sigmoid(logits, name="logistic")
            two = concat([array_ops.zeros_like(logits), logits], 1, name="two_class_logits")
            class_ids = array_ops.expand_dims(argmax(two, axis=1), -1, name="class_ids")
            return {"logits": logits, "logistic": logistic,
                    "probabilities": softmax(two, name="probabilities"),
                    "class_ids": class_ids, "classes": self._class_strings(class_ids)}

    def _export_outputs(self, predictions: Dict[str, Tensor]) -> Dict[str, Any]:
        out = super()._export_outputs(predictions)
        out[_REGRESS_KEY] = RegressionOutput(value=predictions["logistic"])
        return out

    def _metrics(self, labels: Tensor, predictions: Dict[str, Tensor], unreduced: Tensor,
                 weights: Any) -> Dict[str, Any]:
        w = self._metric_weights(weights)
        lab_f = array_ops.cast(labels, _dtypes.float32)
        logistic = predictions["logistic"]
        label_mean = metrics_lib.mean(lab_f, weights=w, name="label/mean")
        # The accuracy of always predicting the majority class.
        baseline = tuple(maximum(m, subtract(1.0, m)) for m in label_mean)
        return {"accuracy": metrics_lib.accuracy(labels, predictions["class_ids"], weights=w,
                                                 name="accuracy"),
                "accuracy_baseline": baseline,
                "average_loss": metrics_lib.mean(unreduced, weights=w, name="average_loss"),
                "label/mean": label_mean,
                "prediction/mean": metrics_lib.mean(logistic, weights=w,
                                                    name="prediction/mean"),
                "auc": metrics_lib.auc(lab_f, logistic, weights=w, name="auc"),
                "auc_precision_recall": metrics_lib.auc(lab_f, logistic, weights=w,
                                                        curve="PR", name="auc_precision_recall"),
                "precision": metrics_lib.precision(labels, predictions["class_ids"], weights=w,
                                                   name="precision"),
                "recall": metrics_lib.recall(labels, predictions["class_ids"], weights=w,
                                             name="recall")}


class MultiClassHead(_ClassificationHead):
    """``n_classes`` > 2 classes from as many logits (softmax)."""

    def __init__(self, n_classes: int, weight_column: Any = None, label_vocabulary: Any = None,
                 name: Optional[str] = None):
        super().__init__(_check_classes(n_classes), weight_column, label_vocabulary, name)
        self.logits_dimension = self._n_classes

    def _unreduced_loss(self, labels: Tensor, logits: Tensor) -> Tensor:
        loss = sparse_softmax_cross_entropy_with_logits(
            labels=array_ops.reshape(labels, [-1]), logits=logits)
        return array_ops.expand_dims(loss, -1)

    def _predictions(self, logits: Tensor) -> Dict[str, Tensor]:
        with name_scope("predictions"):
            class_ids = array_ops.expand_dims(argmax(logits, axis=1), -1, name="class_ids")
            return {"logits": logits, "probabilities": softmax(logits, name="probabilities"),
                    "class_ids": class_ids, "classes": self._class_strings(class_ids)}

    def _metrics(self, labels: Tensor, predictions: Dict[str, Tensor], unreduced: Tensor,
                 weights: Any) -> Dict[str, Any]:
        w = self._metric_weights(weights)
        return {"accuracy": metrics_lib.accuracy(labels, predictions["class_ids"], weights=w,
                                                 name="accuracy"),
                "average_loss": metrics_lib.mean(unreduced, weights=w, name="average_loss")}


class RegressionHead(_Head):
    """``label_dimension`` real outputs, squared-error loss."""

    def __init__(self, label_dimension: int = 1, weight_column: Any = None,
                 name: Optional[str] = None):
        super().__init__(weight_column, name)
        if isinstance(label_dimension, bool) or not isinstance(label_dimension, int) or \
                label_dimension < 1:
            raise ValueError(f"Invalid label_dimension {label_dimension}.")
        self.logits_dimension = label_dimension

    def _labels(self, labels: Any, logits: Tensor) -> Tensor:
        lab = labels if isinstance(labels, Tensor) else convert_to_tensor(labels)
        if lab.dtype is _dtypes.string:
            raise ValueError("Regression labels must be numbers, got strings")
        return array_ops.reshape(array_ops.cast(lab, _dtypes.float32),
                                 [-1, self.logits_dimension])

    def _unreduced_loss(self, labels: Tensor, logits: Tensor) -> Tensor:
        return squared_difference(logits, labels)

    def _predictions(self, logits: Tensor) -> Dict[str, Tensor]:
        return {"predictions": array_ops.identity(logits, name="predictions")}

    def _export_outputs(self, predictions: Dict[str, Tensor]) -> Dict[str, Any]:
        value = predictions["predictions"]
        out: Dict[str, Any] = {_PREDICT_KEY: PredictOutput(predictions)}
        if self.logits_dimension == 1:
            regress = RegressionOutput(value=value)
            out[_DEFAULT_SERVING_KEY] = regress
            out[_REGRESS_KEY] = regress
        else:
            out[_DEFAULT_SERVING_KEY] = out[_PREDICT_KEY]
        return out

    def _metrics(self, labels: Tensor, predictions: Dict[str, Tensor], unreduced: Tensor,
                 weights: Any) -> Dict[str, Any]:
        w = self._metric_weights(weights)
        return {"average_loss": metrics_lib.mean(unreduced, weights=w, name="average_loss"),
                "label/mean": metrics_lib.mean(labels, weights=w, name="label/mean"),
                "prediction/mean": metrics_lib.mean(predictions["predictions"], weights=w,
                                                    name="prediction/mean")}


def classification_head(n_classes: int, weight_column: Any = None,
                        label_vocabulary: Optional[Sequence[str]] = None) -> _Head:
    """The binary head for ``n_classes == 2``, the multi-class head above that."""
    n = _check_classes(n_classes)
    if n == 2:
        return BinaryClassHead(weight_column, label_vocabulary)
    return MultiClassHead(n, weight_column, label_vocabulary)


__all__ = ["BinaryClassHead", "MultiClassHead", "RegressionHead", "classification_head",
           "check_weight_column"]
