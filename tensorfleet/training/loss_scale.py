"""``tf.mixed_precision.experimental.LossScale`` and its two kinds: the factor a loss is
multiplied by before differentiation so that small gradients survive low-precision
arithmetic, and the rule that changes it.

``FixedLossScale`` keeps one factor. ``DynamicLossScale`` halves (``/ multiplier``) the
factor whenever a step's gradients hold an inf or NaN, and doubles it after
``increment_period`` finite steps in a row; its state is two non-trainable variables,
saved with the model.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import state_ops
from tensorfleet.ops.control_flow_ops import cond, group, no_op
from tensorfleet.ops.variable_scope import get_variable, variable_scope
from tensorfleet.ops.init_ops import Constant


class LossScale:
    """The base: ``loss_scale()`` is the current factor (a float32 tensor);
    ``update(grads)`` returns ``(update_op, should_apply_gradients)``."""

    def __call__(self) -> Tensor:
        raise TypeError(f"{type(self).__name__} must define __call__")

    def update(self, grads: Sequence[Any]) -> Tuple[Any, Any]:
        """Adjusts the factor for a step with ``grads``."""
        raise TypeError(f"{type(self).__name__} must define update")

    def get_config(self) -> Dict[str, Any]:
        raise TypeError(f"{type(self).__name__} must define get_config")

    @classmethod
    def from_config(cls, config: Dict[str, Any]) -> "LossScale":
        """The loss scale ``get_config`` described."""
        return cls(**config)


class FixedLossScale(LossScale):
    """A constant factor: gradients are always applied, even non-finite ones."""

    def __init__(self, loss_scale_value: float):
        if isinstance(loss_scale_value, Tensor) or not isinstance(loss_scale_value,
                                                                 (int, float)):
            raise ValueError(f"loss_scale_value must be a Python number, got "
                             f"{loss_scale_value!r}")
        if loss_scale_value < 1:
            raise ValueError(f"loss_scale_value must be at least 1, got {loss_scale_value}")
        self._value = float(loss_scale_value)

    def __call__(self) -> Tensor:
        return convert_to_tensor(self._value, dtype=_dtypes.float32)

    def update(self, grads: Sequence[Any]) -> Tuple[Any, Any]:
        return no_op(), True

    def get_config(self) -> Dict[str, Any]:
        return {"loss_scale_value": self._value}

    def __repr__(self) -> str:
        return f"FixedLossScale({self._value})"


def _all_finite(grads: Sequence[Any]) -> Tensor:
    checks = []
    for g in grads:
        if g is None:
            continue
        values = g.values if isinstance(g, IndexedSlices) else convert_to_tensor(g)
        checks.append(M.reduce_all(M.is_finite(values)))
    if not checks:
        return convert_to_tensor(True)
    return M.reduce_all(A.stack(checks))


class DynamicLossScale(LossScale):
    """A factor that shrinks on overflow and grows after a run of finite steps."""

    def __init__(self, initial_loss_scale: float = 2 ** 15, increment_period: int = 2000,
                 multiplier: float = 2.0):
        if not initial_loss_scale >= 1:
            raise ValueError(f"initial_loss_scale must be at least 1, got {initial_loss_scale}")
        if isinstance(increment_period, bool) or not isinstance(increment_period, int) or \
                increment_period < 1:
            raise ValueError(f"increment_period must be a positive int, got "
                             f"{increment_period!r}")
        if not multiplier > 1:
            raise ValueError(f"multiplier must be above 1, got {multiplier}")
        self.initial_loss_scale = float(initial_loss_scale)
        self.increment_period = increment_period
        self.multiplier = float(multiplier)
        self._vars: List[Any] = []

    def _variables(self) -> List[Any]:
        if not self._vars:
            with variable_scope(None, default_name="dynamic_loss_scale"):
                scale = get_variable("current_loss_scale", [], _dtypes.float32,
                                     initializer=Constant(self.initial_loss_scale),
                                     trainable=False)
                good = get_variable("good_steps", [], _dtypes.int64,
                                    initializer=Constant(0), trainable=False)
            self._vars = [scale, good]
        return self._vars

    def __call__(self) -> Tensor:
        return A.identity(self._variables()[0])

    def update(self, grads: Sequence[Any]) -> Tuple[Any, Any]:
        scale, good = self._variables()
        finite = _all_finite(grads)

        def on_finite() -> Any:
            s, n = A.identity(scale), M.add(A.identity(good), 1)
            grow = M.greater_equal(n, self.increment_period)
            return group(
                state_ops.assign(scale, cond(grow, lambda: M.multiply(s, self.multiplier),
                                             lambda: s)),
                state_ops.assign(good, cond(grow, lambda: A.zeros([], _dtypes.int64),
                                            lambda: n)))

        def on_overflow() -> Any:
            s = A.identity(scale)
            return group(state_ops.assign(scale, M.maximum(M.divide(s, self.multiplier), 1.0)),
                         state_ops.assign(good, A.zeros([], _dtypes.int64)))
        return cond(finite, on_finite, on_overflow), finite

    def get_config(self) -> Dict[str, Any]:
        return {"initial_loss_scale": self.initial_loss_scale,
                "increment_period": self.increment_period, "multiplier": self.multiplier}

    def __repr__(self) -> str:
        return (f"DynamicLossScale(initial_loss_scale={self.initial_loss_scale}, "
                f"increment_period={self.increment_period}, multiplier={self.multiplier})")


def get_loss_scale(loss_scale: Any) -> LossScale:
    """``"dynamic"`` -> ``DynamicLossScale()``, a number -> ``FixedLossScale``, a
    LossScale as it is.

    Raises:
      ValueError: anything else.
    """
    if isinstance(loss_scale, LossScale):
        return loss_scale
    if loss_scale == "dynamic":
        return DynamicLossScale()
    if isinstance(loss_scale, (int, float)) and not isinstance(loss_scale, bool):
        return FixedLossScale(loss_scale)
    raise ValueError(f"loss_scale must be 'dynamic', a number or a LossScale, got "
                     f"{loss_scale!r}")


__all__ = ["LossScale", "FixedLossScale", "DynamicLossScale", "get_loss_scale"]
