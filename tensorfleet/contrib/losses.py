"""``tf.contrib.losses`` (also ``slim.losses``): the losses with their TF 1.0 argument order.

These predate ``tf.losses`` and take the model output first (``logits`` or
``predictions``) and the labels second; they compute the same values as
``tf.losses`` (weighted, averaged over the non-zero weights) and add the loss to
``GraphKeys.LOSSES``.
"""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet.ops import losses_ops as _losses
from tensorfleet.framework.graph import Tensor
from tensorfleet.ops.losses_ops import (  # noqa: F401
    add_loss, get_losses, get_regularization_losses, get_total_loss)


def _labels(labels: Any, fname: str) -> Any:
    if labels is None:
        raise ValueError(f"{fname}: labels must not be None")
    return labels


def compute_weighted_loss(losses: Any, weights: Any = 1.0, scope: Optional[str] = None) -> Tensor:
    """The weighted mean of ``losses`` over the non-zero weights, added to ``LOSSES``."""
    return _losses.compute_weighted_loss(losses, weights, scope=scope)


def softmax_cross_entropy(logits: Any, onehot_labels: Any, weights: Any = 1.0,
                          label_smoothing: float = 0, scope: Optional[str] = None) -> Tensor:
    """Softmax cross entropy of ``logits`` against one-hot labels (logits first)."""
    return _losses.softmax_cross_entropy(onehot_labels, logits, weights,
                                         label_smoothing=label_smoothing, scope=scope)


def sparse_softmax_cross_entropy(logits: Any, labels: Any, weights: Any = 1.0,
                                 scope: Optional[str] = None) -> Tensor:
    """Softmax cross entropy of ``logits`` against class ids (logits first)."""
    return _losses.sparse_softmax_cross_entropy(labels, logits, weights, scope=scope)


def sigmoid_cross_entropy(logits: Any, multi_class_labels: Any, weights: Any = 1.0,
                          label_smoothing: float = 0, scope: Optional[str] = None) -> Tensor:
    """Sigmoid cross entropy of ``logits`` against 0/1 labels (logits first)."""
    return _losses.sigmoid_cross_entropy(multi_class_labels, logits, weights,
                                         label_smoothing=label_smoothing, scope=scope)


def mean_squared_error(predictions: Any, labels: Any = None, weights: Any = 1.0,
                       scope: Optional[str] = None) -> Tensor:
    """Weighted mean of ``(predictions - labels) ** 2`` (predictions first)."""
    return _losses.mean_squared_error(_labels(labels, "mean_squared_error"), predictions,
                                      weights, scope=scope)


def absolute_difference(predictions: Any, labels: Any = None, weights: Any = 1.0,
                        scope: Optional[str] = None) -> Tensor:
    """Weighted mean of ``|predictions - labels|`` (predictions first)."""
    return _losses.absolute_difference(_labels(labels, "absolute_difference"), predictions,
                                       weights, scope=scope)


def log_loss(predictions: Any, labels: Any = None, weights: Any = 1.0, epsilon: float = 1e-7,
             scope: Optional[str] = None) -> Tensor:
    """Weighted mean negative log likelihood of 0/1 labels (predictions first)."""
    return _losses.log_loss(_labels(labels, "log_loss"), predictions, weights,
                            epsilon=epsilon, scope=scope)


__all__ = ["add_loss", "get_losses", "get_regularization_losses", "get_total_loss",
           "compute_weighted_loss", "softmax_cross_entropy", "sparse_softmax_cross_entropy",
           "sigmoid_cross_entropy", "mean_squared_error", "absolute_difference", "log_loss"]
