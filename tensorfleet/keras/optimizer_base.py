"""The Keras part every Keras optimizer shares: the learning rate in a variable (or a
schedule of the iteration count), ``decay``, the ``iterations`` counter and gradient
clipping by ``clipnorm``/``clipvalue``."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, get_default_graph
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.keras import backend as K
from tensorfleet.keras.learning_rate_schedules import LearningRateSchedule
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.math_ops_reduce import clip_by_norm
from tensorfleet.ops.variables import Variable
from tensorfleet.training.optimizer import Optimizer


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
        self._schedule = learning_rate if isinstance(learning_rate, LearningRateSchedule) \
            else None
        if self._schedule is None:
            self._initial_lr = float(learning_rate)
        else:
            self._initial_lr = 0.0
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
        """The learning-rate variable of the default graph (with a schedule: the
        schedule's rate at the current iteration, a tensor)."""
        if self._schedule is not None:
            return self._schedule(convert_to_tensor(self.iterations))
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
        if self._schedule is not None:
            lr = convert_to_tensor(self._schedule(self.iterations.read_value()))
        else:
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
        lr: Any = self._initial_lr if self._schedule is None else \
            {"class_name": type(self._schedule).__name__, "config": self._schedule.get_config()}
        cfg: Dict[str, Any] = {"name": self._name, "learning_rate": lr,
                               "decay": self._initial_decay}
        if self._clipnorm is not None:
            cfg["clipnorm"] = self._clipnorm
        if self._clipvalue is not None:
            cfg["clipvalue"] = self._clipvalue
        return cfg


__all__ = ["_KerasOptimizer"]
