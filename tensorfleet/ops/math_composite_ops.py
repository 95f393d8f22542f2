"""``tf.math`` functions composed of existing ops (``xlog1py``,
``cumulative_logsumexp``) and the loss-scaling helpers of ``tf.nn``
(``compute_average_loss``, ``scale_regularization_loss``). Their gradients follow from
the ops they are made of."""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.math_ops_reduce import cumsum, reduce_max, reduce_sum
from tensorfleet.ops.op_util import convert_pair


def xlog1py(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """``x * log1p(y)``, and 0 where ``x`` is 0 (whatever ``y``)."""
    with name_scope(name, "xlog1py"):
        a, b = convert_pair(x, y)
        if not a.dtype.is_floating:
            raise TypeError(f"xlog1py: x must be a float tensor, got {a.dtype.name}")
        zero = M.equal(a, A.zeros_like(a))
        safe_b = A.where(zero, A.zeros_like(a * b), b + A.zeros_like(a))
        return A.where(zero, A.zeros_like(a * b), a * M.log1p(safe_b))


def cumulative_logsumexp(x: Any, axis: Any = 0, exclusive: bool = False,
                         reverse: bool = False, name: Optional[str] = None) -> Tensor:
    """``log(cumsum(exp(x)))`` along ``axis``, computed without overflow (shifted by the
    maximum along ``axis``); ``exclusive`` entries start at ``-inf``."""
    with name_scope(name, "CumulativeLogsumexp"):
        t = convert_to_tensor(x, name="x")
        if not t.dtype.is_floating:
            raise TypeError(f"cumulative_logsumexp: x must be a float tensor, got "
                            f"{t.dtype.name}")
        top = A.stop_gradient(reduce_max(t, axis=axis, keepdims=True))
        top = A.where(M.is_finite(top), top, A.zeros_like(top))
        total = cumsum(M.exp(t - top), axis=axis, exclusive=exclusive, reverse=reverse)
        return M.log(total) + top


def compute_average_loss(per_example_loss: Any, sample_weight: Any = None,
                         global_batch_size: Any = None) -> Tensor:
    """The sum of ``per_example_loss`` (times ``sample_weight``) over the global batch
    size (by default the local batch size: one replica per step in graph programs).

    Raises:
      ValueError: a scalar loss or a non-positive ``global_batch_size``.
    """
    with name_scope(None, "compute_average_loss"):
        loss = convert_to_tensor(per_example_loss, name="per_example_loss")
        if loss.shape.ndims == 0:
            raise ValueError("compute_average_loss: per_example_loss must be of rank >= 1, "
                             "one loss per example")
        if sample_weight is not None:
            loss = loss * convert_to_tensor(sample_weight, dtype=loss.dtype)
        if global_batch_size is None:
            size = A.cast(A.shape(loss)[0], loss.dtype)
        else:
            if isinstance(global_batch_size, (int, float)) and global_batch_size <= 0:
                raise ValueError(f"compute_average_loss: global_batch_size must be positive, "
                                 f"got {global_batch_size}")
            size = A.cast(convert_to_tensor(global_batch_size), loss.dtype)
        return M.divide(reduce_sum(loss), size)


def scale_regularization_loss(regularization_loss: Any) -> Tensor:
    """The sum of ``regularization_loss`` divided by the replicas in sync (one in a graph
    program that adds it to an averaged loss once per replica)."""
    with name_scope(None, "scale_regularization_loss"):
        loss = convert_to_tensor(regularization_loss, name="regularization_loss")
        return reduce_sum(loss) / A.cast(A.constant(1), loss.dtype)
