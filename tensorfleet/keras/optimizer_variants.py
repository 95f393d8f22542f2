"""Keras optimizers beyond SGD/Adam/RMSprop/Adagrad: ``Adadelta`` and ``Ftrl`` (the
``tf.train`` updates with Keras's defaults), ``Adamax`` and ``Nadam`` (Keras's updates).
All share the Keras learning-rate variable, decay, schedules and gradient clipping."""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.keras import backend as K
from tensorfleet.keras.optimizer_base import _KerasOptimizer
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import control_flow_ops as CF
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import state_ops as S
from tensorfleet.training.optimizer import Optimizer
from tensorfleet.training.sparse_optimizers import AdadeltaOptimizer, FtrlOptimizer


def _eps(epsilon: Any) -> float:
    return float(epsilon if epsilon is not None else K.epsilon())


class Adadelta(_KerasOptimizer, AdadeltaOptimizer):
    """Adadelta with Keras's defaults (``learning_rate=0.001``, ``rho=0.95``,
    ``epsilon=1e-7``)."""

    def __init__(self, learning_rate: Any = 0.001, rho: float = 0.95, epsilon: float = 1e-7,
                 name: str = "Adadelta", decay: float = 0.0, **kwargs: Any):
        self._name = name
        self._keras_setup(learning_rate, decay, kwargs)
        AdadeltaOptimizer.__init__(self, self._lr_tensor, rho=rho, epsilon=_eps(epsilon),
                                   name=name)


class Ftrl(_KerasOptimizer, FtrlOptimizer):
    """FTRL-Proximal with Keras's defaults (``learning_rate=0.001``,
    ``initial_accumulator_value=0.1``)."""

    def __init__(self, learning_rate: Any = 0.001, learning_rate_power: float = -0.5,
                 initial_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0, name: str = "Ftrl",
                 l2_shrinkage_regularization_strength: float = 0.0, beta: float = 0.0,
                 decay: float = 0.0, **kwargs: Any):
        self._name = name
        self._keras_setup(learning_rate, decay, kwargs)
        FtrlOptimizer.__init__(self, self._lr_tensor, learning_rate_power=learning_rate_power,
                               initial_accumulator_value=initial_accumulator_value,
                               l1_regularization_strength=l1_regularization_strength,
                               l2_regularization_strength=l2_regularization_strength,
                               l2_shrinkage_regularization_strength=(
                                   l2_shrinkage_regularization_strength),
                               beta=beta, name=name)


class _DenseUpdates(_KerasOptimizer, Optimizer):
    """A Keras update written with tensor ops; sparse gradients are applied densely."""

    def _prepare(self) -> None:
        self._lr_t = convert_to_tensor(self._lr_tensor())
        self._t = M.add(A.cast(convert_to_tensor(self.iterations), _dtypes.float32), 1.0)

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        return self._apply_dense(convert_to_tensor(grad), var)


class _AdamFamily(_DenseUpdates):
    """Keras's arguments and the ``m``/``v`` slots of Adamax and Nadam."""

    def __init__(self, learning_rate: Any = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, name: Optional[str] = None, decay: float = 0.0,
                 **kwargs: Any):
        name = name or type(self).__name__
        self._name = name
        self._keras_setup(learning_rate, decay, kwargs)
        Optimizer.__init__(self, False, name)
        self.beta_1, self.beta_2, self.epsilon = float(beta_1), float(beta_2), _eps(epsilon)

    def _create_slots(self, var_list: List[Any]) -> None:
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)


class Adamax(_AdamFamily):
    """Adam with the infinity norm: ``u = max(beta_2 u, |g|)``,
    ``var -= lr / (1 - beta_1^t) * m / (u + epsilon)``."""

    def _apply_dense(self, grad: Tensor, var: Any) -> Any:
        m, u = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_t = S.assign(m, M.add(M.multiply(self.beta_1, m.value()),
                                M.multiply(1.0 - self.beta_1, grad)))
        u_t = S.assign(u, M.maximum(M.multiply(self.beta_2, u.value()), M.abs(grad)))
        lr = M.divide(self._lr_t, M.subtract(1.0, M.pow(self.beta_1, self._t)))
        step = M.divide(M.multiply(lr, m_t), M.add(u_t, self.epsilon))
        return S.assign_sub(var, step)


class Nadam(_AdamFamily):
    """Adam with Nesterov momentum and Keras's momentum schedule
    ``mu_t = beta_1 (1 - 0.5 * 0.96^(0.004 t))``."""

    def _mu(self, t: Any) -> Tensor:
        return M.multiply(self.beta_1, M.subtract(1.0, M.multiply(
            0.5, M.pow(0.96, M.multiply(0.004, t)))))

    def _prepare(self) -> None:
        super()._prepare()
        t = self._t
        self._mu_t, self._mu_next = self._mu(t), self._mu(M.add(t, 1.0))
        # The product of mu_1 .. mu_t: Keras keeps it in a variable; it is a function
        # of t alone, computed here.
        steps = M.add(A.cast(A.range(A.cast(t, _dtypes.int32)), _dtypes.float32), 1.0)
        self._sched = M.reduce_prod(self._mu(steps))
        self._sched_next = M.multiply(self._sched, self._mu_next)

    def _apply_dense(self, grad: Tensor, var: Any) -> Any:
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        g_prime = M.divide(grad, M.subtract(1.0, self._sched))
        m_t = S.assign(m, M.add(M.multiply(self.beta_1, m.value()),
                                M.multiply(1.0 - self.beta_1, grad)))
        m_prime = M.divide(m_t, M.subtract(1.0, self._sched_next))
        v_t = S.assign(v, M.add(M.multiply(self.beta_2, v.value()),
                                M.multiply(1.0 - self.beta_2, M.square(grad))))
        v_prime = M.divide(v_t, M.subtract(1.0, M.pow(self.beta_2, self._t)))
        m_bar = M.add(M.multiply(M.subtract(1.0, self._mu_t), g_prime),
                      M.multiply(self._mu_next, m_prime))
        step = M.divide(M.multiply(self._lr_t, m_bar), M.add(M.sqrt(v_prime), self.epsilon))
        return CF.group(S.assign_sub(var, step))


__all__ = ["Adadelta", "Ftrl", "Adamax", "Nadam"]
