"""``tf.keras.optimizers``: SGD, Adam, RMSprop and Adagrad with Keras's arguments.

Each is a ``tf.train`` optimizer (so ``minimize`` and the fused update ops are
shared) with Keras's defaults and extras: the learning rate lives in a
variable (``optimizer.lr``, changed with ``backend.set_value``), ``decay``
shrinks it as ``lr / (1 + decay * iterations)``, and ``clipnorm``/``clipvalue``
clip each gradient. ``get`` accepts these names (``'adam'``), Keras optimizers
and any ``tf.train`` optimizer.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, get_default_graph
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.keras import backend as K
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import state_ops as S
from tensorfleet.ops.math_ops_reduce import clip_by_norm
from tensorfleet.ops.variables import Variable
from tensorfleet.training import training_ops as _ops
from tensorfleet.training.optimizer import Optimizer
from tensorfleet.training.optimizers import (AdagradOptimizer, AdamOptimizer,
                                             MomentumOptimizer, RMSPropOptimizer)


class _KerasOptimizer:
    """Keras's learning-rate variable, decay, iteration counter and gradient clipping."""

    def _keras_setup(self, learning_rate: float, decay: float,
                     kwargs: Dict[str, Any]) -> None:
        if "lr" in kwargs:
            learning_rate = kwargs.pop("lr")
        self._clipnorm = kwargs.pop("clipnorm", None)
        self._clipvalue = kwargs.pop("clipvalue", None)
        if kwargs:
            raise TypeError(f"{type(self).__name__}: unexpected arguments {sorted(kwargs)}")
        if float(decay) < 0:
            raise ValueError(f"decay cannot be less than 0: {decay}")
        self._initial_lr = float(learning_rate)
        self._initial_decay = float(decay)
        self._vars: Dict[Tuple[int, str], Any] = {}
        self._scopes: Dict[int, str] = {}

    def _var(self, name: str, value: Any, dtype: Any) -> Any:
        g = get_default_graph()
        key = (id(g), name)
        v = self._vars.get(key)
        if v is None:
            # Every variable of the optimizer goes in one scope per graph, opened by
            # the first and re-entered by the others.
            scope = self._scopes.get(id(g))
            with g.control_dependencies(None), g.name_scope(scope or self._name) as sc:
                self._scopes[id(g)] = sc
                v = Variable(value, name=name, trainable=False, dtype=dtype)
            K.track_variable(v)
            self._vars[key] = v
        return v

    @property
    def lr(self) -> Any:
        """The learning-rate variable of the default graph."""
        return self._var("learning_rate", self._initial_lr, _dtypes.float32)

    learning_rate = lr

    @property
    def decay(self) -> Any:
        """The decay variable of the default graph."""
        return self._var("decay", self._initial_decay, _dtypes.float32)

    @property
    def iterations(self) -> Any:
        """The number of updates applied so far (an int64 variable)."""
        return self._var("iter", 0, _dtypes.int64)

    def _lr_tensor(self) -> Tensor:
        lr = convert_to_tensor(self.lr)
        if not self._initial_decay:
            return lr
        it = A.cast(convert_to_tensor(self.iterations), _dtypes.float32)
        return M.divide(lr, M.add(1.0, M.multiply(convert_to_tensor(self.decay), it)))

    def variables(self) -> List[Any]:
        """Every variable of this optimizer in the default graph (slots included)."""
        gid = id(get_default_graph())
        own = [v for (g, _), v in self._vars.items() if g == gid]
        return own + Optimizer.variables(self)  # type: ignore[arg-type]

    def compute_gradients(self, loss: Tensor, var_list: Optional[Sequence[Any]] = None,
                          **kwargs: Any) -> List[Tuple[Any, Any]]:
        """The base class's gradients, clipped by ``clipnorm``/``clipvalue`` if set."""
        pairs = Optimizer.compute_gradients(self, loss, var_list=var_list,  # type: ignore[arg-type]
                                            **kwargs)
        if self._clipnorm is None and self._clipvalue is None:
            return pairs
        out = []
        for g, v in pairs:
            if g is not None:
                if isinstance(g, IndexedSlices):
                    g = convert_to_tensor(g)
                if self._clipnorm is not None:
                    g = clip_by_norm(g, self._clipnorm)
                if self._clipvalue is not None:
                    g = M.clip_by_value(g, -self._clipvalue, self._clipvalue)
            out.append((g, v))
        return out

    def get_config(self) -> Dict[str, Any]:
        """The constructor arguments that are common to every Keras optimizer."""
        cfg: Dict[str, Any] = {"name": self._name, "learning_rate": self._initial_lr,
                               "decay": self._initial_decay}
        if self._clipnorm is not None:
            cfg["clipnorm"] = self._clipnorm
        if self._clipvalue is not None:
            cfg["clipvalue"] = self._clipvalue
        return cfg


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


_BY_NAME = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop, "adagrad": Adagrad}


def get(identifier: Any) -> Any:
    """An optimizer from a name (``'adam'``), a Keras optimizer or a ``tf.train`` one.

    Raises:
      ValueError: an unknown name or object.
    """
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier.lower())
        if cls is None:
            raise ValueError(f"Unknown optimizer: {identifier!r}; known: {sorted(_BY_NAME)}")
        return cls()
    raise ValueError(f"Could not interpret optimizer identifier: {identifier!r}")


__all__ = ["Optimizer", "SGD", "Adam", "RMSprop", "Adagrad", "get"]
