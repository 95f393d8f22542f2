"""``tf.train.ExponentialMovingAverage``: shadow copies that trail variables.

``apply(var_list)`` makes one shadow variable ``<var>/ExponentialMovingAverage``
per variable, placed with (colocated on) that variable, so on a parameter
server the update ``shadow -= (1 - decay) * (shadow - var)`` runs where both
live and nothing crosses the network. Programs run it after the training step:
``with tf.control_dependencies([train_op]): train_op = ema.apply(vars)``, and
evaluate or export with ``Saver(ema.variables_to_restore())``.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, control_dependencies, \
    convert_to_tensor, get_default_graph, name_scope
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import state_ops as S
from tensorfleet.ops.control_flow_ops import group
from tensorfleet.ops.variables import Variable, global_variables, moving_average_variables, \
    trainable_variables
from tensorfleet.training.optimizer import Optimizer
from tensorfleet.training.saver import Saver

logger = logging.getLogger(__name__)

MOVING_AVERAGE_VARIABLES = "moving_average_variables"

_FLOATS = (_dtypes.float16, _dtypes.float32, _dtypes.float64)


def _shadow(primary: Any, init: Callable[[], Any], name: str, dtype: _dtypes.DType) -> Variable:
    """A non-trainable global variable named ``name`` living on ``primary``'s device,
    initialized by the ops ``init()`` builds there."""
    g = primary.graph
    # Absolute names and no control dependencies: the shadow is created (and
    # initialized) on its own, wherever apply() is called from.
    with g.control_dependencies(None), g.name_scope(None), g.colocate_with(primary.op):
        return Variable(init, name=name, trainable=False, dtype=dtype)


def assign_moving_average(variable: Variable, value: Any, decay: Any,
                          zero_debias: bool = True, name: Optional[str] = None) -> Tensor:
    """``variable -= (1 - decay) * (variable - value)``, returning the new value.

    With ``zero_debias`` the average is kept unbiased towards its zero start: a
    biased accumulator and a step count live beside ``variable`` and ``variable``
    becomes ``biased / (1 - decay ** steps)``.
    """
    g = variable.graph
    with name_scope(name, "AssignMovingAvg"), g.colocate_with(variable.op):
        decay = A.cast(convert_to_tensor(decay), variable.dtype.base_dtype)
        # A fresh read, ordered after the caller's control dependencies (the training
        # step): the shared snapshot could be read before the step updates the variable.
        value = value.read_value() if isinstance(value, Variable) else convert_to_tensor(value)
        if not zero_debias:
            return S.assign_sub(variable, (variable - value) * (1.0 - decay))
        return _zero_debias_update(variable, value, decay)


def _zero_debias_update(shadow: Variable, value: Tensor, decay: Tensor) -> Tensor:
    base, shape, dt = shadow.op.name, shadow.shape.as_list(), shadow.dtype.base_dtype
    biased = _shadow(shadow, lambda: A.zeros(shape, dtype=dt), f"{base}/biased", dt)
    step = _shadow(shadow, lambda: A.zeros([], dtype=dt), f"{base}/local_step", dt)
    new_biased = S.assign_sub(biased, (biased - value) * (1.0 - decay))
    new_step = S.assign_add(step, 1.0)
    unbiased = new_biased / (1.0 - M.pow(decay, new_step))
    return S.assign(shadow, unbiased)


class ExponentialMovingAverage:
    """Keeps exponential moving averages of variables (or tensors) in shadow variables.

    Args:
      decay: the decay, e.g. 0.999.
      num_updates: optional step count; the decay used is then
        ``min(decay, (1 + num_updates) / (10 + num_updates))`` so early averages move fast.
      zero_debias: whether averages of tensors (not variables, whose shadows start
        at the variable's value) are debiased for their zero start.
      name: the shadow-name suffix and the name scope of the update ops.
    """

    def __init__(self, decay: Any, num_updates: Any = None, zero_debias: bool = False,
                 name: str = "ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = bool(zero_debias)
        self._name = name
        self._averages: Dict[Any, Variable] = {}

    @property
    def name(self) -> str:
        """The shadow-name suffix."""
        return self._name

    def _key(self, var: Any) -> Any:
        return var if isinstance(var, Variable) else convert_to_tensor(var)

    def apply(self, var_list: Optional[Sequence[Any]] = None) -> Operation:
        """Creates the shadows of ``var_list`` (default: the trainable variables) and
        returns the op updating them all.

        Raises:
          TypeError: for a variable that is not half, float or double.
          ValueError: for a variable already averaged by this object.
        """
        if var_list is None:
            var_list = trainable_variables()
        items: List[Tuple[Any, bool]] = []
        for var in var_list:
            key = self._key(var)
            if key.dtype.base_dtype not in _FLOATS:
                raise TypeError(f"The variables must be half, float, or double: {var.name}")
            if key in self._averages:
                raise ValueError(f"Moving average already computed for: {var.name}")
            if isinstance(var, Variable):
                # The shadow starts from the variable's initial value, read beside it (a
                # callable builds the ops on the variable's device). initialized_value()
                # would add a cond whose untaken branch reads the uninitialized variable,
                # which fails on a parameter server during the first initialization.
                shadow = _shadow(var, lambda v=var: A.identity(v.initial_value),
                                 self.average_name(var), var.dtype.base_dtype)
                get_default_graph().add_to_collection(MOVING_AVERAGE_VARIABLES, var)
                items.append((var, False))
            else:
                if not key.shape.is_fully_defined():
                    raise ValueError(f"ExponentialMovingAverage.apply: tensor {key.name} "
                                     f"needs a fully defined shape, got {key.shape}")
                # Zeros of the tensor's shape, not zeros_like: the initializer must not
                # evaluate the tensor (it may be a placeholder). A callable builds them
                # outside the caller's control dependencies.
                shape, dt = key.shape.as_list(), key.dtype.base_dtype
                shadow = _shadow(key, lambda: A.zeros(shape, dtype=dt),
                                 self.average_name(key), dt)
                items.append((key, self._zero_debias))
            self._averages[key] = shadow
        with name_scope(self._name) as scope:
            decay = convert_to_tensor(self._decay, dtype=_dtypes.float32, name="decay")
            if self._num_updates is not None:
                # A fresh read, so a step counter updated by the training step this
                # apply() depends on is seen after its update.
                steps = self._num_updates.read_value() \
                    if isinstance(self._num_updates, Variable) else self._num_updates
                n = A.cast(convert_to_tensor(steps), _dtypes.float32, name="num_updates")
                decay = M.minimum(decay, (1.0 + n) / (10.0 + n))
            updates = [assign_moving_average(self._averages[v], v, decay, zero_debias=zd)
                       for v, zd in items]
            return group(*updates, name=scope.rstrip("/").rsplit("/", 1)[-1])

    def average(self, var: Any) -> Optional[Variable]:
        """The shadow variable of ``var``, or None if it is not averaged."""
        try:
            return self._averages.get(self._key(var))
        except (TypeError, ValueError):
            return None

    def average_name(self, var: Any) -> str:
        """The name of ``var``'s shadow: ``<var op name>/<name>``, also its checkpoint key."""
        return f"{var.op.name}/{self._name}"

    def variables_to_restore(self, moving_avg_variables: Optional[Sequence[Any]] = None
                             ) -> Dict[str, Any]:
        """A ``Saver`` var_list loading each averaged variable from its shadow's
        checkpoint entry, and every other global variable from its own.

        ``moving_avg_variables`` defaults to the trainable variables plus
        ``MOVING_AVERAGE_VARIABLES``.
        """
        if moving_avg_variables is None:
            moving_avg_variables = list(trainable_variables()) + list(moving_average_variables())
        chosen: List[Any] = []
        for v in moving_avg_variables:
            if not any(v is c for c in chosen):
                chosen.append(v)
        name_map = {self.average_name(v): v for v in chosen}
        for v in global_variables():
            if not any(v is c for c in chosen) and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map


class MovingAverageOptimizer(Optimizer):
    """Wraps an optimizer so each training step also updates moving averages of the
    trained variables; ``swapping_saver()`` saves the averages under the variables'
    own names (for evaluation) and the variables under the shadows' names.

    Args:
      opt: the optimizer whose updates are averaged.
      average_decay: the ``ExponentialMovingAverage`` decay.
      num_updates: optional step count for the decay schedule.
      sequential_update: True runs the average after the variable update.
    """

    def __init__(self, opt: Optimizer, average_decay: float = 0.9999, num_updates: Any = None,
                 sequential_update: bool = True):
        super().__init__(use_locking=False, name="MovingAverage")
        self._optimizer = opt
        self._ema = ExponentialMovingAverage(average_decay, num_updates=num_updates)
        self._sequential = bool(sequential_update)
        self._variables: List[Any] = []

    def compute_gradients(self, *args: Any, **kwargs: Any) -> List[Tuple[Any, Any]]:
        """The wrapped optimizer's ``compute_gradients``."""
        return self._optimizer.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars: Sequence[Tuple[Any, Any]], global_step: Any = None,
                        name: Optional[str] = None) -> Operation:
        """Applies the gradients with the wrapped optimizer, then updates the averages."""
        pairs = list(grads_and_vars)
        train_op = self._optimizer.apply_gradients(pairs, global_step=global_step, name=name)
        var_list = [v for g, v in pairs if g is not None]
        self._variables.extend(var_list)
        if self._sequential:
            with control_dependencies([train_op]):
                ma_op = self._ema.apply(var_list)
        else:
            ma_op = self._ema.apply(var_list)
        return group(train_op, ma_op, name="train_with_avg")

    def swapping_saver(self, var_list: Optional[Sequence[Any]] = None,
                       name: str = "swapping_saver", **kwargs: Any) -> Saver:
        """A ``Saver`` writing (and reading) each averaged variable's shadow under the
        variable's name and the variable under the shadow's name.

        Raises:
          RuntimeError: before ``apply_gradients`` (or ``minimize``) was called.
        """
        if not self._variables:
            raise RuntimeError("Must call apply_gradients or minimize before creating the "
                               "swapping_saver")
        if var_list is None:
            var_list = global_variables()
        averaged = {id(v) for v in self._variables}
        name_map: Dict[str, Any] = {}
        for v in var_list:
            if id(v) in averaged:
                name_map[v.op.name] = self._ema.average(v)
                name_map[self._ema.average_name(v)] = v
            elif v.op.name not in name_map:
                name_map[v.op.name] = v
        return Saver(name_map, name=name, **kwargs)


__all__ = ["ExponentialMovingAverage", "MovingAverageOptimizer", "assign_moving_average"]
