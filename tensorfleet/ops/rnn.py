"""Recurrent networks over a sequence: ``static_rnn``, ``dynamic_rnn`` and the bidirectional forms.

``dynamic_rnn`` unrolls the cell over time when the number of time steps is
known while the graph is built: the graph then holds one cell step per time
step, exactly as ``static_rnn`` builds it. The results equal those of
TensorFlow's ``while_loop`` form, and this executor runs the straight-line
graph faster than a loop (no per-iteration sub-graph dispatch, and the fused
LSTM step ops line up back to back). When the time dimension is unknown,
``dynamic_rnn`` builds a ``tf.while_loop`` over a ``TensorArray`` if those are
available, and otherwise raises a ValueError asking for a static time
dimension.

``sequence_length`` works as in TensorFlow: past a sequence's length the
outputs are zeros and the state stays the state of its last valid step, so
the final state is the state at each sequence's own end.

**Whole-sequence LSTM layers.** When every layer of the cell is a plain LSTM
(a ``BasicLSTMCell``, or an ``LSTMCell`` or ``contrib.rnn.LSTMBlockCell`` without
peepholes, clipping or projection, alone or stacked in a ``MultiRNNCell``) and no ``sequence_length``
is given, both ``static_rnn`` and ``dynamic_rnn`` run each layer over the whole
sequence as one ``FusedLSTMSequence`` op instead of one ``FusedLSTMCell`` op
per time step: one matmul projects the inputs of all steps, and the kernel's
gradient takes two matmuls instead of one per step. The variables are made
through the cells' own scopes, so their names are the ones the step-by-step
form gives (``rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel``) and a cell
used before or after keeps sharing them; the numbers are the step-by-step
form's up to rounding. Other cells, wrappers, nested inputs and
``sequence_length`` take the step-by-step form.
"""

from __future__ import annotations

import logging
from typing import Any, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import rnn_ops as R
from tensorfleet.ops.rnn_cell_impl import (BasicLSTMCell, LSTMCell, LSTMStateTuple,
                                           MultiRNNCell, _split_state, flatten, is_sequence,
                                           map_structure, pack_sequence_as)
from tensorfleet.ops.variable_scope import variable_scope

try:  # The loop form of dynamic_rnn needs tf.while_loop and tf.TensorArray.
    from tensorfleet.ops import rnn_loop as _loop
except ImportError:  # a build without the functional control-flow ops
    _loop = None

logger = logging.getLogger(__name__)


def _check_cell(cell: Any, what: str = "cell") -> None:
    for attr in ("output_size", "state_size", "zero_state"):
        if not hasattr(cell, attr):
            raise TypeError(f"{what} must be an instance of RNNCell (it has no {attr}), "
                            f"saw: {type(cell).__name__}")
    if not callable(cell):
        raise TypeError(f"{what} must be callable, saw: {type(cell).__name__}")


def _seq_length(sequence_length: Any) -> Optional[Tensor]:
    if sequence_length is None:
        return None
    sl = convert_to_tensor(sequence_length)
    if not sl.dtype.is_integer:
        raise TypeError(f"sequence_length must be an integer vector, got {sl.dtype.name}")
    if sl.shape.ndims is not None and sl.shape.ndims != 1:
        raise ValueError(f"sequence_length must be a vector of length batch_size, but saw "
                         f"shape: {sl.shape}")
    return A.cast(sl, _dtypes.int32, name="sequence_length") \
        if sl.dtype is not _dtypes.int32 else A.identity(sl, name="sequence_length")


def _initial_state(cell: Any, initial_state: Any, batch_size: Any, dtype: Any) -> Any:
    if initial_state is not None:
        return initial_state
    if dtype is None:
        raise ValueError("If there is no initial_state, you must give a dtype.")
    return cell.zero_state(batch_size, dtype)


def _batch_size(x: Tensor, axis: int) -> Any:
    d = x.shape[axis] if x.shape.ndims is not None else None
    return d if d is not None else A.shape(x)[axis]


