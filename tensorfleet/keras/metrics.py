"""``tf.keras.metrics``: per-sample metric functions ``fn(y_true, y_pred)`` and the
stateful metric objects (``Mean``, ``AUC``, ``Precision`` ...).

``compile(metrics=['accuracy'])`` picks binary, categorical or sparse
categorical accuracy from the loss and the output shape, as TF 1.x Keras does,
and reports it as ``acc``. The loss functions are metrics too (``'mse'``...).
"""

from __future__ import annotations

from typing import Any, Dict, Optional

from tensorfleet.keras import losses as _losses
from tensorfleet.keras.accuracy import (binary_accuracy, categorical_accuracy,
                                        sparse_categorical_accuracy,
                                        sparse_top_k_categorical_accuracy,
                                        top_k_categorical_accuracy)
from tensorfleet.keras.losses import (  # noqa: F401  (the losses are metrics too)
    KLD, MAE, MAPE, MSE, MSLE, binary_crossentropy, binary_focal_crossentropy,
    categorical_crossentropy, categorical_focal_crossentropy, categorical_hinge, cosine,
    cosine_proximity, hinge, huber, kl_divergence, kld, kullback_leibler_divergence,
    log_cosh, logcosh, mae, mape, mean_absolute_error, mean_absolute_percentage_error,
    mean_squared_error, mean_squared_logarithmic_error, mse, msle, poisson,
    sparse_categorical_crossentropy, squared_hinge)
from tensorfleet.keras.metric_objects import Mean, MeanMetricWrapper, MeanTensor, Metric, Sum
from tensorfleet.keras.metric_wrappers import (  # noqa: F401
    Accuracy, BinaryAccuracy, BinaryCrossentropy, CategoricalAccuracy,
    CategoricalCrossentropy, CategoricalHinge, CosineSimilarity, Hinge, KLDivergence,
    LogCoshError, MeanAbsoluteError, MeanAbsolutePercentageError, MeanRelativeError,
    MeanSquaredError, MeanSquaredLogarithmicError, Poisson, RootMeanSquaredError,
    SparseCategoricalAccuracy, SparseCategoricalCrossentropy, SparseTopKCategoricalAccuracy,
    SquaredHinge, TopKCategoricalAccuracy)
from tensorfleet.keras.metrics_confusion import (  # noqa: F401
    AUC, FalseNegatives, FalsePositives, Precision, PrecisionAtRecall, Recall,
    RecallAtPrecision, SensitivityAtSpecificity, SpecificityAtSensitivity, TrueNegatives,
    TruePositives)
from tensorfleet.keras.metrics_scores import (  # noqa: F401
    BinaryIoU, F1Score, FBetaScore, IoU, MeanIoU, OneHotIoU, OneHotMeanIoU, R2Score)

accuracy = categorical_accuracy
acc = categorical_accuracy

_BY_NAME = {
    "binary_accuracy": binary_accuracy, "categorical_accuracy": categorical_accuracy,
    "sparse_categorical_accuracy": sparse_categorical_accuracy,
    "top_k_categorical_accuracy": top_k_categorical_accuracy,
    "sparse_top_k_categorical_accuracy": sparse_top_k_categorical_accuracy,
}


_CLASSES = ["Metric", "Sum", "Mean", "MeanTensor", "MeanMetricWrapper", "Accuracy",
            "BinaryAccuracy", "BinaryCrossentropy", "CategoricalAccuracy",
            "CategoricalCrossentropy", "CategoricalHinge", "CosineSimilarity", "Hinge",
            "KLDivergence", "LogCoshError", "MeanAbsoluteError", "MeanAbsolutePercentageError",
            "MeanRelativeError", "MeanSquaredError", "MeanSquaredLogarithmicError", "Poisson",
            "RootMeanSquaredError", "SparseCategoricalAccuracy", "SparseCategoricalCrossentropy",
            "SparseTopKCategoricalAccuracy", "SquaredHinge", "TopKCategoricalAccuracy", "AUC",
            "FalseNegatives", "FalsePositives", "Precision", "PrecisionAtRecall", "Recall",
            "RecallAtPrecision", "SensitivityAtSpecificity", "SpecificityAtSensitivity",
            "TrueNegatives", "TruePositives", "BinaryIoU", "F1Score", "FBetaScore", "IoU",
            "MeanIoU", "OneHotIoU", "OneHotMeanIoU", "R2Score"]


def serialize(metric: Any) -> Any:
    """A metric function's name, or a metric object's ``{"class_name", "config"}``."""
    if isinstance(metric, Metric):
        return {"class_name": type(metric).__name__, "config": metric.get_config()}
    name = getattr(metric, "__name__", None)
    if name in _BY_NAME:
        return name
    return _losses.serialize(metric)


def deserialize(config: Any, custom_objects: Optional[Dict[str, Any]] = None) -> Any:
    """The metric a ``serialize`` result names (``custom_objects`` first).

    Raises:
      ValueError: an unknown name or class.
    """
    custom = custom_objects or {}
    if isinstance(config, dict):
        cls_name = config.get("class_name")
        cls = custom.get(cls_name) or (globals().get(cls_name) if cls_name in _CLASSES
                                       else None)
        if cls is None:
            raise ValueError(f"Unknown metric class: {cls_name!r}")
        return cls.from_config(dict(config.get("config") or {}))
    if config in custom:
        return custom[config]
    return get(config)


def get(identifier: Any) -> Any:
    """The metric function named ``identifier`` (metrics and losses), a metric object
    from its config dict, or a callable as it is.

    Raises:
      ValueError: an unknown name.
    """
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str) and identifier in _BY_NAME:
        return _BY_NAME[identifier]
    return _losses.get(identifier)


def accuracy_for(loss_fn: Any, output_shape: Any) -> Any:
    """The accuracy TF 1.x Keras uses for ``'accuracy'`` with this loss and output."""
    name = getattr(loss_fn, "__name__", "")
    fn = getattr(loss_fn, "fn", None)
    name = getattr(fn, "__name__", name)
    last = output_shape[-1] if output_shape.ndims else None
    if name == "binary_crossentropy" or last == 1:
        return binary_accuracy
    if name == "sparse_categorical_crossentropy":
        return sparse_categorical_accuracy
    return categorical_accuracy


__all__ = sorted(_BY_NAME) + _CLASSES + [
    "accuracy", "acc", "get", "serialize", "deserialize", "binary_crossentropy",
    "categorical_crossentropy", "sparse_categorical_crossentropy", "mean_squared_error",
    "mean_absolute_error", "mean_absolute_percentage_error", "mean_squared_logarithmic_error",
    "mse", "mae", "mape", "msle", "MSE", "MAE", "MAPE", "MSLE", "KLD", "hinge",
    "squared_hinge", "categorical_hinge", "poisson", "kld", "kl_divergence",
    "kullback_leibler_divergence", "log_cosh", "logcosh", "cosine", "cosine_proximity",
    "huber", "binary_focal_crossentropy", "categorical_focal_crossentropy"]
