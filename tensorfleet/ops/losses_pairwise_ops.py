"""``tf.losses.mean_pairwise_squared_error``.

For each example (the first dimension indexes examples) it averages, over all pairs of
its present elements, the squared difference between the predicted and the true
difference of the pair. With ``d = predictions - labels`` over an example's ``n``
present elements that average is ``2 * sum(d**2) / (n - 1) - 2 * sum(d)**2 / (n (n - 1))``
(0 when ``n < 2``). An element is present where its broadcast weight is non-zero. The
per-example values are multiplied by ``weights`` and summed over the batch, as in
TF 1.x (it is not divided by the batch size).
"""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import (GraphKeys, Tensor, add_to_collection,
                                         convert_to_tensor, name_scope)
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M

__all__ = ["mean_pairwise_squared_error"]


def _div_or_zero(num: Tensor, den: Tensor) -> Tensor:
    # Zero where the denominator is not positive; the inner where keeps the gradient of
    # the untaken division finite. Named "value" as TensorFlow's pieces are, so the result
    # is ".../value_2".
    ok = M.greater(den, 0)
    return A.where(ok, M.truediv(num, A.where(ok, den, A.ones_like(den))), A.zeros_like(num),
                   name="value")


def mean_pairwise_squared_error(labels: Any, predictions: Any, weights: Any = 1.0,
                                scope: Optional[str] = None,
                                loss_collection: Optional[str] = GraphKeys.LOSSES) -> Tensor:
    """Sum over examples of ``weights`` times the mean squared pairwise-difference error.

    Raises:
      ValueError: if labels and predictions have incompatible shapes, the rank is
        unknown or below 2, or the weights cannot broadcast to the predictions.
    """
    with name_scope(scope, default_name="mean_pairwise_squared_error"):
        if labels is None or predictions is None:
            raise ValueError("mean_pairwise_squared_error: labels and predictions are required")
        p = convert_to_tensor(predictions)
        if not p.dtype.is_floating:
            p = A.cast(p, _dtypes.float32)
        lab = A.cast(convert_to_tensor(labels), p.dtype)
        if not p.shape.is_compatible_with(lab.shape):
            raise ValueError(f"mean_pairwise_squared_error: labels of shape {lab.shape} do not "
                             f"match predictions of shape {p.shape}")
        r = p.shape.ndims
        if r is None or r < 2:
            raise ValueError("mean_pairwise_squared_error needs predictions of known rank of at "
                             f"least 2 (examples first), got shape {p.shape}")
        w = A.cast(convert_to_tensor(weights), p.dtype)
        if w.shape.ndims is not None and w.shape.ndims not in (0, r):
            raise ValueError(f"weights of shape {w.shape} can not be broadcast to values of "
                             f"shape {p.shape}: give a scalar or a tensor of rank {r}")
        axes = list(range(1, r))
        d = M.subtract(p, lab)
        present = A.cast(M.not_equal(M.multiply(w, A.ones_like(d)), 0), p.dtype)
        n = M.reduce_sum(present, axes, keepdims=True)
        sum_sq = M.reduce_sum(M.square(d), axes, keepdims=True)
        total = M.reduce_sum(d, axes, keepdims=True)
        term1 = M.multiply(2.0, _div_or_zero(sum_sq, M.maximum(n - 1.0, 0.0)))
        term2 = M.multiply(2.0, _div_or_zero(M.square(total),
                                             M.maximum(M.multiply(n, n - 1.0), 0.0)))
        loss = M.reduce_sum(M.multiply(term1 - term2, w))
        out = A.where(M.greater(M.reduce_sum(n), 0), loss, A.zeros_like(loss), name="value")
        if loss_collection is not None:
            add_to_collection(loss_collection, out)
        return out
