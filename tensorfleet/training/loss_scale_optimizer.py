"""``tf.train.experimental.MixedPrecisionLossScaleOptimizer`` and
``enable_mixed_precision_graph_rewrite``.

The optimizer differentiates ``loss * loss_scale``, divides the gradients by the same
factor, and applies them only when all are finite (skipping the step otherwise), letting
the loss scale adjust (see ``loss_scale``).

The graph rewrite of TensorFlow turns float32 ops into float16 ones on GPUs; tensorfleet's
kernels run on the CPU in the dtypes the graph names, as TensorFlow's do on a machine
without GPUs, so enabling it changes no op and leaves the loss scaling, which is what
``enable_mixed_precision_graph_rewrite`` returns; a warning says so.
"""

from __future__ import annotations

import logging
from typing import Any, List, Optional, Sequence, Tuple

from tensorfleet.framework.graph import control_dependencies, convert_to_tensor
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.control_flow_ops import cond, group, no_op
from tensorfleet.training.loss_scale import LossScale, get_loss_scale
from tensorfleet.training.optimizer import Optimizer

logger = logging.getLogger(__name__)

_rewrite_enabled = [False]


class MixedPrecisionLossScaleOptimizer(Optimizer):
    """Wraps ``opt`` with loss scaling.

    Args:
      opt: a ``tf.train.Optimizer``.
      loss_scale: ``"dynamic"``, a number (a fixed scale) or a ``LossScale``.
    """

    def __init__(self, opt: Optimizer, loss_scale: Any):
        if not isinstance(opt, Optimizer):
            raise ValueError(f'"opt" must be an instance of Optimizer, got {type(opt)}')
        if isinstance(opt, MixedPrecisionLossScaleOptimizer):
            raise ValueError("the optimizer already scales its loss")
        super().__init__(use_locking=False, name="MixedPrecisionLossScaleOptimizer")
        self._optimizer = opt
        self._loss_scale = get_loss_scale(loss_scale)

    @property
    def loss_scale(self) -> LossScale:
        return self._loss_scale

    def compute_gradients(self, loss: Any, var_list: Optional[Sequence[Any]] = None,
                          gate_gradients: int = Optimizer.GATE_OP,
                          aggregation_method: Any = None,
                          colocate_gradients_with_ops: bool = False,
                          grad_loss: Any = None) -> List[Tuple[Any, Any]]:
        """The gradients of ``loss``, computed on the scaled loss and unscaled."""
        scale = self._loss_scale()
        loss = convert_to_tensor(loss)
        scaled = M.multiply(loss, A.cast(scale, loss.dtype))
        pairs = self._optimizer.compute_gradients(
            scaled, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        inv = M.reciprocal(scale)
        out = []
        for g, v in pairs:
            if g is None:
                out.append((g, v))
            elif isinstance(g, IndexedSlices):
                out.append((IndexedSlices(M.multiply(g.values, inv), g.indices,
                                          g.dense_shape), v))
            else:
                out.append((M.multiply(g, inv), v))
        return out

    def apply_gradients(self, grads_and_vars: Sequence[Tuple[Any, Any]], global_step: Any = None,
                        name: Optional[str] = None) -> Any:
        """Applies the gradients when all are finite, and updates the loss scale."""
        pairs = list(grads_and_vars)
        update_op, should_apply = self._loss_scale.update([g for g, _ in pairs])
        if should_apply is True:
            apply = self._optimizer.apply_gradients(pairs, global_step, name)
        else:
            apply = cond(should_apply,
                         lambda: self._optimizer.apply_gradients(pairs, global_step, name),
                         lambda: no_op())
        with control_dependencies([update_op]):
            return group(apply, update_op)

    def get_slot(self, var: Any, name: str) -> Any:
        return self._optimizer.get_slot(var, name)

    def get_slot_names(self) -> List[str]:
        return self._optimizer.get_slot_names()

    def variables(self) -> List[Any]:
        return self._optimizer.variables()


def enable_mixed_precision_graph_rewrite(opt: Optimizer, loss_scale: Any = "dynamic"
                                         ) -> MixedPrecisionLossScaleOptimizer:
    """``opt`` wrapped with loss scaling (see the module docstring: no op changes dtype)."""
    wrapped = MixedPrecisionLossScaleOptimizer(opt, loss_scale)
    _rewrite_enabled[0] = True
    logger.warning("enable_mixed_precision_graph_rewrite: tensorfleet's CPU kernels keep the "
                   "graph's float32 ops; only loss scaling is added")
    return wrapped


def disable_mixed_precision_graph_rewrite() -> None:
    """Undoes ``enable_mixed_precision_graph_rewrite``'s setting (optimizers already wrapped
    stay wrapped, as in TensorFlow)."""
    _rewrite_enabled[0] = False


def mixed_precision_graph_rewrite_enabled() -> bool:
    """Whether ``enable_mixed_precision_graph_rewrite`` was called (and not undone)."""
    return _rewrite_enabled[0]


__all__ = ["MixedPrecisionLossScaleOptimizer", "enable_mixed_precision_graph_rewrite",
           "disable_mixed_precision_graph_rewrite", "mixed_precision_graph_rewrite_enabled"]
