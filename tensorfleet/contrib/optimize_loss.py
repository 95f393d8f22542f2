"""``tf.contrib.layers.optimize_loss``: the whole training op of a TF 1.x model in one call.

It runs the update ops (batch-norm moving averages) before the loss is read,
builds the optimizer (by name, class, factory or instance), optionally clips,
scales and perturbs the gradients, records summaries, and returns a tensor that
evaluates the loss after applying the gradients.
"""

from __future__ import annotations

import numbers
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from tensorfleet.framework.graph import GraphKeys, Tensor, control_dependencies, \
    convert_to_tensor, get_collection
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import random_ops as R
from tensorfleet.ops import summary_ops
from tensorfleet.ops.init_ops import Constant
from tensorfleet.ops.variable_scope import get_variable, variable_scope
from tensorfleet.ops.variables import Variable, trainable_variables
from tensorfleet.training import optimizers as _opt
from tensorfleet.training.optimizer import Optimizer
from tensorfleet.training.training_util import assert_global_step, get_global_step

OPTIMIZER_CLS_NAMES: Dict[str, type] = {
    "Adagrad": _opt.AdagradOptimizer,
    "Adam": _opt.AdamOptimizer,
    "Momentum": _opt.MomentumOptimizer,
    "RMSProp": _opt.RMSPropOptimizer,
    "SGD": _opt.GradientDescentOptimizer,
}

OPTIMIZER_SUMMARIES = ["learning_rate", "loss", "gradients", "gradient_norm",
                       "global_gradient_norm"]

GradsAndVars = List[Tuple[Any, Any]]


def _learning_rate(learning_rate: Any) -> Any:
    if learning_rate is None:
        return None
    if isinstance(learning_rate, (Tensor, Variable)):
        lr = convert_to_tensor(learning_rate)
        if lr.shape.ndims not in (None, 0):
            raise ValueError(f"optimize_loss: learning_rate must be a scalar, got shape "
                             f"{lr.shape}")
        return learning_rate
    if isinstance(learning_rate, numbers.Real) and not isinstance(learning_rate, bool):
        return get_variable("learning_rate", [], trainable=False,
                            initializer=Constant(float(learning_rate)))
    raise ValueError(f"optimize_loss: learning_rate should be a float or a scalar tensor, "
                     f"got {learning_rate!r}")


def _make_optimizer(optimizer: Any, lr: Any) -> Optimizer:
    if isinstance(optimizer, str):
        if lr is None:
            raise ValueError(f"Learning rate is None, but should be specified if optimizer "
                             f"is string ({optimizer}).")
        if optimizer not in OPTIMIZER_CLS_NAMES:
            raise ValueError(f"Optimizer name should be one of "
                             f"[{', '.join(OPTIMIZER_CLS_NAMES)}], you provided {optimizer}.")
        return OPTIMIZER_CLS_NAMES[optimizer](learning_rate=lr)
    if isinstance(optimizer, type) and issubclass(optimizer, Optimizer):
        if lr is None:
            raise ValueError(f"Learning rate is None, but should be specified if optimizer "
                             f"is class ({optimizer}).")
        return optimizer(learning_rate=lr)
    if isinstance(optimizer, Optimizer):
        return optimizer
    if callable(optimizer):
        opt = optimizer(lr) if lr is not None else optimizer()
        if not isinstance(opt, Optimizer):
            raise ValueError(f"Unrecognized optimizer: function should return subclass of "
                             f"Optimizer. Got {opt}.")
        return opt
    raise ValueError(f"Unrecognized optimizer: should be string, subclass of Optimizer, "
                     f"instance of subclass of Optimizer or function with one argument. "
                     f"Got {optimizer}.")


def _add_noise(grads: GradsAndVars, scale: float) -> GradsAndVars:
    out = []
    for g, v in grads:
        if g is None:
            out.append((g, v))
            continue
        if isinstance(g, IndexedSlices):
            noise = R.random_normal(A.shape(g.values)) * scale
            out.append((IndexedSlices(g.values + noise, g.indices, g.dense_shape), v))
        else:
            out.append((g + R.random_normal(A.shape(g)) * scale, v))
    return out


def _multiply(grads: GradsAndVars, multipliers: Dict[Any, Any]) -> GradsAndVars:
    out = []
    for g, v in grads:
        m = multipliers.get(v, multipliers.get(getattr(v, "name", None)))
        if g is None or m is None:
            out.append((g, v))
            continue
        m = A.constant(m, dtype=g.dtype, name="gradient_multipliers") \
            if not isinstance(m, Tensor) else m
        if isinstance(g, IndexedSlices):
            out.append((IndexedSlices(g.values * m, g.indices, g.dense_shape), v))
        else:
            out.append((g * m, v))
    return out


def _clip(grads: GradsAndVars, clip: Any) -> GradsAndVars:
    if callable(clip):
        return list(clip(grads))
    if isinstance(clip, numbers.Real):
        gs, vs = zip(*grads)
        clipped, _ = M.clip_by_global_norm(list(gs), float(clip))
        return list(zip(clipped, vs))
    raise ValueError(f"optimize_loss: unknown type {type(clip).__name__} for clip_gradients "
                     f"(a float or a function of the gradients and variables)")