def _run_steps(cell: Any, steps: List[Any], state: Any, seq_len: Optional[Tensor],
               varscope: Any) -> Tuple[List[Any], Any]:
    """Calls ``cell`` once per step, masking finished sequences as TensorFlow does."""
    masks: List[Any] = []
    if seq_len is not None:
        masks = A.unstack(R.sequence_mask(seq_len, len(steps)), num=len(steps), axis=1)
    outputs: List[Any] = []
    zero_out: Any = None
    for t, x_t in enumerate(steps):
        if t > 0:
            # Cells that call get_variable directly (not through RNNCell's scope)
            # share their variables across steps this way, as in TensorFlow.
            varscope.reuse_variables()
        out, new_state = cell(x_t, state)
        if seq_len is not None:
            valid = masks[t]
            if zero_out is None:
                zero_out = map_structure(lambda o: A.zeros_like(o), out)
            out = map_structure(lambda o, z: A.where(valid, o, z), out, zero_out)
            new_state = map_structure(lambda n, s: A.where(valid, n, s), new_state, state)
        outputs.append(out)
        state = new_state
    return outputs, state


_LSTM_TYPES = (BasicLSTMCell, LSTMCell)


def _plain_lstm(cell: Any) -> bool:
    # A subclass may override call() (or how it makes its weights or is called) with
    # different math; one that keeps all three (contrib.rnn.LSTMBlockCell) is the LSTM.
    base = next((t for t in _LSTM_TYPES if isinstance(cell, t)), None)
    if base is None or not getattr(cell, "_fusable", False):
        return False
    cls = type(cell)
    return all(getattr(cls, m) is getattr(base, m) for m in ("call", "_weights", "__call__"))


def _lstm_layers(cell: Any) -> Optional[List[Any]]:
    """The LSTM layers of ``cell`` when each can run as one ``FusedLSTMSequence`` op,
    else None."""
    if type(cell) is MultiRNNCell:
        layers = list(cell._cells)
        if cell._state_is_tuple and layers and all(_plain_lstm(c) for c in layers):
            return layers
        return None
    return [cell] if _plain_lstm(cell) else None


def _depth(x: Tensor) -> Optional[int]:
    if not x.dtype.is_floating or x.shape.ndims is None:
        return None
    d = x.shape[-1]
    return None if d is None else int(d)


def _lstm_layer(cell: Any, x: Tensor, state: Any) -> Tuple[Tensor, Any]:
    """One layer over the time-major ``x``; runs inside the cell's variable scope."""
    n = cell._num_units
    c, h = _split_state(state, [n, n], cell._state_is_tuple, type(cell).__name__)
    kernel, bias = cell._weights(x, int(x.shape[-1]))
    h_seq, c_last, h_last = R.fused_lstm_sequence(x, c, h, kernel, bias, cell._forget_bias)
    new_state = LSTMStateTuple(c_last, h_last) if cell._state_is_tuple \
        else A.concat([c_last, h_last], 1)
    return h_seq, new_state


def _stacked_layers(cell: Any, x: Tensor, state: Any) -> Tuple[Tensor, Any]:
    layers = cell._cells
    if not is_sequence(state) or len(state) != len(layers):
        raise ValueError(f"Expected state to be a tuple of length {len(layers)}, but "
                         f"received: {state!r}")
    new_states = []
    for i, layer in enumerate(layers):
        with variable_scope(f"cell_{i}"):
            x, st = layer._in_scope(_lstm_layer, layer, x, state[i])
        new_states.append(st)
    return x, tuple(new_states)


def _run(cell: Any, x_tm: Tensor, state: Any) -> Tuple[Tensor, Any]:
    if type(cell) is MultiRNNCell:
        return cell._in_scope(_stacked_layers, cell, x_tm, state)
    return cell._in_scope(_lstm_layer, cell, x_tm, state)


def _fused_dynamic_rnn(cell: Any, inputs: Any, state: Any,
                       time_major: bool) -> Optional[Tuple[Tensor, Any]]:
    """``dynamic_rnn``'s ``(outputs, final_state)`` by whole-sequence layers, or None
    when ``cell`` or ``inputs`` need the step-by-step form."""
    if is_sequence(inputs) or _lstm_layers(cell) is None:
        return None
    x = convert_to_tensor(inputs)
    if x.shape.ndims != 3 or _depth(x) is None:
        return None
    x_tm = x if time_major else A.transpose(x, [1, 0, 2])
    out, final = _run(cell, x_tm, state)
    return (out if time_major else A.transpose(out, [1, 0, 2])), final


