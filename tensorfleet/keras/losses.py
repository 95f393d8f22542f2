"""``tf.keras.losses``: per-sample loss functions ``fn(y_true, y_pred)`` (reduced over
the last axis), their aliases (``mse``, ``mae`` ...), a few loss classes that
return the batch mean, and ``get``.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

import numpy as np

from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.keras import backend_math as K
from tensorfleet.keras import backend_nn as KN
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N

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


def categorical_hinge(y_true: Any, y_pred: Any) -> Tensor:
    """``max(0, 1 + max((1 - y_true) * y_pred) - sum(y_true * y_pred))``."""
    t, p = _pair(y_true, y_pred)
    pos = M.reduce_sum(M.multiply(t, p), axis=-1)
    neg = M.reduce_max(M.multiply(M.subtract(1.0, t), p), axis=-1)
    return M.maximum(M.add(M.subtract(neg, pos), 1.0), 0.0)


def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> Tensor:
    """``-sum(l2_normalize(y_true) * l2_normalize(y_pred))`` over ``axis`` (a loss: -1
    for the same direction)."""
    t, p = _pair(y_true, y_pred)
    t, p = N.l2_normalize(t, axis=axis), N.l2_normalize(p, axis=axis)
    return M.negative(M.reduce_sum(M.multiply(t, p), axis=axis))


def log_cosh(y_true: Any, y_pred: Any) -> Tensor:
    """``mean(log(cosh(y_pred - y_true)))`` over the last axis (computed stably)."""
    t, p = _pair(y_true, y_pred)
    x = M.subtract(p, t)
    # log(cosh(x)) = x + softplus(-2x) - log(2), without overflow for large |x|.
    val = M.subtract(M.add(x, N.softplus(M.multiply(-2.0, x))), float(np.log(2.0)))
    return M.reduce_mean(val, axis=-1)


def huber(y_true: Any, y_pred: Any, delta: float = 1.0) -> Tensor:
    """Mean over the last axis of ``0.5 e^2`` where ``|e| <= delta``, else
    ``delta * (|e| - 0.5 delta)``."""
    t, p = _pair(y_true, y_pred)
    e = M.abs(M.subtract(p, t))
    quad = M.minimum(e, delta)
    lin = M.subtract(e, quad)
    return M.reduce_mean(M.add(M.multiply(0.5, M.square(quad)), M.multiply(delta, lin)),
                         axis=-1)


def binary_focal_crossentropy(y_true: Any, y_pred: Any, apply_class_balancing: bool = False,
                              alpha: float = 0.25, gamma: float = 2.0,
                              from_logits: bool = False, label_smoothing: float = 0.0,
                              axis: int = -1) -> Tensor:
    """Mean over ``axis`` of the focal binary cross-entropy (``backend``'s, with the
    labels smoothed toward 0.5 by ``label_smoothing``)."""
    t, p = _pair(y_true, y_pred)
    if label_smoothing:
        t = M.add(M.multiply(t, 1.0 - label_smoothing), 0.5 * label_smoothing)
    return M.reduce_mean(KN.binary_focal_crossentropy(
        t, p, apply_class_balancing=apply_class_balancing, alpha=alpha, gamma=gamma,
        from_logits=from_logits), axis=axis)


def categorical_focal_crossentropy(y_true: Any, y_pred: Any, alpha: float = 0.25,
                                   gamma: float = 2.0, from_logits: bool = False,
                                   label_smoothing: float = 0.0, axis: int = -1) -> Tensor:
    """The focal categorical cross-entropy of one-hot ``y_true`` (labels smoothed by
    ``label_smoothing``)."""
    t, p = _pair(y_true, y_pred)
    if label_smoothing:
        n = A.cast(A.shape(t)[-1], t.dtype)
        t = M.add(M.multiply(t, 1.0 - label_smoothing), M.divide(label_smoothing, n))
    return KN.categorical_focal_crossentropy(t, p, alpha=alpha, gamma=gamma,
                                             from_logits=from_logits, axis=axis)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kl_divergence = kullback_leibler_divergence
logcosh = log_cosh
cosine = cosine_proximity = cosine_similarity


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

    def get_config(self) -> Dict[str, Any]:
        """The constructor arguments: reduction, name and the function's options."""
        return {"reduction": self.reduction, "name": self.name, **self._fn_kwargs}

    @classmethod
    def from_config(cls, config: Dict[str, Any]) -> "Loss":
        """The loss made from ``get_config()``'s dict."""
        return cls(**config)

    def call(self, y_true: Any, y_pred: Any) -> Tensor:
        """The per-sample loss."""
        return type(self).fn(y_true, y_pred, **self._fn_kwargs)

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Tensor:
        """The reduced loss of the batch."""
        per_sample = self.call(y_true, y_pred)
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


class _LossOf(Loss):
    """A loss class over the function ``fn`` with its keyword arguments."""


def _loss_class(name: str, fn: Callable[..., Tensor], doc: str, **defaults: Any) -> type:
    def __init__(self: Any, reduction: str = "sum_over_batch_size",
                 name: Optional[str] = None, **kwargs: Any) -> None:
        unknown = set(kwargs) - set(defaults)
        if unknown:
            raise ValueError(f"{type(self).__name__}: unsupported arguments {sorted(unknown)}")
        Loss.__init__(self, reduction=reduction, name=name, **{**defaults, **kwargs})
    return type(name, (_LossOf,), {"fn": staticmethod(fn), "__init__": __init__,
                                   "__doc__": doc})


