"""The optimizers of large sparse models: FTRL, Adadelta, proximal GD and Adagrad,
Adagrad dual averaging, and lazy Adam.

Every one maps a dense gradient to a fused ``Apply*`` op and an ``IndexedSlices``
gradient (an embedding lookup's) to the matching ``SparseApply*`` op. Colocated
with the variable, the sparse op runs on the variable's parameter server, reads
and writes only the rows named by the gradient (in the variable and in every
slot) and sums repeated indices first, so a step ships and touches the looked-up
rows only.

Names, defaults, slot names and update rules are TensorFlow 1.x's.
"""

from __future__ import annotations

import numbers
from typing import Any, List, Optional, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.ops import array_ops, math_ops
from tensorfleet.training import training_ops as _ops
from tensorfleet.training.optimizer import Optimizer
from tensorfleet.training.optimizers import AdamOptimizer


def _is_number(x: Any) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def _check(value: Any, ok: bool, message: str) -> None:
    # Only plain numbers can be checked when the graph is built; tensors are checked
    # by the kernels, as TensorFlow's are.
    if _is_number(value) and not ok:
        raise ValueError(message)


class FtrlOptimizer(Optimizer):
    """FTRL-Proximal (McMahan et al., "Ad Click Prediction: a View from the Trenches").

    Per coordinate, with ``p = -learning_rate_power``::

        accum_new = accum + g**2
        linear += g_s - (accum_new**p - accum**p) / learning_rate * var
        quadratic = accum_new**p / learning_rate + 2 * l2
        var = (sign(linear) * l1 - linear) / quadratic  if |linear| > l1  else 0
        accum = accum_new

    where ``g_s = g + 2 * l2_shrinkage * var`` (just ``g`` without shrinkage).
    With ``beta``, ``l2`` is increased by ``beta / (2 * learning_rate)``.

    Slots: ``"accum"`` (starting at ``initial_accumulator_value``) named
    ``accum_name`` or the optimizer's name, and ``"linear"`` (zeros) named
    ``linear_name`` or the optimizer's name.
    """

    _SPARSE_KERNEL_SUMS_DUPLICATES = True

    def __init__(self, learning_rate: Any, learning_rate_power: Any = -0.5,
                 initial_accumulator_value: float = 0.1,
                 l1_regularization_strength: Any = 0.0, l2_regularization_strength: Any = 0.0,
                 use_locking: bool = False, name: str = "Ftrl",
                 accum_name: Optional[str] = None, linear_name: Optional[str] = None,
                 l2_shrinkage_regularization_strength: Any = 0.0, beta: Any = None):
        super().__init__(use_locking, name)
        if not _is_number(initial_accumulator_value):
            raise TypeError(f"initial_accumulator_value must be a number, got "
                            f"{initial_accumulator_value!r}")
        _check(initial_accumulator_value, initial_accumulator_value >= 0.0,
               f"initial_accumulator_value {initial_accumulator_value} needs to be positive "
               f"or zero")
        _check(learning_rate_power, _is_number(learning_rate_power)
               and learning_rate_power <= 0.0,
               f"learning_rate_power {learning_rate_power} needs to be negative or zero")
        for value, what in ((l1_regularization_strength, "l1_regularization_strength"),
                            (l2_regularization_strength, "l2_regularization_strength"),
                            (l2_shrinkage_regularization_strength,
                             "l2_shrinkage_regularization_strength")):
            _check(value, _is_number(value) and value >= 0.0,
                   f"{what} {value} needs to be positive or zero")
        self._learning_rate = learning_rate
        self._learning_rate_power = learning_rate_power
        self._initial_accumulator_value = float(initial_accumulator_value)
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength
        self._l2_shrinkage = l2_shrinkage_regularization_strength
        self._beta = 0.0 if beta is None else beta
        self._accum_name = accum_name
        self._linear_name = linear_name

    def _create_slots(self, var_list: List[Any]) -> None:
        for v in var_list:
            self._get_or_make_slot(v, self._initial_accumulator_value, "accum",
                                   self._accum_name or self._name)
            self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _adjusted_l2(self) -> Any:
        """``l2 + beta / (2 * learning_rate)``: a number when all three are numbers."""
        lr = self._call_if_callable(self._learning_rate)
        l2 = self._call_if_callable(self._l2)
        beta = self._call_if_callable(self._beta)
        if _is_number(beta) and beta == 0:
            return l2
        if _is_number(lr) and _is_number(l2) and _is_number(beta):
            return float(l2) + float(beta) / (2.0 * float(lr))
        lr_t = convert_to_tensor(lr, preferred_dtype=_dtypes.float32)
        return math_ops.add(convert_to_tensor(l2, dtype=lr_t.dtype),
                            convert_to_tensor(beta, dtype=lr_t.dtype) / (2.0 * lr_t),
                            name="adjusted_l2_regularization_strength")

    def _prepare(self) -> None:
        self._set_hypers(learning_rate=self._learning_rate,
                         learning_rate_power=self._learning_rate_power,
                         l1_regularization_strength=self._l1,
                         l2_regularization_strength=self._adjusted_l2(),
                         l2_shrinkage_regularization_strength=self._l2_shrinkage)

    def _use_shrinkage(self) -> bool:
        # As TensorFlow does: a shrinkage tensor always takes the V2 op.
        return not (_is_number(self._l2_shrinkage) and self._l2_shrinkage <= 0.0)

    def _hypers(self, var: Any) -> list:
        names = ["learning_rate", "l1_regularization_strength", "l2_regularization_strength"]
        if self._use_shrinkage():
            names.append("l2_shrinkage_regularization_strength")
        names.append("learning_rate_power")
        return [self._get_hyper(n, var) for n in names]

    def _apply_dense(self, grad: Tensor, var: Any) -> Tensor:
        slots = (self.get_slot(var, "accum"), self.get_slot(var, "linear"))
        if self._use_shrinkage():
            return _ops.apply_ftrl_v2(var, *slots, grad, *self._hypers(var),
                                      use_locking=self._use_locking)
        return _ops.apply_ftrl(var, *slots, grad, *self._hypers(var),
                               use_locking=self._use_locking)

    def _sparse_update_spec(self, var: Any) -> Tuple[str, List[Any], List[Any]]:
        return ("SparseApplyFtrlV2" if self._use_shrinkage() else "SparseApplyFtrl",
                [self.get_slot(var, "accum"), self.get_slot(var, "linear")],
                self._hypers(var))

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Tensor:
        slots = (self.get_slot(var, "accum"), self.get_slot(var, "linear"))
        if self._use_shrinkage():
            return _ops.sparse_apply_ftrl_v2(var, *slots, grad.values, grad.indices,
                                             *self._hypers(var), use_locking=self._use_locking)
        return _ops.sparse_apply_ftrl(var, *slots, grad.values, grad.indices,
                                      *self._hypers(var), use_locking=self._use_locking)