def _fused_static_rnn(cell: Any, inputs: Sequence[Any],
                      state: Any) -> Optional[Tuple[List[Tensor], Any]]:
    """``static_rnn``'s ``(outputs, final_state)`` by whole-sequence layers, or None
    when ``cell`` or ``inputs`` need the step-by-step form."""
    if _lstm_layers(cell) is None or any(is_sequence(x) for x in inputs):
        return None
    steps = [convert_to_tensor(x) for x in inputs]
    depths = {_depth(x) for x in steps}
    if (len(depths) != 1 or None in depths or any(x.shape.ndims != 2 for x in steps)
            or len({x.dtype for x in steps}) != 1):
        return None
    out, final = _run(cell, A.stack(steps, axis=0), state)
    return A.unstack(out, num=len(steps), axis=0), final


def static_rnn(cell: Any, inputs: List[Any], initial_state: Any = None, dtype: Any = None,
               sequence_length: Any = None, scope: Any = None) -> Tuple[List[Any], Any]:
    """Runs ``cell`` over the list ``inputs`` (one [batch, depth] tensor per step).

    Returns ``(outputs, state)``: the list of per-step outputs and the final
    state. With ``sequence_length`` ([batch] ints) the outputs past a
    sequence's end are zeros and the state is that of its last valid step.
    Variables live in ``scope`` (default ``"rnn"``).
    """
    _check_cell(cell)
    if not is_sequence(inputs):
        raise TypeError("inputs must be a sequence")
    if not inputs:
        raise ValueError("inputs must not be empty")
    with variable_scope(scope or "rnn") as varscope:
        first = convert_to_tensor(flatten(inputs[0])[0])
        if first.shape.ndims is not None and first.shape.ndims < 2:
            raise ValueError(f"Expected inputs of rank >= 2 ([batch, depth]), got shape "
                             f"{first.shape}")
        batch = _batch_size(first, 0)
        state = _initial_state(cell, initial_state, batch, dtype)
        seq_len = _seq_length(sequence_length)
        fused = _fused_static_rnn(cell, inputs, state) if seq_len is None else None
        if fused is not None:
            return fused
        outputs, state = _run_steps(cell, list(inputs), state, seq_len, varscope)
    return outputs, state


def dynamic_rnn(cell: Any, inputs: Any, sequence_length: Any = None, initial_state: Any = None,
                dtype: Any = None, parallel_iterations: Optional[int] = None,
                swap_memory: bool = False, time_major: bool = False,
                scope: Any = None) -> Tuple[Any, Any]:
    """Runs ``cell`` over the time axis of ``inputs``; returns ``(outputs, state)``.

    ``inputs`` is [batch, time, ...] (or [time, batch, ...] with ``time_major``),
    or a nested structure of such tensors. ``outputs`` has the same layout with
    the cell's output depth; ``state`` is the final state, per sequence the
    state at its last valid step when ``sequence_length`` is given (outputs
    past that step are zeros). Variables live in ``scope`` (default ``"rnn"``).

    When the time dimension is known while the graph is built, the loop is
    unrolled into one cell step per time step (the same results as a
    ``while_loop``, and faster on this executor); ``parallel_iterations`` and
    ``swap_memory`` are scheduling hints of the loop form and change nothing
    in the unrolled one. An unknown time dimension needs the loop form.

    Raises:
      ValueError: no ``initial_state`` and no ``dtype``; inputs of rank < 3;
        a time dimension unknown at graph-build time when ``tf.while_loop`` is
        not available.
      TypeError: ``cell`` is not an RNN cell.
    """
    _check_cell(cell)
    flat = [convert_to_tensor(x) for x in flatten(inputs)]
    if not flat:
        raise ValueError("dynamic_rnn: inputs must not be empty")
    time_axis, batch_axis = (0, 1) if time_major else (1, 0)
    for x in flat:
        if x.shape.ndims is not None and x.shape.ndims < 3:
            raise ValueError(f"dynamic_rnn: inputs must be at least rank 3 "
                             f"([{'time, batch' if time_major else 'batch, time'}, depth]), "
                             f"got shape {x.shape} ({x.name})")
    steps = None
    for x in flat:
        if x.shape.ndims is not None and x.shape[time_axis] is not None:
            steps = int(x.shape[time_axis])
    with variable_scope(scope or "rnn") as varscope:
        batch = _batch_size(flat[0], batch_axis)
        state = _initial_state(cell, initial_state, batch, dtype)
        seq_len = _seq_length(sequence_length)
        if steps is None:
            if _loop is None:
                raise ValueError(
                    "dynamic_rnn: the time dimension of the inputs must be known while "
                    f"building the graph (got shape {flat[0].shape}); give the input "
                    "placeholder a static number of time steps")
            return _loop.dynamic_rnn_loop(cell, inputs, flat, state, seq_len, time_major,
                                          parallel_iterations or 32, swap_memory)
        if steps == 0:
            raise ValueError("dynamic_rnn: the inputs have zero time steps")
        fused = _fused_dynamic_rnn(cell, inputs, state, time_major) \
            if seq_len is None else None
        if fused is not None:
            return fused
        per_input = [A.unstack(x, num=steps, axis=time_axis) for x in flat]
        step_inputs = [pack_sequence_as(inputs, [lst[t] for lst in per_input])
                       for t in range(steps)]
        outputs, state = _run_steps(cell, step_inputs, state, seq_len, varscope)
        flat_out = [flatten(o) for o in outputs]
        stacked = [A.stack([o[k] for o in flat_out], axis=time_axis)
                   for k in range(len(flat_out[0]))]
        return pack_sequence_as(outputs[0], stacked), state


