"""``tf.contrib.training.create_train_op`` and the gradient transforms slim builds on it.

A train op in the contrib/slim sense is a tensor: evaluating it runs the update ops
(batch-norm moving averages), computes and applies the gradients, and yields the
loss as it was before the update. It is added to the ``TRAIN_OP`` collection.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from tensorfleet.framework.graph import GraphKeys, control_dependencies, convert_to_tensor, \
    get_collection, get_collection_ref, name_scope
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import control_flow_ops as CF
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import summary_ops
from tensorfleet.ops.math_ops_reduce import clip_by_norm
from tensorfleet.ops.variables import trainable_variables
from tensorfleet.training.optimizer import Optimizer
from tensorfleet.training.training_util import get_or_create_global_step

logger = logging.getLogger(__name__)

GradsAndVars = List[Tuple[Any, Any]]


class _UseGlobalStep:
    """Marker default: use (or create) the graph's global step."""

    def __repr__(self) -> str:
        return "_USE_GLOBAL_STEP"


_USE_GLOBAL_STEP = _UseGlobalStep()


def _finite_or_error(loss: Any, message: str) -> Any:
    """``loss``, available only once it is checked to be finite; otherwise the step
    fails with InvalidArgumentError carrying ``message``."""
    ok = M.reduce_all(M.is_finite(loss))
    check = CF.Assert(ok, [message + " : Tensor had Inf or NaN values"], name="CheckNumerics")
    return CF.with_dependencies([check], loss)


def add_gradients_summaries(grads_and_vars: GradsAndVars) -> List[Any]:
    """A histogram of each gradient and a scalar of its norm, named after its variable."""
    out = []
    for grad, var in grads_and_vars:
        if grad is None:
            continue
        values = grad.values if isinstance(grad, IndexedSlices) else grad
        name = var.op.name
        out.append(summary_ops.histogram(name + "_gradient", values))
        out.append(summary_ops.scalar(name + "_gradient_norm", M.global_norm([values])))
    return out


def create_train_op(total_loss: Any, optimizer: Optimizer, global_step: Any = _USE_GLOBAL_STEP,
                    update_ops: Optional[Sequence[Any]] = None,
                    variables_to_train: Optional[Sequence[Any]] = None,
                    transform_grads_fn: Optional[Callable[[GradsAndVars], GradsAndVars]] = None,
                    summarize_gradients: bool = False, gate_gradients: int = 1,
                    aggregation_method: Any = None, colocate_gradients_with_ops: bool = False,
                    check_numerics: bool = True) -> Any:
    """A tensor that, when evaluated, trains one step and yields ``total_loss``.

    Args:
      total_loss: the scalar loss.
      optimizer: a ``tf.train.Optimizer``.
      global_step: incremented by each step; by default the graph's (created if
        missing); None for no step counter.
      update_ops: run before the gradients; by default the ``UPDATE_OPS`` collection.
      variables_to_train: by default every trainable variable.
      transform_grads_fn: applied to the ``(gradient, variable)`` list before it is
        applied (clipping, scaling).
      summarize_gradients: add histogram and norm summaries of each gradient.
      gate_gradients, aggregation_method, colocate_gradients_with_ops: passed to
        ``optimizer.compute_gradients``.
      check_numerics: fail the step with InvalidArgumentError when the loss is
        infinite or NaN.

    Raises:
      ValueError: when there is no variable to train.
    """
    if global_step is _USE_GLOBAL_STEP:
        global_step = get_or_create_global_step()
    in_collection = list(get_collection(GraphKeys.UPDATE_OPS))
    update_ops = in_collection if update_ops is None else list(update_ops)
    if any(op not in update_ops for op in in_collection):
        logger.warning("update_ops given to create_train_op leave out some of the "
                       "UPDATE_OPS collection; those will not run with the train op")
    total_loss = convert_to_tensor(total_loss)
    if update_ops:
        with control_dependencies(update_ops):
            barrier = CF.no_op(name="update_barrier")
        total_loss = CF.with_dependencies([barrier], total_loss)
    variables = trainable_variables() if variables_to_train is None else list(variables_to_train)
    if not variables:
        raise ValueError("create_train_op: no variables to optimize")
    grads = optimizer.compute_gradients(total_loss, variables, gate_gradients=gate_gradients,
                                        aggregation_method=aggregation_method,
                                        colocate_gradients_with_ops=colocate_gradients_with_ops)
    if transform_grads_fn is not None:
        grads = transform_grads_fn(grads)
    if summarize_gradients:
        with name_scope("summarize_grads"):
            add_gradients_summaries(grads)
    grad_updates = optimizer.apply_gradients(grads, global_step=global_step)
    with name_scope("train_op"):
        if check_numerics:
            total_loss = _finite_or_error(total_loss, "LossTensor is inf or nan")
        train_op = CF.with_dependencies([grad_updates], total_loss)
    train_ops = get_collection_ref(GraphKeys.TRAIN_OP)
    if train_op not in train_ops:
        train_ops.append(train_op)
    return train_op


def clip_gradient_norms(gradients_to_variables: GradsAndVars, max_norm: float) -> GradsAndVars:
    """Each gradient clipped to L2 norm ``max_norm`` on its own (not jointly)."""
    out = []
    for grad, var in gradients_to_variables:
        if isinstance(grad, IndexedSlices):
            grad = IndexedSlices(clip_by_norm(grad.values, max_norm), grad.indices,
                                 grad.dense_shape)
        elif grad is not None:
            grad = clip_by_norm(grad, max_norm)
        out.append((grad, var))
    return out


def multiply_gradients(grads_and_vars: GradsAndVars,
                       gradient_multipliers: Dict[Any, Any]) -> GradsAndVars:
    """Gradients scaled by ``gradient_multipliers`` (keyed by variable or its op name).

    Raises:
      ValueError: when ``gradient_multipliers`` is empty, or a gradient to scale is None.
    """
    if not gradient_multipliers:
        raise ValueError("multiply_gradients: gradient_multipliers is empty")
    out = []
    for grad, var in grads_and_vars:
        key = var if var in gradient_multipliers else var.op.name
        if key in gradient_multipliers:
            if grad is None:
                raise ValueError(f"multiply_gradients: the gradient of {var.op.name} is None")
            scale = A.constant(gradient_multipliers[key], dtype=var.dtype.base_dtype)
            if isinstance(grad, IndexedSlices):
                grad = IndexedSlices(M.multiply(grad.values, scale), grad.indices,
                                     grad.dense_shape)
            else:
                grad = M.multiply(grad, scale)
        out.append((grad, var))
    return out


__all__ = ["create_train_op", "add_gradients_summaries", "clip_gradient_norms",
           "multiply_gradients"]
