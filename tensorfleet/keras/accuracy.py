"""The Keras accuracy functions: per-sample hits of predictions against labels."""

from __future__ import annotations

from typing import Any

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N


def _float(x: Tensor) -> Tensor:
    return A.cast(x, _dtypes.float32)


def binary_accuracy(y_true: Any, y_pred: Any, threshold: float = 0.5) -> Tensor:
    """Mean over the last axis of ``(y_pred > threshold) == y_true``."""
    y_pred = convert_to_tensor(y_pred)
    y_true = A.cast(convert_to_tensor(y_true), y_pred.dtype)
    hit = M.equal(y_true, A.cast(M.greater(y_pred, threshold), y_pred.dtype))
    return M.reduce_mean(_float(hit), axis=-1)


def categorical_accuracy(y_true: Any, y_pred: Any) -> Tensor:
    """1 where the arg-max of ``y_pred`` is the arg-max of one-hot ``y_true``."""
    return _float(M.equal(M.argmax(y_true, axis=-1), M.argmax(y_pred, axis=-1)))


def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> Tensor:
    """1 where the arg-max of ``y_pred`` is the integer label ``y_true``."""
    y_pred = convert_to_tensor(y_pred)
    y_true = convert_to_tensor(y_true)
    labels = A.reshape(y_true, [-1]) if y_true.shape.ndims != 1 else y_true
    pred = A.reshape(M.argmax(y_pred, axis=-1), [-1])
    return _float(M.equal(A.cast(labels, pred.dtype), pred))


def top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5) -> Tensor:
    """1 where the true class (one-hot) is among the ``k`` highest predictions."""
    return _float(N.in_top_k(y_pred, M.argmax(y_true, axis=-1), k))


def sparse_top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5) -> Tensor:
    """1 where the integer label is among the ``k`` highest predictions."""
    labels = A.cast(A.reshape(convert_to_tensor(y_true), [-1]), _dtypes.int32)
    return _float(N.in_top_k(y_pred, labels, k))


__all__ = ["binary_accuracy", "categorical_accuracy", "sparse_categorical_accuracy",
           "top_k_categorical_accuracy", "sparse_top_k_categorical_accuracy"]
