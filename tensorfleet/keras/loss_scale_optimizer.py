"""``tf.keras.mixed_precision.LossScaleOptimizer``: multiplies the loss by a scale before
the gradients are taken (so that small float16 gradients do not flush to zero) and
divides the gradients by it before they are applied. With ``dynamic`` scaling a step
whose gradients are not all finite is skipped and the scale halved; after
``dynamic_growth_steps`` finite steps in a row the scale doubles."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, get_default_graph
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.keras import backend as K
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import control_flow_ops as CF
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import state_ops as S
from tensorfleet.ops.variables import Variable
from tensorfleet.training.optimizer import Optimizer


class LossScaleOptimizer(Optimizer):
    """Wraps ``inner_optimizer`` with loss scaling (dynamic by default, starting at
    2**15 and doubling every 2000 finite steps; fixed at ``initial_scale`` otherwise)."""

    def __init__(self, inner_optimizer: Any, dynamic: bool = True,
                 initial_scale: Optional[float] = None,
                 dynamic_growth_steps: Optional[int] = None):
        if not isinstance(inner_optimizer, Optimizer):
            raise TypeError(f"LossScaleOptimizer: inner_optimizer must be an optimizer, got "
                            f"{inner_optimizer!r}")
        if isinstance(inner_optimizer, LossScaleOptimizer):
            raise TypeError("LossScaleOptimizer cannot wrap another LossScaleOptimizer")
        if not dynamic:
            if initial_scale is None:
                raise ValueError("When dynamic is False, initial_scale must be given")
            if dynamic_growth_steps is not None:
                raise ValueError("dynamic_growth_steps only applies with dynamic=True")
        super().__init__(False, "LossScaleOptimizer")
        self.inner_optimizer, self.dynamic = inner_optimizer, bool(dynamic)
        self.initial_scale = float(initial_scale if initial_scale is not None else 2.0 ** 15)
        self.dynamic_growth_steps = int(dynamic_growth_steps or 2000) if dynamic else None
        if self.initial_scale <= 0:
            raise ValueError(f"initial_scale must be positive, got {initial_scale}")
        g = get_default_graph()
        with g.control_dependencies(None), g.name_scope("loss_scale"):
            self._scale = Variable(self.initial_scale, name="current_loss_scale",
                                   trainable=False, dtype=_dtypes.float32)
            self._good_steps = Variable(0, name="good_steps", trainable=False,
                                        dtype=_dtypes.int64)
        K.track_variable(self._scale)
        K.track_variable(self._good_steps)

    @property
    def loss_scale(self) -> Any:
        """The current loss scale (a float32 variable)."""
        return self._scale

    @property
    def iterations(self) -> Any:
        """The inner optimizer's step counter."""
        return getattr(self.inner_optimizer, "iterations", None)

    @property
    def lr(self) -> Any:
        """The inner optimizer's learning rate."""
        return self.inner_optimizer.lr

    learning_rate = lr

    def get_scaled_loss(self, loss: Any) -> Tensor:
        """``loss * loss_scale``."""
        loss = convert_to_tensor(loss)
        return M.multiply(loss, A.cast(self._scale, loss.dtype))

    def get_unscaled_gradients(self, grads: Sequence[Any]) -> List[Any]:
        """Each gradient divided by the loss scale (None stays None)."""
        out = []
        for g in grads:
            if g is None:
                out.append(None)
                continue
            if isinstance(g, IndexedSlices):
                g = convert_to_tensor(g)
            out.append(M.divide(g, A.cast(self._scale, g.dtype)))
        return out

    def compute_gradients(self, loss: Any, var_list: Optional[Sequence[Any]] = None,
                          **kwargs: Any) -> List[Tuple[Any, Any]]:
        """The inner optimizer's gradients of the scaled loss, unscaled."""
        pairs = self.inner_optimizer.compute_gradients(self.get_scaled_loss(loss),
                                                       var_list=var_list, **kwargs)
        grads = self.get_unscaled_gradients([g for g, _ in pairs])
        return list(zip(grads, [v for _, v in pairs]))

    def apply_gradients(self, grads_and_vars: Sequence[Tuple[Any, Any]],
                        global_step: Any = None, name: Optional[str] = None) -> Any:
        """Applies the gradients with the inner optimizer when they are all finite (and
        updates the dynamic scale); otherwise skips the step."""
        pairs = list(grads_and_vars)
        grads = [g for g, _ in pairs if g is not None]
        finite = M.reduce_all(A.stack([M.reduce_all(M.is_finite(g)) for g in grads])) \
            if grads else A.constant(True)

        def apply() -> Any:
            return self.inner_optimizer.apply_gradients(pairs, global_step=global_step,
                                                        name=name)
        step = CF.cond(finite, lambda: CF.group(apply()), CF.no_op)
        if not self.dynamic:
            return step
        n = int(self.dynamic_growth_steps or 2000)

        def grow() -> Any:
            count = M.add(self._good_steps.value(), 1)
            full = M.greater_equal(count, n)
            return CF.group(
                S.assign(self._good_steps, A.where(full, A.zeros_like(count), count)),
                S.assign(self._scale, A.where(full, M.multiply(self._scale.value(), 2.0),
                                              self._scale.value())))

        def shrink() -> Any:
            return CF.group(S.assign(self._good_steps, A.zeros_like(self._good_steps.value())),
                            S.assign(self._scale, M.maximum(
                                M.multiply(self._scale.value(), 0.5), 1.0)))
        with get_default_graph().control_dependencies([step]):
            update = CF.cond(finite, grow, shrink)
        return CF.group(step, update)

    def variables(self) -> List[Any]:
        """The inner optimizer's variables and the scale's."""
        return list(self.inner_optimizer.variables()) + [self._scale, self._good_steps]

    def get_config(self) -> dict:
        """The inner optimizer and the scaling settings."""
        from_inner = {"class_name": type(self.inner_optimizer).__name__,
                      "config": self.inner_optimizer.get_config()}
        return {"inner_optimizer": from_inner, "dynamic": self.dynamic,
                "initial_scale": self.initial_scale,
                "dynamic_growth_steps": self.dynamic_growth_steps}


__all__ = ["LossScaleOptimizer"]
