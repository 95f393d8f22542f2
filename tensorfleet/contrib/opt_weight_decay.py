"""Decoupled weight decay (Loshchilov and Hutter) for ``tf.contrib.opt``:
``AdamWOptimizer``, ``MomentumWOptimizer`` and ``extend_with_decoupled_weight_decay``.

As in TF 1.x contrib, each step first shrinks every decayed variable by
``weight_decay * var`` (not scaled by the learning rate: schedule ``weight_decay``
together with the learning rate when it changes), then applies the wrapped optimizer's
update from the gradient, which does not see the decay. A sparse gradient decays only
the rows it touches. ``decay_var_list`` (in ``minimize`` / ``apply_gradients``) limits
the decay to some variables.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Set, Tuple, Type

from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.ops import array_ops, state_ops
from tensorfleet.ops.sparse_ops import unique
from tensorfleet.training.optimizer import Optimizer
from tensorfleet.training.optimizers import AdamOptimizer, MomentumOptimizer


class DecoupledWeightDecayExtension:
    """Mixin that adds decoupled weight decay in front of an optimizer's updates; it
    must come before the optimizer class in the bases."""

    # The decay is a scatter on unique rows, so the wrapped update gets unique indices.
    _SPARSE_KERNEL_SUMS_DUPLICATES = False

    def __init__(self, weight_decay: Any, *args: Any, **kwargs: Any):
        self._weight_decay = weight_decay
        self._decay_var_ids: Optional[Set[int]] = None
        super().__init__(*args, **kwargs)  # type: ignore[call-arg]

    def _decays(self, var: Any) -> bool:
        return self._decay_var_ids is None or id(var) in self._decay_var_ids

    def _decay_tensor(self, var: Any) -> Tensor:
        wd = self._weight_decay() if callable(self._weight_decay) else self._weight_decay
        return array_ops.cast(convert_to_tensor(wd, name="weight_decay"), var.dtype.base_dtype)

    def _decay_dense(self, var: Any) -> Any:
        return state_ops.assign_sub(var, self._decay_tensor(var) * var.value(),
                                    use_locking=self._use_locking)  # type: ignore[attr-defined]

    def _decay_sparse(self, var: Any, indices: Tensor) -> Any:
        rows, _ = unique(indices)
        update = -self._decay_tensor(var) * array_ops.gather(var.value(), rows)
        return state_ops.scatter_add(var, rows, update,
                                     use_locking=self._use_locking)  # type: ignore[attr-defined]

    def _apply_dense(self, grad: Tensor, var: Any) -> Any:
        if not self._decays(var):
            return super()._apply_dense(grad, var)  # type: ignore[misc]
        with get_default_graph().control_dependencies([self._decay_dense(var)]):
            return super()._apply_dense(grad, var)  # type: ignore[misc]

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        if not self._decays(var):
            return super()._apply_sparse(grad, var)  # type: ignore[misc]
        with get_default_graph().control_dependencies([self._decay_sparse(var, grad.indices)]):
            return super()._apply_sparse(grad, var)  # type: ignore[misc]

    def apply_gradients(self, grads_and_vars: Sequence[Tuple[Any, Any]], global_step: Any = None,
                        name: Optional[str] = None,
                        decay_var_list: Optional[Sequence[Any]] = None) -> Operation:
        """The wrapped optimizer's ``apply_gradients``, decaying the variables of
        ``decay_var_list`` (every updated variable when None) first."""
        self._decay_var_ids = None if decay_var_list is None else {id(v) for v in decay_var_list}
        try:
            return super().apply_gradients(grads_and_vars, global_step=global_step,  # type: ignore
                                           name=name)
        finally:
            self._decay_var_ids = None

    def minimize(self, loss: Tensor, global_step: Any = None, var_list: Any = None,
                 gate_gradients: int = Optimizer.GATE_OP, aggregation_method: Any = None,
                 colocate_gradients_with_ops: bool = False, name: Optional[str] = None,
                 grad_loss: Any = None, decay_var_list: Optional[Sequence[Any]] = None
                 ) -> Operation:
        """``compute_gradients`` then ``apply_gradients`` with ``decay_var_list``.

        Raises:
          ValueError: when no variable receives a gradient from ``loss``.
        """
        grads_and_vars = self.compute_gradients(  # type: ignore[attr-defined]
            loss, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        if not [v for g, v in grads_and_vars if g is not None]:
            raise ValueError(f"No gradients provided for any variable, check your graph for "
                             f"ops that do not support gradients, between variables "
                             f"{[v.name for _, v in grads_and_vars]} and loss {loss}.")
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name,
                                    decay_var_list=decay_var_list)


def extend_with_decoupled_weight_decay(base_optimizer: Type[Optimizer]) -> Type[Optimizer]:
    """A subclass of ``base_optimizer`` whose constructor takes ``weight_decay`` first and
    which decays variables before each update (see the module docstring)."""
    if not (isinstance(base_optimizer, type) and issubclass(base_optimizer, Optimizer)):
        raise TypeError(f"extend_with_decoupled_weight_decay needs an Optimizer class, got "
                        f"{base_optimizer!r}")

    class OptimizerWithDecoupledWeightDecay(DecoupledWeightDecayExtension,  # type: ignore
                                            base_optimizer):
        """``base_optimizer`` with decoupled weight decay."""

        def __init__(self, weight_decay: Any, *args: Any, **kwargs: Any):
            super().__init__(weight_decay, *args, **kwargs)

    OptimizerWithDecoupledWeightDecay.__name__ = f"{base_optimizer.__name__}WithDecay"
    return OptimizerWithDecoupledWeightDecay


class AdamWOptimizer(DecoupledWeightDecayExtension, AdamOptimizer):
    """Adam with decoupled weight decay: ``var -= weight_decay * var`` then the Adam
    step; variables and slots are named as ``AdamOptimizer``'s under ``name``."""

    def __init__(self, weight_decay: Any, learning_rate: Any = 0.001, beta1: Any = 0.9,
                 beta2: Any = 0.999, epsilon: Any = 1e-8, use_locking: bool = False,
                 name: str = "AdamW"):
        super().__init__(weight_decay, learning_rate=learning_rate, beta1=beta1, beta2=beta2,
                         epsilon=epsilon, use_locking=use_locking, name=name)


class MomentumWOptimizer(DecoupledWeightDecayExtension, MomentumOptimizer):
    """Momentum with decoupled weight decay: ``var -= weight_decay * var`` then the
    momentum step."""

    def __init__(self, weight_decay: Any, learning_rate: Any, momentum: Any,
                 use_locking: bool = False, name: str = "MomentumW",
                 use_nesterov: bool = False):
        super().__init__(weight_decay, learning_rate=learning_rate, momentum=momentum,
                         use_locking=use_locking, name=name, use_nesterov=use_nesterov)


__all__ = ["DecoupledWeightDecayExtension", "extend_with_decoupled_weight_decay",
           "AdamWOptimizer", "MomentumWOptimizer"]
