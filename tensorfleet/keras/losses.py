"""``tf.keras.losses``: per-sample loss functions ``fn(y_true, y_pred)`` (reduced over
the last axis), their aliases (``mse``, ``mae`` ...), a few loss classes that
return the batch mean, and ``get``.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.keras import backend_math as K
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M

_EPS = 1e-7


def _pair(y_true: Any, y_pred: Any) -> tuple:
    y_pred = convert_to_tensor(y_pred)
    y_true = A.cast(convert_to_tensor(y_true), y_pred.dtype)
    return y_true, y_pred


def mean_squared_error(y_true: Any, y_pred: Any) -> Tensor:
    """``mean((y_pred - y_true) ** 2)`` over the last axis."""
    t, p = _pair(y_true, y_pred)
    return M.reduce_mean(M.square(M.subtract(p, t)), axis=-1)


def mean_absolute_error(y_true: Any, y_pred: Any) -> Tensor:
    """``mean(|y_pred - y_true|)`` over the last axis."""
    t, p = _pair(y_true, y_pred)
    return M.reduce_mean(M.abs(M.subtract(p, t)), axis=-1)


def mean_absolute_percentage_error(y_true: Any, y_pred: Any) -> Tensor:
    """``100 * mean(|(y_true - y_pred) / y_true|)``, the denominator at least eps."""
    t, p = _pair(y_true, y_pred)
    diff = M.abs(M.divide(M.subtract(t, p), M.maximum(M.abs(t), _EPS)))
    return M.multiply(M.reduce_mean(diff, axis=-1), 100.0)


def mean_squared_logarithmic_error(y_true: Any, y_pred: Any) -> Tensor:
    """``mean((log(1 + y_pred) - log(1 + y_true)) ** 2)``, arguments clipped at eps."""
    t, p = _pair(y_true, y_pred)
    lp = M.log(M.add(M.maximum(p, _EPS), 1.0))
    lt = M.log(M.add(M.maximum(t, _EPS), 1.0))
    return M.reduce_mean(M.square(M.subtract(lp, lt)), axis=-1)


def hinge(y_true: Any, y_pred: Any) -> Tensor:
    """``mean(max(1 - y_true * y_pred, 0))`` (labels in {-1, 1})."""
    t, p = _pair(y_true, y_pred)
    return M.reduce_mean(M.maximum(M.subtract(1.0, M.multiply(t, p)), 0.0), axis=-1)


def squared_hinge(y_true: Any, y_pred: Any) -> Tensor:
    """``mean(max(1 - y_true * y_pred, 0) ** 2)``."""
    t, p = _pair(y_true, y_pred)
    return M.reduce_mean(M.square(M.maximum(M.subtract(1.0, M.multiply(t, p)), 0.0)),
                         axis=-1)


def kullback_leibler_divergence(y_true: Any, y_pred: Any) -> Tensor:
    """``sum(y_true * log(y_true / y_pred))``, both clipped to ``[eps, 1]``."""
    t, p = _pair(y_true, y_pred)
    t = M.clip_by_value(t, _EPS, 1.0)
    p = M.clip_by_value(p, _EPS, 1.0)
    return M.reduce_sum(M.multiply(t, M.log(M.divide(t, p))), axis=-1)


def poisson(y_true: Any, y_pred: Any) -> Tensor:
    """``mean(y_pred - y_true * log(y_pred + eps))``."""
    t, p = _pair(y_true, y_pred)
    return M.reduce_mean(M.subtract(p, M.multiply(t, M.log(M.add(p, _EPS)))), axis=-1)


def categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False) -> Tensor:
    """Cross-entropy of one-hot ``y_true`` against ``y_pred``."""
    return K.categorical_crossentropy(y_true, y_pred, from_logits=from_logits)


def sparse_categorical_crossentropy(y_true: Any, y_pred: Any,
                                    from_logits: bool = False) -> Tensor:
    """Cross-entropy of integer labels ``y_true`` against ``y_pred``."""
    return K.sparse_categorical_crossentropy(y_true, y_pred, from_logits=from_logits)


def binary_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False) -> Tensor:
    """Mean over the last axis of the elementwise binary cross-entropy."""
    t, p = _pair(y_true, y_pred)
    return M.reduce_mean(K.binary_crossentropy(t, p, from_logits=from_logits), axis=-1)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence


class Loss:
    """A loss object: ``loss(y_true, y_pred)`` is the batch mean of ``fn``."""

    fn: Callable[..., Tensor] = staticmethod(mean_squared_error)

    def __init__(self, reduction: str = "sum_over_batch_size", name: Optional[str] = None,
                 **fn_kwargs: Any):
        if reduction not in ("sum_over_batch_size", "auto", "sum", "none"):
            raise ValueError(f"{type(self).__name__}: unknown reduction {reduction!r}")
        self.reduction = reduction
        self.name = name
        self._fn_kwargs = fn_kwargs

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Tensor:
        """The reduced loss of the batch."""
        per_sample = type(self).fn(y_true, y_pred, **self._fn_kwargs)
        if sample_weight is not None:
            per_sample = M.multiply(per_sample, A.cast(sample_weight, per_sample.dtype))
        if self.reduction == "none":
            return per_sample
        if self.reduction == "sum":
            return M.reduce_sum(per_sample)
        return M.reduce_mean(per_sample)


class MeanSquaredError(Loss):
    """Batch mean of ``mean_squared_error``."""


class MeanAbsoluteError(Loss):
    """Batch mean of ``mean_absolute_error``."""

    fn = staticmethod(mean_absolute_error)


class CategoricalCrossentropy(Loss):
    """Batch mean of ``categorical_crossentropy`` (``from_logits`` as given)."""

    fn = staticmethod(categorical_crossentropy)

    def __init__(self, from_logits: bool = False, **kwargs: Any):
        super().__init__(from_logits=from_logits, **kwargs)


class SparseCategoricalCrossentropy(Loss):
    """Batch mean of ``sparse_categorical_crossentropy``."""

    fn = staticmethod(sparse_categorical_crossentropy)

    def __init__(self, from_logits: bool = False, **kwargs: Any):
        super().__init__(from_logits=from_logits, **kwargs)


class BinaryCrossentropy(Loss):
    """Batch mean of ``binary_crossentropy``."""

    fn = staticmethod(binary_crossentropy)

    def __init__(self, from_logits: bool = False, **kwargs: Any):
        super().__init__(from_logits=from_logits, **kwargs)


_BY_NAME = {
    "mean_squared_error": mean_squared_error, "mse": mse, "MSE": mse,
    "mean_absolute_error": mean_absolute_error, "mae": mae, "MAE": mae,
    "mean_absolute_percentage_error": mape, "mape": mape, "MAPE": mape,
    "mean_squared_logarithmic_error": msle, "msle": msle, "MSLE": msle,
    "hinge": hinge, "squared_hinge": squared_hinge,
    "kullback_leibler_divergence": kld, "kld": kld, "KLD": kld, "poisson": poisson,
    "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
    "binary_crossentropy": binary_crossentropy,
}


def get(identifier: Any) -> Any:
    """The loss function named ``identifier``, or a callable as it is.

    Raises:
      ValueError: an unknown name or a non-callable identifier.
    """
    if isinstance(identifier, str):
        fn = _BY_NAME.get(identifier)
        if fn is None:
            raise ValueError(f"Unknown loss function: {identifier!r}")
        return fn
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss function identifier: {identifier!r}")


__all__ = sorted(set(_BY_NAME)) + ["Loss", "MeanSquaredError", "MeanAbsoluteError",
                                   "CategoricalCrossentropy", "SparseCategoricalCrossentropy",
                                   "BinaryCrossentropy", "get"]
