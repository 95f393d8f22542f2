"""``tf.keras.optimizers.schedules``: learning rates as functions of the step (the
optimizer's ``iterations``). A schedule is called on the step and returns the rate as a
float32 tensor; a Keras optimizer given one as ``learning_rate`` uses it every step."""

from __future__ import annotations

import math
from typing import Any, Dict, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M


def _step(step: Any) -> Tensor:
    return A.cast(convert_to_tensor(step), _dtypes.float32)


class LearningRateSchedule:
    """Base class: ``schedule(step)`` returns the learning rate at ``step``."""

    def __call__(self, step: Any) -> Tensor:
        raise TypeError(f"{type(self).__name__} must define __call__(step)")

    def get_config(self) -> Dict[str, Any]:
        """The constructor arguments."""
        return {}

    @classmethod
    def from_config(cls, config: Dict[str, Any]) -> "LearningRateSchedule":
        """The schedule made from ``get_config()``'s dict."""
        return cls(**config)


class _StepDecay(LearningRateSchedule):
    """A rate decayed by ``decay_rate`` per ``decay_steps`` steps (``staircase``: the
    step ratio floored)."""

    def __init__(self, initial_learning_rate: float, decay_steps: int, decay_rate: float,
                 staircase: bool = False, name: Optional[str] = None):
        if decay_steps <= 0:
            raise ValueError(f"{type(self).__name__}: decay_steps must be positive, got "
                             f"{decay_steps}")
        self.initial_learning_rate, self.decay_steps = float(initial_learning_rate), decay_steps
        self.decay_rate, self.staircase, self.name = float(decay_rate), bool(staircase), name

    def _ratio(self, step: Any) -> Tensor:
        p = M.divide(_step(step), float(self.decay_steps))
        return M.floor(p) if self.staircase else p

    def get_config(self) -> Dict[str, Any]:
        """The constructor arguments."""
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


class ExponentialDecay(_StepDecay):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)`` (the exponent
    floored with ``staircase``)."""

    def __call__(self, step: Any) -> Tensor:
        return M.multiply(self.initial_learning_rate, M.pow(self.decay_rate, self._ratio(step)))


class InverseTimeDecay(_StepDecay):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)`` (floored ratio
    with ``staircase``)."""

    def __call__(self, step: Any) -> Tensor:
        return M.divide(self.initial_learning_rate,
                        M.add(1.0, M.multiply(self.decay_rate, self._ratio(step))))