def _reverse_list(x: Any, seq_len: Optional[Tensor], time_axis: int) -> Any:
    """Reverses each tensor of a nested structure along time, per sequence when lengths
    are given."""
    def rev(t: Any) -> Any:
        t = convert_to_tensor(t)
        lens = seq_len
        if lens is None:
            steps = t.shape[time_axis] if t.shape.ndims is not None else None
            if steps is not None:
                pieces = A.unstack(t, num=steps, axis=time_axis)
                return A.stack(pieces[::-1], axis=time_axis)
            # Unknown length: every row is reversed whole.
            full = A.shape(t)
            lens = A.fill(A.expand_dims(full[1 - time_axis], 0), full[time_axis])
        return R.reverse_sequence(t, lens, seq_axis=time_axis, batch_axis=1 - time_axis)
    return map_structure(rev, x)


def bidirectional_dynamic_rnn(cell_fw: Any, cell_bw: Any, inputs: Any,
                              sequence_length: Any = None, initial_state_fw: Any = None,
                              initial_state_bw: Any = None, dtype: Any = None,
                              parallel_iterations: Optional[int] = None,
                              swap_memory: bool = False, time_major: bool = False,
                              scope: Any = None) -> Tuple[Tuple[Any, Any], Tuple[Any, Any]]:
    """A forward and a backward ``dynamic_rnn`` over the same inputs.

    Returns ``((output_fw, output_bw), (state_fw, state_bw))``; ``output_bw`` is
    re-reversed so both are aligned in time. With ``sequence_length`` the
    backward cell reads each sequence from its own last valid step. Variables
    live in ``<scope or "bidirectional_rnn">/fw`` and ``/bw``.
    """
    _check_cell(cell_fw, "cell_fw")
    _check_cell(cell_bw, "cell_bw")
    time_axis = 0 if time_major else 1
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            out_fw, st_fw = dynamic_rnn(cell_fw, inputs, sequence_length, initial_state_fw,
                                        dtype, parallel_iterations, swap_memory, time_major,
                                        scope=fw_scope)
        with variable_scope("bw") as bw_scope:
            seq_len = _seq_length(sequence_length)
            rev_in = _reverse_list(inputs, seq_len, time_axis)
            out_bw, st_bw = dynamic_rnn(cell_bw, rev_in, seq_len, initial_state_bw, dtype,
                                        parallel_iterations, swap_memory, time_major,
                                        scope=bw_scope)
    out_bw = _reverse_list(out_bw, seq_len, time_axis)
    return (out_fw, out_bw), (st_fw, st_bw)