Hinge = _loss_class("Hinge", hinge, "Batch mean of ``hinge``.")
SquaredHinge = _loss_class("SquaredHinge", squared_hinge, "Batch mean of ``squared_hinge``.")
CategoricalHinge = _loss_class("CategoricalHinge", categorical_hinge,
                               "Batch mean of ``categorical_hinge``.")
KLDivergence = _loss_class("KLDivergence", kullback_leibler_divergence,
                           "Batch mean of ``kl_divergence``.")
LogCosh = _loss_class("LogCosh", log_cosh, "Batch mean of ``log_cosh``.")
MeanAbsolutePercentageError = _loss_class("MeanAbsolutePercentageError",
                                          mean_absolute_percentage_error,
                                          "Batch mean of ``mean_absolute_percentage_error``.")
MeanSquaredLogarithmicError = _loss_class("MeanSquaredLogarithmicError",
                                          mean_squared_logarithmic_error,
                                          "Batch mean of ``mean_squared_logarithmic_error``.")
Poisson = _loss_class("Poisson", poisson, "Batch mean of ``poisson``.")
Huber = _loss_class("Huber", huber, "Batch mean of ``huber`` (``delta`` as given).",
                    delta=1.0)
CosineSimilarity = _loss_class("CosineSimilarity", cosine_similarity,
                               "Batch mean of ``cosine_similarity`` along ``axis``.", axis=-1)
BinaryFocalCrossentropy = _loss_class(
    "BinaryFocalCrossentropy", binary_focal_crossentropy,
    "Batch mean of ``binary_focal_crossentropy``.", apply_class_balancing=False, alpha=0.25,
    gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1)
CategoricalFocalCrossentropy = _loss_class(
    "CategoricalFocalCrossentropy", categorical_focal_crossentropy,
    "Batch mean of ``categorical_focal_crossentropy``.", alpha=0.25, gamma=2.0,
    from_logits=False, label_smoothing=0.0, axis=-1)
_CLASSES = ["Loss", "MeanSquaredError", "MeanAbsoluteError", "CategoricalCrossentropy",
            "SparseCategoricalCrossentropy", "BinaryCrossentropy", "Hinge", "SquaredHinge",
            "CategoricalHinge", "KLDivergence", "LogCosh", "MeanAbsolutePercentageError",
            "MeanSquaredLogarithmicError", "Poisson", "Huber", "CosineSimilarity",
            "BinaryFocalCrossentropy", "CategoricalFocalCrossentropy"]


_BY_NAME = {
    "mean_squared_error": mean_squared_error, "mse": mse, "MSE": mse,
    "mean_absolute_error": mean_absolute_error, "mae": mae, "MAE": mae,
    "mean_absolute_percentage_error": mape, "mape": mape, "MAPE": mape,
    "mean_squared_logarithmic_error": msle, "msle": msle, "MSLE": msle,
    "hinge": hinge, "squared_hinge": squared_hinge,
    "kullback_leibler_divergence": kld, "kld": kld, "KLD": kld, "poisson": poisson,
    "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
    "binary_crossentropy": binary_crossentropy, "categorical_hinge": categorical_hinge,
    "cosine_similarity": cosine_similarity, "cosine": cosine,
    "cosine_proximity": cosine_proximity, "log_cosh": log_cosh, "logcosh": logcosh,
    "huber": huber, "kl_divergence": kl_divergence,
    "binary_focal_crossentropy": binary_focal_crossentropy,
    "categorical_focal_crossentropy": categorical_focal_crossentropy,
}


def get(identifier: Any) -> Any:
    """The loss function named ``identifier``, or a callable as it is.

    Raises:
      ValueError: an unknown name or a non-callable identifier.
    """
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        fn = _BY_NAME.get(identifier)
        if fn is None:
            raise ValueError(f"Unknown loss function: {identifier!r}")
        return fn
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss function identifier: {identifier!r}")


def serialize(loss: Any) -> Any:
    """A loss function's name, or a loss object's ``{"class_name", "config"}``."""
    if isinstance(loss, Loss):
        return {"class_name": type(loss).__name__, "config": loss.get_config()}
    name = getattr(loss, "__name__", None)
    if name in _BY_NAME:
        return name
    raise ValueError(f"Cannot serialize loss {loss!r}")


def deserialize(name: Any, custom_objects: Optional[Dict[str, Any]] = None) -> Any:
    """The loss a ``serialize`` result names (``custom_objects`` first).

    Raises:
      ValueError: an unknown name or class.
    """
    custom = custom_objects or {}
    if isinstance(name, dict):
        cls_name, cfg = name.get("class_name"), dict(name.get("config") or {})
        cls = custom.get(cls_name) or (globals().get(cls_name) if cls_name in _CLASSES
                                       else None)
        if cls is None:
            raise ValueError(f"Unknown loss class: {cls_name!r}")
        return cls(**cfg)
    if name in custom:
        return custom[name]
    return get(name)


__all__ = sorted(set(_BY_NAME)) + _CLASSES + ["get", "serialize", "deserialize"]
