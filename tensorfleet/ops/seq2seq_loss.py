"""Weighted cross-entropy losses over sequences, as ``tf.contrib`` has them.

``legacy_seq2seq.sequence_loss_by_example`` and ``sequence_loss`` take lists
of per-step tensors (logits [batch, classes], targets [batch], weights
[batch]); ``seq2seq.sequence_loss`` takes whole tensors ([batch, time,
classes], [batch, time], [batch, time]) and chooses what to average or sum.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional

from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops.math_ops_reduce import count_nonzero, reduce_sum

LossFn = Optional[Callable[..., Any]]


def _xent(labels: Any, logits: Any, loss_fn: LossFn) -> Tensor:
    if loss_fn is None:
        return N.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return loss_fn(labels=labels, logits=logits)


def sequence_loss_by_example(logits: List[Any], targets: List[Any], weights: List[Any],
                             average_across_timesteps: bool = True,
                             softmax_loss_function: LossFn = None,
                             name: Optional[str] = None) -> Tensor:
    """Weighted cross entropy per example: ``sum_t w_t * xent_t`` ([batch]).

    With ``average_across_timesteps`` the sum is divided by ``sum_t w_t``
    (plus 1e-12, so all-zero weights give 0, not NaN).
    ``softmax_loss_function(labels=..., logits=...)`` replaces the sparse
    softmax cross entropy.
    """
    if len(targets) != len(logits) or len(weights) != len(logits):
        raise ValueError(f"Lengths of logits, weights, and targets must be the same "
                         f"{len(logits)}, {len(weights)}, {len(targets)}.")
    if not logits:
        raise ValueError("sequence_loss_by_example: logits must not be empty")
    with name_scope(name or "sequence_loss_by_example"):
        terms = []
        for logit, target, weight in zip(logits, targets, weights):
            target = A.reshape(convert_to_tensor(target), [-1])
            terms.append(M.multiply(_xent(target, logit, softmax_loss_function), weight))
        log_perps = M.add_n(terms) if len(terms) > 1 else terms[0]
        if average_across_timesteps:
            total = M.add_n([convert_to_tensor(w) for w in weights]) if len(weights) > 1 \
                else convert_to_tensor(weights[0])
            log_perps = M.divide(log_perps, M.add(total, 1e-12))
    return log_perps


def legacy_sequence_loss(logits: List[Any], targets: List[Any], weights: List[Any],
                         average_across_timesteps: bool = True,
                         average_across_batch: bool = True,
                         softmax_loss_function: LossFn = None,
                         name: Optional[str] = None) -> Tensor:
    """The sum over the batch of ``sequence_loss_by_example``, divided by the batch size
    when ``average_across_batch``: a scalar."""
    with name_scope(name or "sequence_loss"):
        cost = reduce_sum(sequence_loss_by_example(
            logits, targets, weights, average_across_timesteps=average_across_timesteps,
            softmax_loss_function=softmax_loss_function))
        if average_across_batch:
            batch = A.shape(convert_to_tensor(targets[0]))[0]
            cost = M.divide(cost, A.cast(batch, cost.dtype))
    return cost


def _div_no_nan(x: Tensor, y: Tensor) -> Tensor:
    # x / y where y != 0, else 0 (the inner where keeps the division finite, so
    # its gradient is finite too).
    nz = M.not_equal(y, A.zeros_like(y))
    safe = A.where(nz, y, A.ones_like(y))
    return A.where(nz, M.divide(x, safe), A.zeros_like(x))


def sequence_loss(logits: Any, targets: Any, weights: Any,
                  average_across_timesteps: bool = True, average_across_batch: bool = True,
                  sum_over_timesteps: bool = False, sum_over_batch: bool = False,
                  softmax_loss_function: LossFn = None, name: Optional[str] = None) -> Tensor:
    """Weighted cross entropy of [batch, time, classes] logits against [batch, time] targets.

    * average over both axes: ``sum(w * xent) / sum(w)`` (a scalar);
    * sum over both axes: ``sum(w * xent) / count_nonzero(w)`` (a scalar);
    * otherwise the one axis chosen is reduced (``average_*``: divided by the
      summed weights of that axis, ``sum_over_*``: by its count of non-zero
      weights) and the other kept; with no reduction the result is
      [batch, time]. Divisions by zero give 0.

    Raises:
      ValueError: wrong ranks, or averaging and summing over the same axis.
    """
    logits = convert_to_tensor(logits)
    targets = convert_to_tensor(targets)
    weights = convert_to_tensor(weights)
    if logits.shape.ndims is not None and logits.shape.ndims != 3:
        raise ValueError("Logits must be a [batch_size x sequence_length x logits] tensor")
    if targets.shape.ndims is not None and targets.shape.ndims != 2:
        raise ValueError("Targets must be a [batch_size x sequence_length] tensor")
    if weights.shape.ndims is not None and weights.shape.ndims != 2:
        raise ValueError("Weights must be a [batch_size x sequence_length] tensor")
    if average_across_timesteps and sum_over_timesteps:
        raise ValueError("average_across_timesteps and sum_over_timesteps cannot be set to "
                         "True at same time.")
    if average_across_batch and sum_over_batch:
        raise ValueError("average_across_batch and sum_over_batch cannot be set to True at "
                         "same time.")
    if weights.dtype is not logits.dtype:
        weights = A.cast(weights, logits.dtype)
    with name_scope(name or "sequence_loss"):
        n_classes = A.shape(logits)[2]
        flat_logits = A.reshape(logits, A.stack([-1, n_classes]))
        flat_targets = A.reshape(targets, [-1])
        crossent = M.multiply(_xent(flat_targets, flat_logits, softmax_loss_function),
                              A.reshape(weights, [-1]))
        dt = logits.dtype
        if average_across_timesteps and average_across_batch:
            return _div_no_nan(reduce_sum(crossent), reduce_sum(weights))
        if sum_over_timesteps and sum_over_batch:
            return _div_no_nan(reduce_sum(crossent),
                               A.cast(count_nonzero(weights), dt))
        crossent = A.reshape(crossent, A.shape(logits)[0:2])
        if average_across_timesteps or average_across_batch:
            axis = [0] if average_across_batch else [1]
            return _div_no_nan(reduce_sum(crossent, axis=axis), reduce_sum(weights, axis=axis))
        if sum_over_timesteps or sum_over_batch:
            axis = [0] if sum_over_batch else [1]
            return _div_no_nan(reduce_sum(crossent, axis=axis),
                               A.cast(count_nonzero(weights, axis=axis), dt))
        return crossent


__all__ = ["sequence_loss_by_example", "legacy_sequence_loss", "sequence_loss"]