def _values(g: Any) -> Any:
    return g.values if isinstance(g, IndexedSlices) else g


def optimize_loss(loss: Any, global_step: Any, learning_rate: Any, optimizer: Any,
                  gradient_noise_scale: Optional[float] = None,
                  gradient_multipliers: Optional[Dict[Any, Any]] = None,
                  clip_gradients: Any = None,
                  learning_rate_decay_fn: Optional[Callable[[Any, Any], Any]] = None,
                  update_ops: Optional[Sequence[Any]] = None,
                  variables: Optional[Sequence[Any]] = None, name: Optional[str] = None,
                  summaries: Optional[Sequence[str]] = None,
                  colocate_gradients_with_ops: bool = False,
                  increment_global_step: bool = True) -> Tensor:
    """Builds the training op of ``loss`` and returns it as a tensor evaluating the loss.

    Args:
      loss: the scalar loss.
      global_step: the global-step variable (None: ``tf.train.get_global_step()``).
      learning_rate: a float (kept in a non-trainable variable ``learning_rate``), a
        scalar tensor, or None with an optimizer instance or factory.
      optimizer: one of ``OPTIMIZER_CLS_NAMES``, an ``Optimizer`` subclass (built with
        ``learning_rate=``), an instance, or a function of the learning rate.
      gradient_noise_scale: stddev of Gaussian noise added to every gradient.
      gradient_multipliers: variable (or its name) -> factor for its gradient.
      clip_gradients: a float (clip by global norm) or a function of the
        (gradient, variable) list returning a new one.
      learning_rate_decay_fn: ``fn(learning_rate, global_step) -> decayed rate``.
      update_ops: ops to run before the loss is read (default ``UPDATE_OPS``).
      variables: variables to train (default: the trainable ones).
      name: the variable scope (default ``OptimizeLoss``).
      summaries: which of ``OPTIMIZER_SUMMARIES`` to write (default: learning_rate,
        loss and global_gradient_norm).
      increment_global_step: whether the update increments ``global_step``.

    Raises:
      ValueError: for a bad optimizer, learning rate, summary name or clip value, or
        when nothing is trainable.
    """
    loss = convert_to_tensor(loss)
    if global_step is None:
        global_step = get_global_step()
    else:
        assert_global_step(global_step)
    summaries = list(OPTIMIZER_SUMMARIES[:2] + ["global_gradient_norm"]
                     if summaries is None else summaries)
    for s in summaries:
        if s not in OPTIMIZER_SUMMARIES:
            raise ValueError(f"Summaries should be one of [{', '.join(OPTIMIZER_SUMMARIES)}], "
                             f"you provided {s}.")
    with variable_scope(name, "OptimizeLoss", [loss, global_step]):
        if update_ops is None:
            update_ops = list(set(get_collection(GraphKeys.UPDATE_OPS)))
        if update_ops:
            with control_dependencies(update_ops):
                loss = A.identity(loss)
        lr = _learning_rate(learning_rate)
        if learning_rate_decay_fn is not None:
            if global_step is None:
                raise ValueError("global_step is required for learning_rate_decay_fn.")
            lr = learning_rate_decay_fn(lr, global_step)
        if lr is not None and "learning_rate" in summaries:
            summary_ops.scalar("learning_rate", lr)
        opt = _make_optimizer(optimizer, lr)
        if variables is None:
            variables = trainable_variables()
        variables = list(variables)
        if not variables:
            raise ValueError("optimize_loss: there are no variables to optimize")
        grads = opt.compute_gradients(loss, variables,
                                      colocate_gradients_with_ops=colocate_gradients_with_ops)
        if gradient_noise_scale is not None:
            grads = _add_noise(grads, float(gradient_noise_scale))
        if gradient_multipliers is not None:
            grads = _multiply(grads, gradient_multipliers)
        norms = "global_gradient_norm" in summaries or "gradient_norm" in summaries
        if norms:
            present = [_values(g) for g, _ in grads if g is not None]
            if present:
                summary_ops.scalar("global_norm/gradient_norm", M.global_norm(present))
        if clip_gradients is not None:
            grads = _clip(grads, clip_gradients)
        if "loss" in summaries:
            summary_ops.scalar("loss", loss)
        for g, v in grads:
            if g is None:
                continue
            vname = v.op.name.replace(":", "_")
            if "gradients" in summaries:
                summary_ops.histogram("gradients/" + vname, _values(g))
            if "gradient_norm" in summaries:
                summary_ops.scalar("gradient_norm/" + vname, M.global_norm([_values(g)]))
        if clip_gradients is not None and norms:
            present = [_values(g) for g, _ in grads if g is not None]
            summary_ops.scalar("global_norm/clipped_gradient_norm", M.global_norm(present))
        grad_updates = opt.apply_gradients(
            grads, global_step=global_step if increment_global_step else None, name="train")
        with control_dependencies([grad_updates]):
            return A.identity(loss, name="training_loss")


__all__ = ["optimize_loss", "OPTIMIZER_CLS_NAMES", "OPTIMIZER_SUMMARIES"]