def static_bidirectional_rnn(cell_fw: Any, cell_bw: Any, inputs: List[Any],
                             initial_state_fw: Any = None, initial_state_bw: Any = None,
                             dtype: Any = None, sequence_length: Any = None,
                             scope: Any = None) -> Tuple[List[Any], Any, Any]:
    """A forward and a backward ``static_rnn``; returns ``(outputs, state_fw, state_bw)``.

    Each output is ``concat([output_fw, output_bw], 1)`` for its time step.
    """
    _check_cell(cell_fw, "cell_fw")
    _check_cell(cell_bw, "cell_bw")
    if not is_sequence(inputs) or not inputs:
        raise TypeError("inputs must be a non-empty list of tensors")
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            out_fw, st_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype,
                                       sequence_length, scope=fw_scope)
        with variable_scope("bw") as bw_scope:
            seq_len = _seq_length(sequence_length)
            rev_in = _reverse_steps(inputs, seq_len)
            tmp, st_bw = static_rnn(cell_bw, rev_in, initial_state_bw, dtype, seq_len,
                                    scope=bw_scope)
    out_bw = _reverse_steps(tmp, seq_len)
    outputs = [map_structure(lambda f, b: A.concat([f, b], 1), f, b)
               for f, b in zip(out_fw, out_bw)]
    return outputs, st_fw, st_bw


def _reverse_steps(steps: List[Any], seq_len: Optional[Tensor]) -> List[Any]:
    if seq_len is None:
        return list(reversed(steps))
    flat = [flatten(s) for s in steps]
    out_flat = []
    for k in range(len(flat[0])):
        packed = A.stack([f[k] for f in flat], axis=0)
        rev = R.reverse_sequence(packed, seq_len, seq_axis=0, batch_axis=1)
        out_flat.append(A.unstack(rev, num=len(steps), axis=0))
    return [pack_sequence_as(steps[0], [col[t] for col in out_flat])
            for t in range(len(steps))]


def stack_bidirectional_dynamic_rnn(cells_fw: List[Any], cells_bw: List[Any], inputs: Any,
                                    initial_states_fw: Optional[List[Any]] = None,
                                    initial_states_bw: Optional[List[Any]] = None,
                                    dtype: Any = None, sequence_length: Any = None,
                                    parallel_iterations: Optional[int] = None,
                                    time_major: bool = False, scope: Any = None
                                    ) -> Tuple[Any, Tuple[Any, ...], Tuple[Any, ...]]:
    """Bidirectional layers stacked: layer k reads the concatenated outputs of layer k - 1.

    Returns ``(outputs, states_fw, states_bw)``; layer k's variables live in
    ``<scope or "stack_bidirectional_rnn">/cell_k/bidirectional_rnn/{fw,bw}``.
    """
    if not cells_fw or not cells_bw:
        raise ValueError("cells_fw and cells_bw must be non-empty lists of cells")
    if len(cells_fw) != len(cells_bw):
        raise ValueError("Forward and Backward cells must have the same depth.")
    for what, states in (("initial_states_fw", initial_states_fw),
                         ("initial_states_bw", initial_states_bw)):
        if states is not None and len(states) != len(cells_fw):
            raise ValueError(f"{what} must be a list with one state per cell")
    states_fw, states_bw = [], []
    prev = inputs
    with variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (cf, cb) in enumerate(zip(cells_fw, cells_bw)):
            with variable_scope(f"cell_{i}"):
                (o_fw, o_bw), (s_fw, s_bw) = bidirectional_dynamic_rnn(
                    cf, cb, prev,
                    initial_state_fw=initial_states_fw[i] if initial_states_fw else None,
                    initial_state_bw=initial_states_bw[i] if initial_states_bw else None,
                    sequence_length=sequence_length, parallel_iterations=parallel_iterations,
                    dtype=dtype, time_major=time_major)
                prev = A.concat([o_fw, o_bw], 2)
            states_fw.append(s_fw)
            states_bw.append(s_bw)
    return prev, tuple(states_fw), tuple(states_bw)


__all__ = ["static_rnn", "dynamic_rnn", "bidirectional_dynamic_rnn", "static_bidirectional_rnn",
           "stack_bidirectional_dynamic_rnn"]
