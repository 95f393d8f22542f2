"""The standard optimizers: GradientDescent, Momentum, Adagrad, Adam, RMSProp.

Each one maps a dense gradient to a fused ``Apply*`` op and an ``IndexedSlices``
gradient to the matching ``SparseApply*`` op, which touches only the rows that
were read (Adam excepted, see ``AdamOptimizer``). Hyperparameters may be Python
numbers, tensors (a decayed learning rate), Variables or callables.
"""

from __future__ import annotations

from typing import Any, List, Tuple

from tensorfleet.framework.graph import Operation, Tensor, get_default_graph
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.training import training_ops as _ops
from tensorfleet.training.optimizer import Optimizer
from tensorfleet.ops import state_ops
from tensorfleet.ops.control_flow_ops import group


class GradientDescentOptimizer(Optimizer):
    """Plain gradient descent: ``var -= learning_rate * grad``."""

    _SPARSE_KERNEL_SUMS_DUPLICATES = True

    def __init__(self, learning_rate: Any, use_locking: bool = False,
                 name: str = "GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate

    def _prepare(self) -> None:
        self._set_hypers(learning_rate=self._learning_rate)

    def _apply_dense(self, grad: Tensor, var: Any) -> Tensor:
        return _ops.apply_gradient_descent(var, self._get_hyper("learning_rate", var), grad,
                                           use_locking=self._use_locking)

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Tensor:
        return _ops.sparse_apply_gradient_descent(var, self._get_hyper("learning_rate", var),
                                                  grad.values, grad.indices,
                                                  use_locking=self._use_locking)


class MomentumOptimizer(Optimizer):
    """Gradient descent with momentum (optionally Nesterov's).

    ``accum = momentum * accum + grad; var -= learning_rate * accum``; with
    ``use_nesterov`` the step is ``learning_rate * (grad + momentum * accum)``.
    """

    _SPARSE_KERNEL_SUMS_DUPLICATES = True

    def __init__(self, learning_rate: Any, momentum: Any, use_locking: bool = False,
                 name: str = "Momentum", use_nesterov: bool = False):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = bool(use_nesterov)

    def _create_slots(self, var_list: List[Any]) -> None:
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self) -> None:
        self._set_hypers(learning_rate=self._learning_rate, momentum=self._momentum)

    def _apply_dense(self, grad: Tensor, var: Any) -> Tensor:
        return _ops.apply_momentum(var, self.get_slot(var, "momentum"),
                                   self._get_hyper("learning_rate", var), grad,
                                   self._get_hyper("momentum", var),
                                   use_locking=self._use_locking,
                                   use_nesterov=self._use_nesterov)

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Tensor:
        return _ops.sparse_apply_momentum(var, self.get_slot(var, "momentum"),
                                          self._get_hyper("learning_rate", var), grad.values,
                                          grad.indices, self._get_hyper("momentum", var),
                                          use_locking=self._use_locking,
                                          use_nesterov=self._use_nesterov)


