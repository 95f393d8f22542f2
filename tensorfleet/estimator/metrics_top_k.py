"""The counting behind ``tf.metrics.precision_at_top_k`` and ``recall_at_top_k``: hits of
predictions given as the top-k class ids (``[batch, k]``, e.g. from ``tf.nn.top_k``)
rather than scores."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.estimator.metrics_util import broadcast_weights


def _to_float(x: Any) -> Tensor:
    return A.cast(x, _dtypes.float32)


def top_k_index_hits(labels: Any, predictions_idx: Any, k: Any, class_id: Optional[int],
              weights: Any, fname: str) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    """Per-example (hits, predicted-but-wrong, missed) counts and the weights, hits counted
    over the predictions for precision and over the labels for recall."""
    if isinstance(labels, SparseTensor):
        raise TypeError(f"{fname}: SparseTensor labels are not supported; pass dense class "
                        f"ids [batch] or [batch, num_labels]")
    idx = convert_to_tensor(predictions_idx)
    if not idx.dtype.is_integer or idx.shape.ndims != 2:
        raise ValueError(f"{fname}: predictions_idx must be integer [batch, k], got "
                         f"{idx.dtype.name} {idx.shape}")
    lab = convert_to_tensor(labels)
    if not lab.dtype.is_integer:
        raise TypeError(f"{fname}: labels must be integer class ids, got {lab.dtype.name}")
    idx, lab = A.cast(idx, _dtypes.int64), A.cast(lab, _dtypes.int64)
    if lab.shape.ndims == 1:
        lab = A.expand_dims(lab, 1)
    # Without the number of classes every label id counts, -1 included (as in TensorFlow).
    valid = M.greater_equal(lab, lab.dtype.min)                              # [B, L]
    if class_id is None:
        match = M.logical_and(M.equal(A.expand_dims(idx, 2), A.expand_dims(lab, 1)),
                              A.expand_dims(valid, 1))                       # [B, K, L]
        found_pred = _to_float(M.reduce_any(match, 2))                       # [B, K]
        found_label = _to_float(M.reduce_any(match, 1))                      # [B, L]
        n_pred = _to_float(A.shape(idx)[1])
        if fname.startswith("precision"):
            hits = M.reduce_sum(found_pred, 1)
        else:
            hits = M.reduce_sum(found_label, 1)
        wrong = M.subtract(n_pred, M.reduce_sum(found_pred, 1))
        missed = M.subtract(M.reduce_sum(_to_float(valid), 1), M.reduce_sum(found_label, 1))
    else:
        has_class = M.reduce_any(M.logical_and(valid, M.equal(lab, int(class_id))), 1)
        predicted = M.reduce_any(M.equal(idx, int(class_id)), 1)
        hits = _to_float(M.logical_and(has_class, predicted))
        wrong = _to_float(M.logical_and(M.logical_not(has_class), predicted))
        missed = _to_float(M.logical_and(has_class, M.logical_not(predicted)))
    w = A.reshape(broadcast_weights(weights, A.expand_dims(hits, 1)), [-1])
    return hits, wrong, missed, w


def top_k_name(predictions_idx: Any, k: Optional[int]) -> Any:
    if k is not None:
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        return k
    idx = convert_to_tensor(predictions_idx)
    return idx.shape.as_list()[-1] if idx.shape.ndims else "k"


__all__ = ["top_k_index_hits", "top_k_name"]
