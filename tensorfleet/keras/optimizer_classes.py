"""Keras's SGD, Adam, RMSprop and Adagrad: each a ``tf.train`` optimizer (so ``minimize``
and the fused update ops are shared) with Keras's defaults and the Keras extras of
``_KerasOptimizer`` (learning-rate variable, decay, schedules, clipping)."""

from __future__ import annotations

from typing import Any, List

from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.keras import backend as K
from tensorfleet.keras.optimizer_base import _KerasOptimizer
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import state_ops as S
from tensorfleet.training import training_ops as _ops
from tensorfleet.training.optimizers import (AdagradOptimizer, AdamOptimizer,
                                             MomentumOptimizer, RMSPropOptimizer)


class SGD(_KerasOptimizer, MomentumOptimizer):
    """Gradient descent, with optional (Nesterov) momentum; ``learning_rate=0.01``."""

    def __init__(self, learning_rate: float = 0.01, momentum: float = 0.0,
                 nesterov: bool = False, name: str = "SGD", decay: float = 0.0,
                 **kwargs: Any):
        self._name = name
        self._keras_setup(learning_rate, decay, kwargs)
        if not 0.0 <= float(momentum) <= 1.0:
            raise ValueError(f"`momentum` must be between [0, 1], got {momentum}")
        MomentumOptimizer.__init__(self, self._lr_tensor, float(momentum), name=name,
                                   use_nesterov=nesterov)
        self.nesterov = bool(nesterov)

    def _create_slots(self, var_list: List[Any]) -> None:
        if self._momentum:
            MomentumOptimizer._create_slots(self, var_list)

    def _apply_dense(self, grad: Tensor, var: Any) -> Tensor:
        if self._momentum:
            return MomentumOptimizer._apply_dense(self, grad, var)
        return _ops.apply_gradient_descent(var, self._get_hyper("learning_rate", var), grad)

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Tensor:
        if self._momentum:
            return MomentumOptimizer._apply_sparse(self, grad, var)
        return _ops.sparse_apply_gradient_descent(var, self._get_hyper("learning_rate", var),
                                                  grad.values, grad.indices)


class Adam(_KerasOptimizer, AdamOptimizer):
    """Adam with Keras's defaults (``learning_rate=0.001``, ``epsilon=1e-7``)."""

    def __init__(self, learning_rate: float = 0.001, beta_1: float = 0.9,
                 beta_2: float = 0.999, epsilon: float = 1e-7, amsgrad: bool = False,
                 name: str = "Adam", decay: float = 0.0, **kwargs: Any):
        self._name = name
        self._keras_setup(learning_rate, decay, kwargs)
        if amsgrad:
            raise ValueError("Adam: amsgrad=True is not supported")
        AdamOptimizer.__init__(self, self._lr_tensor, beta_1, beta_2,
                               epsilon if epsilon is not None else K.epsilon(), name=name)


class RMSprop(_KerasOptimizer, RMSPropOptimizer):
    """RMSprop with Keras's defaults; the mean square starts at zero. Without
    momentum the step is ``lr * g / (sqrt(rms) + epsilon)``, as in Keras; with
    momentum it is the fused ``tf.train`` update (``sqrt(rms + epsilon)``)."""

    def __init__(self, learning_rate: float = 0.001, rho: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-7, centered: bool = False, name: str = "RMSprop",
                 decay: float = 0.0, **kwargs: Any):
        self._name = name
        self._keras_setup(learning_rate, decay, kwargs)
        RMSPropOptimizer.__init__(self, self._lr_tensor, decay=rho, momentum=momentum,
                                  epsilon=epsilon if epsilon is not None else K.epsilon(),
                                  centered=centered, name=name)

    def _create_slots(self, var_list: List[Any]) -> None:
        for v in var_list:
            self._zeros_slot(v, "rms", self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _apply_dense(self, grad: Tensor, var: Any) -> Any:
        if self._momentum:
            return RMSPropOptimizer._apply_dense(self, grad, var)
        # Without momentum Keras adds epsilon outside the square root.
        rho = self._get_hyper("decay", var)
        rms = self.get_slot(var, "rms")
        rms_t = S.assign(rms, M.add(M.multiply(rho, rms.value()),
                                    M.multiply(M.subtract(1.0, rho), M.square(grad))))
        denom = rms_t
        if self._centered:
            mg = self.get_slot(var, "mg")
            mg_t = S.assign(mg, M.add(M.multiply(rho, mg.value()),
                                      M.multiply(M.subtract(1.0, rho), grad)))
            denom = M.subtract(rms_t, M.square(mg_t))
        step = M.divide(M.multiply(self._get_hyper("learning_rate", var), grad),
                        M.add(M.sqrt(denom), self._get_hyper("epsilon", var)))
        return S.assign_sub(var, step)

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        if self._momentum:
            return RMSPropOptimizer._apply_sparse(self, grad, var)
        return self._apply_dense(convert_to_tensor(grad), var)


class Adagrad(_KerasOptimizer, AdagradOptimizer):
    """Adagrad as Keras defines it: ``var -= lr * g / (sqrt(accum) + epsilon)``."""

    def __init__(self, learning_rate: float = 0.001, initial_accumulator_value: float = 0.1,
                 epsilon: float = 1e-7, name: str = "Adagrad", decay: float = 0.0,
                 **kwargs: Any):
        self._name = name
        self._keras_setup(learning_rate, decay, kwargs)
        AdagradOptimizer.__init__(self, self._lr_tensor, initial_accumulator_value,
                                  name=name)
        self.epsilon = float(epsilon if epsilon is not None else K.epsilon())

    def _apply_dense(self, grad: Tensor, var: Any) -> Any:
        acc = self.get_slot(var, "accumulator")
        acc_t = S.assign_add(acc, M.square(grad))
        step = M.divide(M.multiply(self._get_hyper("learning_rate", var), grad),
                        M.add(M.sqrt(acc_t), self.epsilon))
        return S.assign_sub(var, step)

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        # Rows of an embedding: the dense form of the same update (unread rows get a zero
        # gradient, which leaves them and their accumulator unchanged).
        return self._apply_dense(convert_to_tensor(grad), var)


__all__ = ["SGD", "Adam", "RMSprop", "Adagrad"]