class AdagradOptimizer(Optimizer):
    """Adagrad: per-coordinate steps shrinking with the accumulated squared gradients.

    ``accum += grad**2; var -= learning_rate * grad / sqrt(accum)``, with ``accum``
    starting at ``initial_accumulator_value`` (which must be positive).
    """

    _SPARSE_KERNEL_SUMS_DUPLICATES = True

    def __init__(self, learning_rate: Any, initial_accumulator_value: float = 0.1,
                 use_locking: bool = False, name: str = "Adagrad"):
        if not initial_accumulator_value > 0.0:
            raise ValueError(f"initial_accumulator_value must be positive: "
                             f"{initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = float(initial_accumulator_value)

    def _create_slots(self, var_list: List[Any]) -> None:
        for v in var_list:
            self._get_or_make_slot(v, self._initial_accumulator_value, "accumulator",
                                   self._name)

    def _prepare(self) -> None:
        self._set_hypers(learning_rate=self._learning_rate)

    def _apply_dense(self, grad: Tensor, var: Any) -> Tensor:
        return _ops.apply_adagrad(var, self.get_slot(var, "accumulator"),
                                  self._get_hyper("learning_rate", var), grad,
                                  use_locking=self._use_locking)

    def _sparse_update_spec(self, var: Any) -> Tuple[str, List[Any], List[Any]]:
        return ("SparseApplyAdagrad", [self.get_slot(var, "accumulator")],
                [self._get_hyper("learning_rate", var)])

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Tensor:
        return _ops.sparse_apply_adagrad(var, self.get_slot(var, "accumulator"),
                                         self._get_hyper("learning_rate", var), grad.values,
                                         grad.indices, use_locking=self._use_locking)


class AdamOptimizer(Optimizer):
    """Adam (Kingma and Ba), in TensorFlow 1.x's formulation.

    ``lr_t = learning_rate * sqrt(1 - beta2^t) / (1 - beta1^t)``;
    ``m = beta1*m + (1-beta1)*g``; ``v = beta2*v + (1-beta2)*g**2``;
    ``var -= lr_t * m / (sqrt(v) + epsilon)``.

    ``beta1^t`` and ``beta2^t`` are two non-trainable variables (``beta1_power``,
    ``beta2_power``) colocated with the first variable by name, multiplied by the
    betas once every variable has been updated.

    With a sparse gradient the moments still decay on every row (TensorFlow 1.x
    behaviour, not "lazy Adam"), so a sparse step costs a dense one; rows that never
    received a gradient keep zero moments and do not move.
    """

    _SPARSE_KERNEL_SUMS_DUPLICATES = True

    def __init__(self, learning_rate: Any = 0.001, beta1: Any = 0.9, beta2: Any = 0.999,
                 epsilon: Any = 1e-8, use_locking: bool = False, name: str = "Adam"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon

    def _get_beta_accumulators(self) -> tuple:
        graph = get_default_graph()
        return (self._get_non_slot_variable("beta1_power", graph),
                self._get_non_slot_variable("beta2_power", graph))

    def _create_slots(self, var_list: List[Any]) -> None:
        first_var = min(var_list, key=lambda v: v.name)
        self._create_non_slot_variable(self._beta1, "beta1_power", first_var)
        self._create_non_slot_variable(self._beta2, "beta2_power", first_var)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self) -> None:
        self._set_hypers(learning_rate=self._lr, beta1=self._beta1, beta2=self._beta2,
                         epsilon=self._epsilon)

    def _hypers(self, var: Any) -> list:
        return [self._get_hyper(n, var) for n in ("learning_rate", "beta1", "beta2", "epsilon")]

    def _apply_dense(self, grad: Tensor, var: Any) -> Tensor:
        b1p, b2p = self._get_beta_accumulators()
        return _ops.apply_adam(var, self.get_slot(var, "m"), self.get_slot(var, "v"),
                               b1p, b2p, *self._hypers(var), grad,
                               use_locking=self._use_locking)

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Tensor:
        b1p, b2p = self._get_beta_accumulators()
        return _ops.sparse_apply_adam(var, self.get_slot(var, "m"), self.get_slot(var, "v"),
                                      b1p, b2p, *self._hypers(var), grad.values, grad.indices,
                                      use_locking=self._use_locking)

    def _finish(self, update_ops: List[Any], name_scope: str) -> Operation:
        graph = get_default_graph()
        b1p, b2p = self._get_beta_accumulators()
        # The powers advance after every variable has used this step's values.
        with graph.control_dependencies(update_ops), graph.colocate_with(b1p.op):
            upd1 = state_ops.assign(b1p, b1p.value() * self._get_hyper("beta1", b1p),
                                    use_locking=self._use_locking)
            upd2 = state_ops.assign(b2p, b2p.value() * self._get_hyper("beta2", b2p),
                                    use_locking=self._use_locking)
        return group(*(list(update_ops) + [upd1, upd2]), name=name_scope)


class RMSPropOptimizer(Optimizer):
    """RMSProp (Hinton), optionally with momentum and centered.

    ``ms = decay*ms + (1-decay)*g**2``; ``mom = momentum*mom + lr*g/sqrt(ms+eps)``;
    ``var -= mom``. Centered, ``mg = decay*mg + (1-decay)*g`` and the denominator
    is ``sqrt(ms - mg**2 + eps)``. ``ms`` starts at one, as in TensorFlow 1.x.
    """

    _SPARSE_KERNEL_SUMS_DUPLICATES = True

    def __init__(self, learning_rate: Any, decay: Any = 0.9, momentum: Any = 0.0,
                 epsilon: Any = 1e-10, use_locking: bool = False, centered: bool = False,
                 name: str = "RMSProp"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._decay = decay
        self._momentum = momentum
        self._epsilon = epsilon
        self._centered = bool(centered)

    def _create_slots(self, var_list: List[Any]) -> None:
        for v in var_list:
            self._get_or_make_slot(v, 1.0, "rms", self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self) -> None:
        self._set_hypers(learning_rate=self._learning_rate, decay=self._decay,
                         momentum=self._momentum, epsilon=self._epsilon)

    def _hypers(self, var: Any) -> list:
        return [self._get_hyper(n, var) for n in ("learning_rate", "decay", "momentum",
                                                   "epsilon")]

    def _apply_dense(self, grad: Tensor, var: Any) -> Tensor:
        rms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")
        if self._centered:
            return _ops.apply_centered_rms_prop(var, self.get_slot(var, "mg"), rms, mom,
                                                *self._hypers(var), grad,
                                                use_locking=self._use_locking)
        return _ops.apply_rms_prop(var, rms, mom, *self._hypers(var), grad,
                                   use_locking=self._use_locking)

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Tensor:
        rms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")
        if self._centered:
            return _ops.sparse_apply_centered_rms_prop(
                var, self.get_slot(var, "mg"), rms, mom, *self._hypers(var), grad.values,
                grad.indices, use_locking=self._use_locking)
        return _ops.sparse_apply_rms_prop(var, rms, mom, *self._hypers(var), grad.values,
                                          grad.indices, use_locking=self._use_locking)


__all__ = ["GradientDescentOptimizer", "MomentumOptimizer", "AdagradOptimizer",
           "AdamOptimizer", "RMSPropOptimizer"]
