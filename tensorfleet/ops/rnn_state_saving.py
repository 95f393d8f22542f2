"""``tf.nn.static_state_saving_rnn``: ``static_rnn`` whose initial state comes from a
state saver and whose final state goes back to it, so a long sequence can be fed in
segments (the saver is any object with ``state(name)`` and ``save_state(name,
value)``, as ``SequenceQueueingStateSaver`` batches provide)."""

from __future__ import annotations

from typing import Any, List, Tuple

from tensorfleet.framework import nest
from tensorfleet.framework.graph import get_default_graph
from tensorfleet.ops import array_ops
from tensorfleet.ops.rnn import static_rnn


def static_state_saving_rnn(cell: Any, inputs: List[Any], state_saver: Any, state_name: Any,
                            sequence_length: Any = None,
                            scope: Any = None) -> Tuple[List[Any], Any]:
    """Runs ``cell`` over ``inputs`` starting from ``state_saver.state(state_name)``; the
    final state is saved with ``state_saver.save_state``, and the last output and the
    returned state are computed after the save, so fetching them saves the state.

    ``state_name`` is one name, or a structure of names matching ``cell.state_size``.

    Raises:
      ValueError: when ``state_name`` and ``cell.state_size`` do not have the same
        structure.
    """
    state_size = cell.state_size
    tuple_state = nest.is_nested(state_size)
    if tuple_state != nest.is_nested(state_name):
        raise ValueError(f"state_name should be the same type as cell.state_size: "
                         f"state_name={state_name!r}, cell.state_size={state_size!r}")
    names = nest.flatten(state_name)
    if tuple_state and len(names) != len(nest.flatten(state_size)):
        raise ValueError(f"state_name has {len(names)} names for the "
                         f"{len(nest.flatten(state_size))} parts of cell.state_size")
    initial = [state_saver.state(n) for n in names]
    initial_state = nest.pack_sequence_as(state_size, initial) if tuple_state else initial[0]
    outputs, state = static_rnn(cell, inputs, initial_state=initial_state,
                                sequence_length=sequence_length, scope=scope)
    flat_state = nest.flatten(state)
    saves = [state_saver.save_state(n, s) for n, s in zip(names, flat_state)]
    with get_default_graph().control_dependencies(saves):
        last = outputs[-1]
        outputs = list(outputs)
        outputs[-1] = nest.pack_sequence_as(
            last, [array_ops.identity(o) for o in nest.flatten(last)])
        after = [array_ops.identity(s) for s in flat_state]
    state = nest.pack_sequence_as(state, after) if tuple_state else after[0]
    return outputs, state


__all__ = ["static_state_saving_rnn"]
