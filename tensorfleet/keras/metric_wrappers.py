"""Keras metric classes that are the running mean of a per-sample function
(``MeanMetricWrapper`` subclasses: accuracies, cross-entropies, errors, hinges ...), plus
``RootMeanSquaredError`` and ``MeanRelativeError``."""

from __future__ import annotations

from typing import Any, Callable, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.keras import accuracy as _acc
from tensorfleet.keras import backend_math as KM
from tensorfleet.keras import losses as _losses
from tensorfleet.keras.metric_objects import Mean, MeanMetricWrapper
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.math_ops_special import div_no_nan


def accuracy(y_true: Any, y_pred: Any) -> Tensor:
    """1 where ``y_pred`` equals ``y_true`` exactly."""
    y_pred = convert_to_tensor(y_pred)
    return A.cast(M.equal(A.cast(y_true, y_pred.dtype), y_pred), _dtypes.float32)


def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> Tensor:
    """``sum(l2_normalize(y_true) * l2_normalize(y_pred))`` over ``axis`` (1 for the same
    direction)."""
    return M.negative(_losses.cosine_similarity(y_true, y_pred, axis=axis))


def _smoothed_binary(y_true: Any, y_pred: Any, from_logits: bool = False,
                     label_smoothing: float = 0.0) -> Tensor:
    y_pred = convert_to_tensor(y_pred)
    t = A.cast(y_true, y_pred.dtype)
    if label_smoothing:
        t = M.add(M.multiply(t, 1.0 - label_smoothing), 0.5 * label_smoothing)
    return _losses.binary_crossentropy(t, y_pred, from_logits=from_logits)


def _smoothed_categorical(y_true: Any, y_pred: Any, from_logits: bool = False,
                          label_smoothing: float = 0.0) -> Tensor:
    y_pred = convert_to_tensor(y_pred)
    t = A.cast(y_true, y_pred.dtype)
    if label_smoothing:
        n = A.cast(A.shape(t)[-1], t.dtype)
        t = M.add(M.multiply(t, 1.0 - label_smoothing), M.divide(label_smoothing, n))
    return KM.categorical_crossentropy(t, y_pred, from_logits=from_logits)


def _sparse_ce(y_true: Any, y_pred: Any, from_logits: bool = False, axis: int = -1) -> Tensor:
    if axis != -1:
        raise ValueError("SparseCategoricalCrossentropy: only axis=-1 is supported")
    return KM.sparse_categorical_crossentropy(y_true, y_pred, from_logits=from_logits)


def _wrapper(cls_name: str, fn: Callable[..., Tensor], default_name: str, doc: str,
             **defaults: Any) -> type:
    def __init__(self: Any, name: str = default_name, dtype: Any = None, **kwargs: Any) -> None:
        unknown = set(kwargs) - set(defaults)
        if unknown:
            raise ValueError(f"{cls_name}: unsupported arguments {sorted(unknown)}")
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **{**defaults, **kwargs})
    return type(cls_name, (MeanMetricWrapper,), {"__init__": __init__, "__doc__": doc})


Accuracy = _wrapper("Accuracy", accuracy, "accuracy",
                    "How often ``y_pred`` equals ``y_true`` exactly.")
BinaryAccuracy = _wrapper("BinaryAccuracy", _acc.binary_accuracy, "binary_accuracy",
                          "How often ``y_pred > threshold`` matches the binary label.",
                          threshold=0.5)
CategoricalAccuracy = _wrapper("CategoricalAccuracy", _acc.categorical_accuracy,
                               "categorical_accuracy",
                               "How often the arg-max matches the one-hot label.")
SparseCategoricalAccuracy = _wrapper("SparseCategoricalAccuracy", _acc.sparse_categorical_accuracy,
                                     "sparse_categorical_accuracy",
                                     "How often the arg-max matches the integer label.")
TopKCategoricalAccuracy = _wrapper("TopKCategoricalAccuracy", _acc.top_k_categorical_accuracy,
                                   "top_k_categorical_accuracy",
                                   "How often the one-hot label is in the top ``k``.", k=5)
SparseTopKCategoricalAccuracy = _wrapper("SparseTopKCategoricalAccuracy",
                                         _acc.sparse_top_k_categorical_accuracy,
                                         "sparse_top_k_categorical_accuracy",
                                         "How often the integer label is in the top ``k``.",
                                         k=5)
BinaryCrossentropy = _wrapper("BinaryCrossentropy", _smoothed_binary, "binary_crossentropy",
                              "Mean binary cross-entropy.", from_logits=False,
                              label_smoothing=0.0)
