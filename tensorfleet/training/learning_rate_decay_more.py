"""More learning-rate schedules of ``tf.train``: natural-exponential and cosine decays.

Like the schedules in ``learning_rate_decay.py``, each returns a scalar tensor
recomputed from the global step on every step.
"""

from __future__ import annotations

import math
from typing import Any, Optional

from tensorfleet.framework.graph import Tensor, get_default_graph
from tensorfleet.ops import array_ops, math_ops, random_ops
from tensorfleet.training.learning_rate_decay import _as, _floor, _prologue


def natural_exp_decay(learning_rate: Any, global_step: Any, decay_steps: Any, decay_rate: Any,
                      staircase: bool = False, name: Optional[str] = None) -> Tensor:
    """``learning_rate * exp(-decay_rate * global_step / decay_steps)``, the ratio
    floored with ``staircase``.

    Raises:
      ValueError: if ``global_step`` is None.
    """
    with get_default_graph().name_scope(name or "NaturalExpDecay"):
        lr, step = _prologue(learning_rate, global_step, "natural_exp_decay")
        p = math_ops.truediv(step, _as(decay_steps, lr))
        if staircase:
            p = _floor(p)
        factor = math_ops.exp(math_ops.multiply(math_ops.negative(_as(decay_rate, lr)), p))
        return math_ops.multiply(lr, factor, name="decayed_lr")


def _cos_pi(x: Tensor) -> Tensor:
    """``0.5 * (1 + cos(pi * x))``: 1 at 0, 0 at 1."""
    return math_ops.multiply(_as(0.5, x), math_ops.add(
        _as(1.0, x), math_ops.cos(math_ops.multiply(_as(math.pi, x), x))))


def cosine_decay(learning_rate: Any, global_step: Any, decay_steps: Any, alpha: Any = 0.0,
                 name: Optional[str] = None) -> Tensor:
    """Half a cosine from ``learning_rate`` down to ``alpha * learning_rate`` over
    ``decay_steps``, then constant there.

    Raises:
      ValueError: if ``global_step`` is None.
    """
    with get_default_graph().name_scope(name or "CosineDecay"):
        lr, step = _prologue(learning_rate, global_step, "cosine_decay")
        steps = _as(decay_steps, lr)
        frac = math_ops.truediv(math_ops.minimum(step, steps), steps)
        a = _as(alpha, lr)
        decayed = math_ops.add(math_ops.multiply(math_ops.subtract(_as(1.0, lr), a),
                                                 _cos_pi(frac)), a)
        return math_ops.multiply(lr, decayed, name="decayed_lr")


def linear_cosine_decay(learning_rate: Any, global_step: Any, decay_steps: Any,
                        num_periods: Any = 0.5, alpha: Any = 0.0, beta: Any = 0.001,
                        name: Optional[str] = None) -> Tensor:
    """``lr * ((alpha + linear) * cosine + beta)`` where ``linear`` falls from 1 to 0
    over ``decay_steps`` and ``cosine`` makes ``num_periods`` periods meanwhile.

    Raises:
      ValueError: if ``global_step`` is None.
    """
    with get_default_graph().name_scope(name or "LinearCosineDecay"):
        lr, step = _prologue(learning_rate, global_step, "linear_cosine_decay")
        steps = _as(decay_steps, lr)
        step = math_ops.minimum(step, steps)
        linear = math_ops.truediv(math_ops.subtract(steps, step), steps)
        cosine = _cos_pi(math_ops.truediv(
            math_ops.multiply(math_ops.multiply(_as(2.0, lr), _as(num_periods, lr)), step),
            steps))
        decayed = math_ops.add(math_ops.multiply(math_ops.add(_as(alpha, lr), linear), cosine),
                               _as(beta, lr))
        return math_ops.multiply(lr, decayed, name="decayed_lr")


def cosine_decay_restarts(learning_rate: Any, global_step: Any, first_decay_steps: Any,
                          t_mul: float = 2.0, m_mul: float = 1.0, alpha: Any = 0.0,
                          name: Optional[str] = None) -> Tensor:
    """Cosine decay with warm restarts (SGDR): period ``i`` lasts
    ``first_decay_steps * t_mul ** i`` steps and starts at ``m_mul ** i`` times the
    initial rate; each period decays to ``alpha`` times its start.

    Raises:
      ValueError: if ``global_step`` is None.
    """
    with get_default_graph().name_scope(name or "SGDRDecay"):
        lr, step = _prologue(learning_rate, global_step, "cosine_decay_restarts")
        frac = math_ops.truediv(step, _as(first_decay_steps, lr))
        one = _as(1.0, lr)
        if float(t_mul) == 1.0:
            i = _floor(frac)
            frac = math_ops.subtract(frac, i)
        else:
            t = _as(float(t_mul), lr)
            # Periods 0..i-1 together last (1 - t**i) / (1 - t) first periods.
            i = _floor(math_ops.truediv(
                math_ops.log(math_ops.subtract(one, math_ops.multiply(
                    frac, math_ops.subtract(one, t)))), _as(math.log(t_mul), lr)))
            done = math_ops.truediv(math_ops.subtract(one, math_ops.pow(t, i)),
                                    math_ops.subtract(one, t))
            frac = math_ops.truediv(math_ops.subtract(frac, done), math_ops.pow(t, i))
        m_fac = math_ops.pow(_as(float(m_mul), lr), i)
        a = _as(alpha, lr)
        cosine = math_ops.multiply(m_fac, _cos_pi(frac))
        decayed = math_ops.add(math_ops.multiply(math_ops.subtract(one, a), cosine), a)
        return math_ops.multiply(lr, decayed, name="decayed_lr")


def noisy_linear_cosine_decay(learning_rate: Any, global_step: Any, decay_steps: Any,
                              initial_variance: Any = 1.0, variance_decay: Any = 0.55,
                              num_periods: Any = 0.5, alpha: Any = 0.0, beta: Any = 0.001,
                              name: Optional[str] = None) -> Tensor:
    """``linear_cosine_decay`` whose linear part gets Gaussian noise of variance
    ``initial_variance / (1 + step) ** variance_decay``, drawn anew each step.

    Raises:
      ValueError: if ``global_step`` is None.
    """
    with get_default_graph().name_scope(name or "NoisyLinearCosineDecay"):
        lr, step = _prologue(learning_rate, global_step, "noisy_linear_cosine_decay")
        steps = _as(decay_steps, lr)
        step = math_ops.minimum(step, steps)
        linear = math_ops.truediv(math_ops.subtract(steps, step), steps)
        variance = math_ops.truediv(
            _as(initial_variance, lr),
            math_ops.pow(math_ops.add(_as(1.0, lr), step), _as(variance_decay, lr)))
        noise = random_ops.random_normal(array_ops.shape(linear), stddev=math_ops.sqrt(variance),
                                         dtype=lr.dtype)
        cosine = _cos_pi(math_ops.truediv(
            math_ops.multiply(math_ops.multiply(_as(2.0, lr), _as(num_periods, lr)), step),
            steps))
        decayed = math_ops.add(math_ops.multiply(
            math_ops.add(_as(alpha, lr), math_ops.add(linear, noise)), cosine), _as(beta, lr))
        return math_ops.multiply(lr, decayed, name="decayed_lr")


__all__ = ["natural_exp_decay", "cosine_decay", "linear_cosine_decay", "cosine_decay_restarts",
           "noisy_linear_cosine_decay"]