class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[0]`` up to and including ``boundaries[0]``, ``values[1]`` up to
    ``boundaries[1]`` ... and ``values[-1]`` after the last boundary."""

    def __init__(self, boundaries: Sequence[float], values: Sequence[float],
                 name: Optional[str] = None):
        if len(values) != len(boundaries) + 1:
            raise ValueError(f"PiecewiseConstantDecay: values must have one more entry than "
                             f"boundaries, got {len(values)} and {len(boundaries)}")
        if list(boundaries) != sorted(boundaries):
            raise ValueError("PiecewiseConstantDecay: boundaries must be increasing")
        self.boundaries, self.values = list(boundaries), [float(v) for v in values]
        self.name = name

    def __call__(self, step: Any) -> Tensor:
        s = _step(step)
        out: Any = A.constant(self.values[-1], dtype=_dtypes.float32)
        for b, v in reversed(list(zip(self.boundaries, self.values[:-1]))):
            out = A.where(M.less_equal(s, float(b)), A.constant(v, dtype=_dtypes.float32), out)
        return out

    def get_config(self) -> Dict[str, Any]:
        """The constructor arguments."""
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    """From ``initial_learning_rate`` to ``end_learning_rate`` over ``decay_steps`` as
    ``(1 - step / decay_steps) ** power``; with ``cycle`` the span restarts, doubled."""

    def __init__(self, initial_learning_rate: float, decay_steps: int,
                 end_learning_rate: float = 0.0001, power: float = 1.0, cycle: bool = False,
                 name: Optional[str] = None):
        if decay_steps <= 0:
            raise ValueError(f"PolynomialDecay: decay_steps must be positive, got "
                             f"{decay_steps}")
        self.initial_learning_rate, self.decay_steps = float(initial_learning_rate), decay_steps
        self.end_learning_rate, self.power = float(end_learning_rate), float(power)
        self.cycle, self.name = bool(cycle), name

    def __call__(self, step: Any) -> Tensor:
        s = _step(step)
        steps: Any = float(self.decay_steps)
        if self.cycle:
            mult = M.ceil(M.divide(s, steps))
            mult = A.where(M.equal(s, 0.0), A.ones_like(mult), mult)
            steps = M.multiply(steps, mult)
        else:
            s = M.minimum(s, steps)
        frac = M.subtract(1.0, M.divide(s, steps))
        span = self.initial_learning_rate - self.end_learning_rate
        return M.add(M.multiply(span, M.pow(frac, self.power)), self.end_learning_rate)

    def get_config(self) -> Dict[str, Any]:
        """The constructor arguments."""
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "end_learning_rate": self.end_learning_rate,
                "power": self.power, "cycle": self.cycle, "name": self.name}


class CosineDecay(LearningRateSchedule):
    """Cosine decay over ``decay_steps`` to ``alpha`` times the rate; with
    ``warmup_target``, a linear warm-up over ``warmup_steps`` to that rate first."""

    def __init__(self, initial_learning_rate: float, decay_steps: int, alpha: float = 0.0,
                 name: Optional[str] = None, warmup_target: Optional[float] = None,
                 warmup_steps: int = 0):
        if decay_steps <= 0:
            raise ValueError(f"CosineDecay: decay_steps must be positive, got {decay_steps}")
        self.initial_learning_rate, self.decay_steps = float(initial_learning_rate), decay_steps
        self.alpha, self.name = float(alpha), name
        self.warmup_target, self.warmup_steps = warmup_target, int(warmup_steps)

    def _decayed(self, s: Tensor, start: float) -> Tensor:
        s = M.minimum(s, float(self.decay_steps))
        cos = M.multiply(0.5, M.add(1.0, M.cos(M.multiply(math.pi / self.decay_steps, s))))
        return M.multiply(start, M.add(M.multiply(1.0 - self.alpha, cos), self.alpha))

    def __call__(self, step: Any) -> Tensor:
        s = _step(step)
        if self.warmup_target is None:
            return self._decayed(s, self.initial_learning_rate)
        w = float(max(self.warmup_steps, 1))
        warm = M.add(self.initial_learning_rate,
                     M.multiply((float(self.warmup_target) - self.initial_learning_rate) / w,
                                s))
        after = self._decayed(M.subtract(s, float(self.warmup_steps)),
                              float(self.warmup_target))
        return A.where(M.less(s, float(self.warmup_steps)), warm, after)

    def get_config(self) -> Dict[str, Any]:
        """The constructor arguments."""
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name,
                "warmup_target": self.warmup_target, "warmup_steps": self.warmup_steps}


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR): periods of ``first_decay_steps`` growing
    by ``t_mul``, each restarting at ``m_mul`` times the previous peak."""

    def __init__(self, initial_learning_rate: float, first_decay_steps: int,
                 t_mul: float = 2.0, m_mul: float = 1.0, alpha: float = 0.0,
                 name: Optional[str] = None):
        if first_decay_steps <= 0:
            raise ValueError(f"CosineDecayRestarts: first_decay_steps must be positive, got "
                             f"{first_decay_steps}")
        self.initial_learning_rate = float(initial_learning_rate)
        self.first_decay_steps, self.t_mul, self.m_mul = first_decay_steps, float(t_mul), \
            float(m_mul)
        self.alpha, self.name = float(alpha), name

    def __call__(self, step: Any) -> Tensor:
        frac = M.divide(_step(step), float(self.first_decay_steps))
        if self.t_mul == 1.0:
            i = M.floor(frac)
            frac = M.subtract(frac, i)
        else:
            i = M.floor(M.divide(M.log(M.subtract(1.0, M.multiply(frac, 1.0 - self.t_mul))),
                                 math.log(self.t_mul)))
            done = M.divide(M.subtract(1.0, M.pow(self.t_mul, i)), 1.0 - self.t_mul)
            frac = M.divide(M.subtract(frac, done), M.pow(self.t_mul, i))
        peak = M.pow(self.m_mul, i)
        cos = M.multiply(M.multiply(0.5, peak), M.add(1.0, M.cos(M.multiply(math.pi, frac))))
        return M.multiply(self.initial_learning_rate,
                          M.add(M.multiply(1.0 - self.alpha, cos), self.alpha))

    def get_config(self) -> Dict[str, Any]:
        """The constructor arguments."""
        return {"initial_learning_rate": self.initial_learning_rate,
                "first_decay_steps": self.first_decay_steps, "t_mul": self.t_mul,
                "m_mul": self.m_mul, "alpha": self.alpha, "name": self.name}


_CLASSES = {c.__name__: c for c in (ExponentialDecay, InverseTimeDecay, PiecewiseConstantDecay,
                                    PolynomialDecay, CosineDecay, CosineDecayRestarts)}


def serialize(schedule: LearningRateSchedule) -> Dict[str, Any]:
    """``{"class_name": ..., "config": ...}`` of a schedule."""
    return {"class_name": type(schedule).__name__, "config": schedule.get_config()}


def deserialize(config: Dict[str, Any], custom_objects: Any = None) -> LearningRateSchedule:
    """The schedule a ``serialize`` result describes (``custom_objects`` first).

    Raises:
      ValueError: an unknown class name.
    """
    name = config.get("class_name")
    cls = (custom_objects or {}).get(name) or _CLASSES.get(name)
    if cls is None:
        raise ValueError(f"Unknown learning rate schedule: {name!r}")
    return cls.from_config(dict(config.get("config") or {}))


__all__ = ["LearningRateSchedule", "ExponentialDecay", "InverseTimeDecay",
           "PiecewiseConstantDecay", "PolynomialDecay", "CosineDecay", "CosineDecayRestarts",
           "serialize", "deserialize"]