CategoricalCrossentropy = _wrapper("CategoricalCrossentropy", _smoothed_categorical,
                                   "categorical_crossentropy",
                                   "Mean categorical cross-entropy.", from_logits=False,
                                   label_smoothing=0.0)
SparseCategoricalCrossentropy = _wrapper("SparseCategoricalCrossentropy", _sparse_ce,
                                         "sparse_categorical_crossentropy",
                                         "Mean sparse categorical cross-entropy.",
                                         from_logits=False, axis=-1)
CategoricalHinge = _wrapper("CategoricalHinge", _losses.categorical_hinge, "categorical_hinge",
                            "Mean categorical hinge.")
CosineSimilarity = _wrapper("CosineSimilarity", cosine_similarity, "cosine_similarity",
                            "Mean cosine similarity along ``axis``.", axis=-1)
Hinge = _wrapper("Hinge", _losses.hinge, "hinge", "Mean hinge.")
SquaredHinge = _wrapper("SquaredHinge", _losses.squared_hinge, "squared_hinge",
                        "Mean squared hinge.")
KLDivergence = _wrapper("KLDivergence", _losses.kullback_leibler_divergence,
                        "kullback_leibler_divergence", "Mean KL divergence.")
LogCoshError = _wrapper("LogCoshError", _losses.log_cosh, "logcosh", "Mean log-cosh error.")
MeanAbsoluteError = _wrapper("MeanAbsoluteError", _losses.mean_absolute_error,
                             "mean_absolute_error", "Mean absolute error.")
MeanAbsolutePercentageError = _wrapper("MeanAbsolutePercentageError",
                                       _losses.mean_absolute_percentage_error,
                                       "mean_absolute_percentage_error",
                                       "Mean absolute percentage error.")
MeanSquaredError = _wrapper("MeanSquaredError", _losses.mean_squared_error,
                            "mean_squared_error", "Mean squared error.")
MeanSquaredLogarithmicError = _wrapper("MeanSquaredLogarithmicError",
                                       _losses.mean_squared_logarithmic_error,
                                       "mean_squared_logarithmic_error",
                                       "Mean squared logarithmic error.")
Poisson = _wrapper("Poisson", _losses.poisson, "poisson", "Mean Poisson loss.")


class RootMeanSquaredError(Mean):
    """``sqrt`` of the running mean squared error."""

    def __init__(self, name: str = "root_mean_squared_error", dtype: Any = None):
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true: Any, y_pred: Any,  # type: ignore[override]
                     sample_weight: Any = None) -> Any:
        """Adds the batch's squared errors."""
        y_pred = A.cast(y_pred, self._dtype)
        err = M.square(M.subtract(y_pred, A.cast(y_true, self._dtype)))
        return super().update_state(err, sample_weight)

    def result(self) -> Tensor:
        """The root of the mean squared error."""
        return M.sqrt(super().result())


class MeanRelativeError(Mean):
    """The running mean of ``|y_pred - y_true| / normalizer`` (0 where the normalizer is
    0)."""

    def __init__(self, normalizer: Any, name: Optional[str] = None, dtype: Any = None):
        super().__init__(name=name or "mean_relative_error", dtype=dtype)
        self.normalizer = normalizer

    def update_state(self, y_true: Any, y_pred: Any,  # type: ignore[override]
                     sample_weight: Any = None) -> Any:
        """Adds the batch's relative errors."""
        y_pred = A.cast(y_pred, self._dtype)
        norm = A.cast(self.normalizer, self._dtype)
        rel = div_no_nan(M.abs(M.subtract(y_pred, A.cast(y_true, self._dtype))), norm)
        return super().update_state(rel, sample_weight)


__all__ = ["accuracy", "cosine_similarity", "Accuracy", "BinaryAccuracy",
           "CategoricalAccuracy", "SparseCategoricalAccuracy", "TopKCategoricalAccuracy",
           "SparseTopKCategoricalAccuracy", "BinaryCrossentropy", "CategoricalCrossentropy",
           "SparseCategoricalCrossentropy", "CategoricalHinge", "CosineSimilarity", "Hinge",
           "SquaredHinge", "KLDivergence", "LogCoshError", "MeanAbsoluteError",
           "MeanAbsolutePercentageError", "MeanSquaredError", "MeanSquaredLogarithmicError",
           "Poisson", "RootMeanSquaredError", "MeanRelativeError"]