class AdadeltaOptimizer(Optimizer):
    """Adadelta (Zeiler, "ADADELTA: An Adaptive Learning Rate Method")::

        accum = rho * accum + (1 - rho) * g**2
        update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * g
        accum_update = rho * accum_update + (1 - rho) * update**2
        var -= learning_rate * update

    Slots ``"accum"`` and ``"accum_update"``, both starting at zero.
    """

    _SPARSE_KERNEL_SUMS_DUPLICATES = True

    def __init__(self, learning_rate: Any = 0.001, rho: Any = 0.95, epsilon: Any = 1e-8,
                 use_locking: bool = False, name: str = "Adadelta"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._rho = rho
        self._epsilon = epsilon

    def _create_slots(self, var_list: List[Any]) -> None:
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _prepare(self) -> None:
        self._set_hypers(learning_rate=self._lr, rho=self._rho, epsilon=self._epsilon)

    def _hypers(self, var: Any) -> list:
        return [self._get_hyper(n, var) for n in ("learning_rate", "rho",
                                                              "epsilon")]

    def _apply_dense(self, grad: Tensor, var: Any) -> Tensor:
        return _ops.apply_adadelta(var, self.get_slot(var, "accum"),
                                   self.get_slot(var, "accum_update"), *self._hypers(var), grad,
                                   use_locking=self._use_locking)

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Tensor:
        return _ops.sparse_apply_adadelta(var, self.get_slot(var, "accum"),
                                          self.get_slot(var, "accum_update"),
                                          *self._hypers(var), grad.values, grad.indices,
                                          use_locking=self._use_locking)


class ProximalGradientDescentOptimizer(Optimizer):
    """Gradient descent followed by the proximal step of the L1 and L2 penalties::

        prox = var - learning_rate * g
        var = sign(prox) * max(|prox| - learning_rate * l1, 0) / (1 + learning_rate * l2)

    (Duchi and Singer, "Efficient Learning using Forward-Backward Splitting").
    """

    _SPARSE_KERNEL_SUMS_DUPLICATES = True

    def __init__(self, learning_rate: Any, l1_regularization_strength: Any = 0.0,
                 l2_regularization_strength: Any = 0.0, use_locking: bool = False,
                 name: str = "ProximalGradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength

    def _prepare(self) -> None:
        self._set_hypers(learning_rate=self._learning_rate, l1_regularization_strength=self._l1,
                         l2_regularization_strength=self._l2)

    def _hypers(self, var: Any) -> list:
        return [self._get_hyper(n, var) for n in (
            "learning_rate", "l1_regularization_strength", "l2_regularization_strength")]

    def _apply_dense(self, grad: Tensor, var: Any) -> Tensor:
        return _ops.apply_proximal_gradient_descent(var, *self._hypers(var), grad,
                                                    use_locking=self._use_locking)

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Tensor:
        return _ops.sparse_apply_proximal_gradient_descent(
            var, *self._hypers(var), grad.values, grad.indices, use_locking=self._use_locking)


class ProximalAdagradOptimizer(ProximalGradientDescentOptimizer):
    """Adagrad followed by the proximal step of the L1 and L2 penalties::

        accum += g**2
        lr_t = learning_rate / sqrt(accum)
        prox = var - lr_t * g
        var = sign(prox) * max(|prox| - lr_t * l1, 0) / (1 + lr_t * l2)

    Slot ``"accumulator"`` starting at ``initial_accumulator_value`` (positive).
    """

    def __init__(self, learning_rate: Any, initial_accumulator_value: float = 0.1,
                 l1_regularization_strength: Any = 0.0, l2_regularization_strength: Any = 0.0,
                 use_locking: bool = False, name: str = "ProximalAdagrad"):
        if not _is_number(initial_accumulator_value) or not initial_accumulator_value > 0.0:
            raise ValueError(f"initial_accumulator_value must be positive: "
                             f"{initial_accumulator_value}")
        super().__init__(learning_rate, l1_regularization_strength, l2_regularization_strength,
                         use_locking, name)
        self._initial_accumulator_value = float(initial_accumulator_value)

    def _create_slots(self, var_list: List[Any]) -> None:
        for v in var_list:
            self._get_or_make_slot(v, self._initial_accumulator_value, "accumulator",
                                   self._name)

    def _apply_dense(self, grad: Tensor, var: Any) -> Tensor:
        return _ops.apply_proximal_adagrad(var, self.get_slot(var, "accumulator"),
                                           *self._hypers(var), grad,
                                           use_locking=self._use_locking)

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Tensor:
        return _ops.sparse_apply_proximal_adagrad(var, self.get_slot(var, "accumulator"),
                                                  *self._hypers(var), grad.values,
                                                  grad.indices, use_locking=self._use_locking)


class AdagradDAOptimizer(Optimizer):
    """Adagrad dual averaging (Duchi, Hazan and Singer), for sparse linear models.

    With ``T`` the global step plus one, ``ga`` the summed gradients and ``gg``
    the summed squared gradients (starting at
    ``initial_gradient_squared_accumulator_value``)::

        var = -learning_rate * sign(ga) * max(|ga| - T * l1, 0)
              / (T * l2 * learning_rate + sqrt(gg))

    Slots ``"gradient_accumulator"`` and ``"gradient_squared_accumulator"``.
    ``global_step`` is read once per step, colocated with the learning rate.
    """

    _SPARSE_KERNEL_SUMS_DUPLICATES = True

    def __init__(self, learning_rate: Any, global_step: Any,
                 initial_gradient_squared_accumulator_value: float = 0.1,
                 l1_regularization_strength: Any = 0.0, l2_regularization_strength: Any = 0.0,
                 use_locking: bool = False, name: str = "AdagradDA"):
        value = initial_gradient_squared_accumulator_value
        if not _is_number(value) or not value > 0.0:
            raise ValueError(f"initial_gradient_squared_accumulator_value must be positive: "
                             f"{value}")
        if global_step is None:
            raise ValueError("AdagradDAOptimizer needs a global_step variable or tensor")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_gradient_squared_accumulator_value = float(value)
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength
        self._global_step = global_step
        self._global_step_on_worker: Optional[Tensor] = None

    def _create_slots(self, var_list: List[Any]) -> None:
        for v in var_list:
            self._zeros_slot(v, "gradient_accumulator", self._name)
            self._get_or_make_slot(v, self._initial_gradient_squared_accumulator_value,
                                   "gradient_squared_accumulator", self._name)

    def _prepare(self) -> None:
        self._set_hypers(learning_rate=self._learning_rate, l1_regularization_strength=self._l1,
                         l2_regularization_strength=self._l2)
        # One read of the global step per step, on the worker, instead of one per
        # variable on the parameter server that holds it.
        step = convert_to_tensor(self._global_step)
        if not step.dtype.base_dtype.is_integer:
            raise TypeError(f"global_step must be an integer variable, got {step.dtype.name}")
        step = array_ops.identity(step)
        if step.dtype.base_dtype is not _dtypes.int64:
            step = array_ops.cast(step, _dtypes.int64)
        self._global_step_on_worker = step + 1

    def _args(self, var: Any) -> list:
        hypers = [self._get_hyper(n, var) for n in (
            "learning_rate", "l1_regularization_strength", "l2_regularization_strength")]
        return hypers + [self._global_step_on_worker]

    def _apply_dense(self, grad: Tensor, var: Any) -> Tensor:
        return _ops.apply_adagrad_da(var, self.get_slot(var, "gradient_accumulator"),
                                     self.get_slot(var, "gradient_squared_accumulator"), grad,
                                     *self._args(var), use_locking=self._use_locking)

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Tensor:
        return _ops.sparse_apply_adagrad_da(var, self.get_slot(var, "gradient_accumulator"),
                                            self.get_slot(var, "gradient_squared_accumulator"),
                                            grad.values, grad.indices, *self._args(var),
                                            use_locking=self._use_locking)


class LazyAdamOptimizer(AdamOptimizer):
    """``tf.contrib.opt.LazyAdamOptimizer``: Adam whose sparse updates are lazy.

    A dense gradient is applied as by ``AdamOptimizer``. An ``IndexedSlices``
    gradient updates the moments ``m`` and ``v`` and the variable on the rows it
    names only::

        m[i] = beta1 * m[i] + (1 - beta1) * g[i]
        v[i] = beta2 * v[i] + (1 - beta2) * g[i]**2
        var[i] -= lr_t * m[i] / (sqrt(v[i]) + epsilon)

    with ``lr_t`` as in Adam; the other rows, and their moments, do not change.
    That makes a step's cost follow the number of ids looked up rather than the
    embedding's size, at the price of moments that decay only when their row is
    read.
    """

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Tensor:
        b1p, b2p = self._get_beta_accumulators()
        return _ops.sparse_apply_lazy_adam(var, self.get_slot(var, "m"), self.get_slot(var, "v"),
                                           b1p, b2p, *self._hypers(var), grad.values,
                                           grad.indices, use_locking=self._use_locking)


__all__ = ["FtrlOptimizer", "AdadeltaOptimizer", "ProximalGradientDescentOptimizer",
           "ProximalAdagradOptimizer", "AdagradDAOptimizer", "LazyAdamOptimizer"]
