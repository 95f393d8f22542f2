"""The RNN cell wrappers of ``tf.nn.rnn_cell``: dropout, residual and device.

A wrapper owns no variable scope: it calls its cell with the caller's scope,
so ``MultiRNNCell([DropoutWrapper(LSTMCell(n))])`` names its variables
``.../cell_0/lstm_cell/kernel`` exactly as the bare cell would.
"""

from __future__ import annotations

import numbers
from typing import Any, Callable, Optional

from tensorfleet.framework.graph import Tensor, convert_to_tensor, device
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops.rnn_cell_impl import (LSTMStateTuple, RNNCell, assert_same_structure,
                                           is_sequence, map_structure)


class _Wrapper(RNNCell):
    """Base of the wrappers: sizes and zero state are the wrapped cell's."""

    def __init__(self, cell: RNNCell):
        super().__init__()
        if not isinstance(cell, RNNCell):
            raise TypeError(f"The parameter cell is not a RNNCell: {cell!r}")
        self._cell = cell

    @property
    def wrapped_cell(self) -> RNNCell:
        """The cell inside this wrapper."""
        return self._cell

    @property
    def state_size(self) -> Any:
        return self._cell.state_size

    @property
    def output_size(self) -> Any:
        return self._cell.output_size

    @property
    def variables(self) -> list:
        return self._cell.variables

    @property
    def trainable_variables(self) -> list:
        return self._cell.trainable_variables

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        """The wrapped cell's zero state."""
        return self._cell.zero_state(batch_size, dtype)

    def call(self, inputs: Any, state: Any) -> Any:
        """Runs the wrapped cell (wrappers override ``__call__`` itself)."""
        return self._cell(inputs, state)


def _keep_prob(value: Any, what: str) -> Any:
    if isinstance(value, numbers.Real):
        if not 0.0 < float(value) <= 1.0:
            raise ValueError(f"Parameter {what} must be between 0 and 1: {value}")
        return float(value)
    return convert_to_tensor(value)


def _default_state_filter(substate: Any) -> Any:
    # The memory cell c of an LSTM is not dropped, only its output h.
    if isinstance(substate, LSTMStateTuple):
        return LSTMStateTuple(c=False, h=True)
    return True


class DropoutWrapper(_Wrapper):
    """Dropout on a cell's inputs, outputs and state, each with its own keep probability.

    A keep probability may be a float in (0, 1] or a scalar tensor (e.g. a
    placeholder fed 1.0 for evaluation); 1.0 as a float adds no op. The state
    is filtered by ``dropout_state_filter_visitor(substate)``, which returns a
    bool or a structure of bools: by default every state except the ``c`` of
    an ``LSTMStateTuple`` is dropped. ``seed`` makes the input, state and output
    masks reproducible (each derives its own op seed from it).
    """

    def __init__(self, cell: RNNCell, input_keep_prob: Any = 1.0, output_keep_prob: Any = 1.0,
                 state_keep_prob: Any = 1.0, variational_recurrent: bool = False,
                 input_size: Any = None, dtype: Any = None, seed: Optional[int] = None,
                 dropout_state_filter_visitor: Optional[Callable[[Any], Any]] = None):
        super().__init__(cell)
        if variational_recurrent:
            raise ValueError("DropoutWrapper: variational_recurrent=True is not supported; "
                             "masks are drawn afresh at every time step")
        if dropout_state_filter_visitor is not None and not callable(
                dropout_state_filter_visitor):
            raise TypeError("dropout_state_filter_visitor must be callable")
        self._input_kp = _keep_prob(input_keep_prob, "input_keep_prob")
        self._output_kp = _keep_prob(output_keep_prob, "output_keep_prob")
        self._state_kp = _keep_prob(state_keep_prob, "state_keep_prob")
        self._seed = seed
        self._visitor = dropout_state_filter_visitor or _default_state_filter

    def _seed_for(self, salt: int) -> Optional[int]:
        # Distinct, reproducible seeds for the input, state and output masks.
        return None if self._seed is None else (self._seed * 7919 + salt) % (2 ** 31 - 1)

    def _drop(self, x: Any, kp: Any, salt: int) -> Any:
        if isinstance(kp, float) and kp == 1.0:
            return x
        return map_structure(lambda t: N.dropout(t, keep_prob=kp, seed=self._seed_for(salt)),
                             x)

    def _drop_state(self, state: Any, kp: Any) -> Any:
        if isinstance(kp, float) and kp == 1.0:
            return state

        def visit(sub: Any, decision: Any) -> Any:
            if isinstance(decision, bool):
                if not decision:
                    return sub
                if not is_sequence(sub):
                    return N.dropout(sub, keep_prob=kp, seed=self._seed_for(2))
                return _rebuild(sub, [visit(s, self._visitor(s)) for s in sub])
            assert_same_structure_top(sub, decision)
            return _rebuild(sub, [visit(s, d) for s, d in zip(sub, decision)])

        return visit(state, self._visitor(state))

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> Any:
        """Dropout on the inputs, the wrapped cell's step, then dropout on its results."""
        inputs = self._drop(inputs, self._input_kp, 0)
        output, new_state = self._cell(inputs, state, scope=scope)
        new_state = self._drop_state(new_state, self._state_kp)
        output = self._drop(output, self._output_kp, 1)
        return output, new_state


def _rebuild(like: Any, items: list) -> Any:
    if hasattr(like, "_fields"):
        return type(like)(*items)
    return tuple(items) if isinstance(like, tuple) else list(items)


def assert_same_structure_top(sub: Any, decision: Any) -> None:
    """Checks a filter's structure of bools against the (sub)state it describes."""
    if not is_sequence(sub) or not is_sequence(decision) or len(sub) != len(decision):
        raise ValueError(f"dropout_state_filter_visitor returned {decision!r}, which does not "
                         f"match the structure of the state {sub!r}")


class ResidualWrapper(_Wrapper):
    """Adds the inputs to the cell's outputs: ``output = inputs + cell(inputs)``.

    ``residual_fn(inputs, outputs)`` replaces the addition when given.
    """

    def __init__(self, cell: RNNCell, residual_fn: Optional[Callable[[Any, Any], Any]] = None):
        super().__init__(cell)
        self._residual_fn = residual_fn

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> Any:
        """The wrapped step, its outputs combined with its inputs."""
        outputs, new_state = self._cell(inputs, state, scope=scope)

        def add(x: Any, y: Any) -> Tensor:
            x, y = convert_to_tensor(x), convert_to_tensor(y)
            if x.shape.is_fully_defined() and y.shape.is_fully_defined() and \
                    x.shape != y.shape:
                raise ValueError(f"ResidualWrapper: inputs of shape {x.shape} cannot be added "
                                 f"to outputs of shape {y.shape}")
            return M.add(x, y)

        if self._residual_fn is not None:
            return self._residual_fn(inputs, outputs), new_state
        assert_same_structure(inputs, outputs)
        return map_structure(add, inputs, outputs), new_state


class DeviceWrapper(_Wrapper):
    """Runs the wrapped cell (and builds its zero state) on ``device``."""

    def __init__(self, cell: RNNCell, device: str):  # noqa: A002 - the TF argument name
        super().__init__(cell)
        self._device = device

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        """The wrapped cell's zero state, placed on this wrapper's device."""
        with device(self._device):
            return self._cell.zero_state(batch_size, dtype)

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> Any:
        """The wrapped step, its ops placed on this wrapper's device."""
        with device(self._device):
            return self._cell(inputs, state, scope=scope)


__all__ = ["DropoutWrapper", "ResidualWrapper", "DeviceWrapper"]
