"""Learning-rate schedules of ``tf.train``, computed in the graph from the global step:
exponential, natural-exponential, inverse-time, polynomial and piecewise-constant decay,
and the cosine decays (plain, linear, noisy linear and with warm restarts).

Each function returns a scalar tensor that an optimizer takes as its learning
rate; it is re-evaluated on every step, so the schedule follows the global step
even when that lives on a parameter server.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, get_default_graph
from tensorfleet.ops import array_ops
from tensorfleet.ops import math_ops
from tensorfleet.ops import random_ops


def _prologue(learning_rate: Any, global_step: Any, fn_name: str) -> tuple:
    """(learning rate tensor, global step cast to its dtype)."""
    if global_step is None:
        raise ValueError(f"global_step is required for {fn_name}.")
    lr = convert_to_tensor(learning_rate, name="learning_rate",
                           preferred_dtype=_dtypes.float32)
    if not lr.dtype.is_floating:
        lr = array_ops.cast(lr, _dtypes.float32)
    step = array_ops.cast(global_step, lr.dtype)
    return lr, step


def _as(value: Any, like: Tensor) -> Tensor:
    t = convert_to_tensor(value, preferred_dtype=like.dtype)
    return t if t.dtype is like.dtype else array_ops.cast(t, like.dtype)


def _floor(x: Tensor) -> Tensor:
    return math_ops.floordiv(x, _as(1.0, x))


def exponential_decay(learning_rate: Any, global_step: Any, decay_steps: Any, decay_rate: Any,
                      staircase: bool = False, name: Optional[str] = None) -> Tensor:
    """``learning_rate * decay_rate ** (global_step / decay_steps)``.

    With ``staircase`` the exponent is floored, so the rate drops in steps every
    ``decay_steps``.

    Raises:
      ValueError: if ``global_step`` is None.
    """
    with get_default_graph().name_scope(name or "ExponentialDecay"):
        lr, step = _prologue(learning_rate, global_step, "exponential_decay")
        p = math_ops.truediv(step, _as(decay_steps, lr))
        if staircase:
            p = _floor(p)
        return math_ops.multiply(lr, math_ops.pow(_as(decay_rate, lr), p), name="decayed_lr")


def inverse_time_decay(learning_rate: Any, global_step: Any, decay_steps: Any, decay_rate: Any,
                       staircase: bool = False, name: Optional[str] = None) -> Tensor:
    """``learning_rate / (1 + decay_rate * global_step / decay_steps)``, the ratio
    floored with ``staircase``."""
    with get_default_graph().name_scope(name or "InverseTimeDecay"):
        lr, step = _prologue(learning_rate, global_step, "inverse_time_decay")
        p = math_ops.truediv(step, _as(decay_steps, lr))
        if staircase:
            p = _floor(p)
        denom = math_ops.add(_as(1.0, lr), math_ops.multiply(_as(decay_rate, lr), p))
        return math_ops.truediv(lr, denom, name="decayed_lr")


def polynomial_decay(learning_rate: Any, global_step: Any, decay_steps: Any,
                     end_learning_rate: Any = 0.0001, power: Any = 1.0, cycle: bool = False,
                     name: Optional[str] = None) -> Tensor:
    """Decays from ``learning_rate`` to ``end_learning_rate`` over ``decay_steps``:
    ``(lr - end) * (1 - step / decay_steps) ** power + end``.

    Past ``decay_steps`` the rate stays at ``end_learning_rate``; with ``cycle`` the
    horizon is extended to the next multiple of ``decay_steps`` instead.
    """
    with get_default_graph().name_scope(name or "PolynomialDecay"):
        lr, step = _prologue(learning_rate, global_step, "polynomial_decay")
        steps = _as(decay_steps, lr)
        end = _as(end_learning_rate, lr)
        if cycle:
            # ceil(step / steps), at least 1 so that step 0 uses the first cycle.
            n = math_ops.negative(_floor(math_ops.negative(math_ops.truediv(step, steps))))
            steps = math_ops.multiply(steps, math_ops.maximum(n, _as(1.0, lr)))
        else:
            step = math_ops.minimum(step, steps)
        frac = math_ops.subtract(_as(1.0, lr), math_ops.truediv(step, steps))
        return math_ops.add(math_ops.multiply(math_ops.subtract(lr, end),
                                              math_ops.pow(frac, _as(power, lr))),
                            end, name="decayed_lr")


def piecewise_constant(x: Any, boundaries: Sequence[Any], values: Sequence[Any],
                       name: Optional[str] = None) -> Tensor:
    """``values[0]`` while ``x <= boundaries[0]``, ``values[i]`` while
    ``boundaries[i-1] < x <= boundaries[i]``, ``values[-1]`` after the last boundary.

    Raises:
      ValueError: if ``len(values) != len(boundaries) + 1`` or the values do not
        all have one dtype.
    """
    if len(values) != len(boundaries) + 1:
        raise ValueError(f"The length of boundaries ({len(boundaries)}) should be one less "
                         f"than the length of values ({len(values)})")
    with get_default_graph().name_scope(name or "PiecewiseConstant"):
        x_t = convert_to_tensor(x)
        vals = [convert_to_tensor(v, preferred_dtype=_dtypes.float32) for v in values]
        if any(v.dtype is not vals[0].dtype for v in vals):
            raise ValueError(f"Values must have elements all with the same dtype "
                             f"({[v.dtype.name for v in vals]}).")
        bounds = []
        for b in boundaries:
            b_t = convert_to_tensor(b, preferred_dtype=x_t.dtype)
            if b_t.dtype is not x_t.dtype:
                if not (b_t.dtype.is_integer and x_t.dtype.is_integer):
                    raise ValueError(f"Boundaries ({b_t.dtype.name}) must have the dtype of "
                                     f"x ({x_t.dtype.name}).")
                b_t = array_ops.cast(b_t, x_t.dtype)
            bounds.append(b_t)
        # Select from the last interval backwards: each boundary that x does not
        # exceed replaces the result with the value on its left.
        out = vals[-1]
        for b, v in zip(reversed(bounds), reversed(vals[:-1])):
            out = array_ops.where(math_ops.less_equal(x_t, b), v, out)
        return array_ops.identity(out, name="value")


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

__all__ = ["exponential_decay", "inverse_time_decay", "polynomial_decay", "piecewise_constant",
           "natural_exp_decay", "cosine_decay", "linear_cosine_decay", "cosine_decay_restarts",
           "noisy_linear_cosine_decay"]
