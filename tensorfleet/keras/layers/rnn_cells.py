"""Keras recurrent-cell building blocks: ``AbstractRNNCell`` (the base of a cell written
by hand) and ``StackedRNNCells`` (cells applied one after another within each step; what
``RNN`` makes of a list of cells)."""

from __future__ import annotations

from typing import Any, List, Sequence, Tuple

from tensorfleet.framework.graph import Tensor, get_default_graph
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.keras.layers.base import Layer, WrappingLayer, to_list
from tensorfleet.ops import array_ops as A


class AbstractRNNCell(Layer):
    """The base of a hand-written cell: subclasses give ``state_size``, ``output_size``
    and ``call(inputs, states) -> (output, new_states)``; ``get_initial_state`` gives
    zero states."""

    @property
    def state_size(self) -> Any:
        """The size(s) of the state; a subclass defines it."""
        raise TypeError(f"{type(self).__name__} must define state_size")

    @property
    def output_size(self) -> Any:
        """The size of one step's output; a subclass defines it."""
        raise TypeError(f"{type(self).__name__} must define output_size")

    def get_initial_state(self, inputs: Any = None, batch_size: Any = None,
                          dtype: Any = None) -> List[Tensor]:
        """Zero states [batch, size] (batch from ``inputs`` or ``batch_size``)."""
        if batch_size is None:
            if inputs is None:
                raise ValueError("get_initial_state: give inputs or batch_size")
            batch_size = A.shape(inputs)[0]
            dtype = dtype or inputs.dtype
        return [A.zeros(A.stack([batch_size, int(s)]), dtype=dtype or "float32")
                for s in to_list(self.state_size)]


class StackedRNNCells(WrappingLayer):
    """Cells run in sequence within each time step: cell ``i`` reads the output of cell
    ``i - 1``; the states are those of all cells, in order."""

    def __init__(self, cells: Sequence[Any], **kwargs: Any):
        cells = list(cells)
        if not cells:
            raise ValueError("StackedRNNCells needs at least one cell")
        for c in cells:
            if not hasattr(c, "call") or not hasattr(c, "state_size"):
                raise ValueError(f"All cells must have a `call` method and a `state_size`, "
                                 f"got {c!r}")
        super().__init__(**kwargs)
        self.cells = cells

    def _wrapped(self) -> List[Any]:
        return list(self.cells)

    @property
    def state_size(self) -> Tuple[int, ...]:
        """Every cell's state sizes, in order."""
        return tuple(s for c in self.cells for s in to_list(c.state_size))

    @property
    def output_size(self) -> int:
        """The last cell's output size."""
        return self.cells[-1].output_size

    @property
    def units(self) -> int:
        """The last cell's number of units."""
        return self.cells[-1].units

    @property
    def losses(self) -> List[Any]:  # type: ignore[override]
        """The cells' regularization losses."""
        return [l for c in self.cells for l in c.losses] + list(self._keras_losses)

    def build(self, input_shape: Any) -> None:
        """Builds each cell (under its own name) on the previous cell's output size."""
        shape = TensorShape(input_shape)
        g = get_default_graph()
        for c in self.cells:
            if not c.built:
                with g.name_scope(c.name):
                    c.build(shape)
                c.built = True
            shape = shape[:1].concatenate([int(c.output_size)])
        self.built = True

    def call(self, inputs: Tensor, states: Any) -> Tuple[Tensor, List[Tensor]]:  # type: ignore[override]
        """One step through every cell: ``(last output, all new states)``."""
        states = list(states)
        new_states: List[Tensor] = []
        x = inputs
        for c in self.cells:
            n = len(to_list(c.state_size))
            mine, states = states[:n], states[n:]
            x, out_states = c.call(x, mine if n > 1 else mine)
            new_states.extend(to_list(out_states))
        return x, new_states


__all__ = ["AbstractRNNCell", "StackedRNNCells"]
