"""``tf.nn.raw_rnn``: an RNN whose inputs, stopping and outputs a Python ``loop_fn``
decides step by step (what seq2seq decoders with custom feeding are built on).

``loop_fn(time, cell_output, cell_state, loop_state)`` returns ``(finished, next_input,
next_cell_state, emit_output, next_loop_state)``. It is first called at time 0 with
``cell_output``, ``cell_state`` and ``loop_state`` None, to give the initial values
(``emit_output`` there is the structure of what will be emitted, or None for the cell's
output). Then, while some batch entry is not finished, the cell runs one step and
``loop_fn`` is called with its output and state; for entries already finished the
emitted value is zero and the state is carried through unchanged.

The loop is a ``tf.while_loop``; the cell's variables are made by one call before the
loop (never run), in the variable scope ``rnn``, so the loop body only reads them.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.functional_ops import while_loop
from tensorfleet.ops.rnn_cell_impl import assert_same_structure, flatten, pack_sequence_as
from tensorfleet.ops.tensor_array_ops import TensorArray
from tensorfleet.ops.variable_scope import variable_scope

LoopFn = Callable[[Any, Any, Any, Any], Tuple[Any, Any, Any, Any, Any]]


def _size_dims(size: Any) -> List[Optional[int]]:
    if isinstance(size, TensorShape):
        return size.as_list()
    return [int(size)]


def _batch_size(finished: Tensor) -> Any:
    dims = finished.shape.as_list() if finished.shape.ndims is not None else [None]
    return dims[0] if dims and dims[0] is not None else A.shape(finished)[0]


def _where(finished: Tensor, current: Tensor, candidate: Tensor) -> Tensor:
    """``current`` for finished batch entries, ``candidate`` for the others."""
    candidate = convert_to_tensor(candidate)
    return A.where(finished, current, candidate)


def raw_rnn(cell: Any, loop_fn: LoopFn, parallel_iterations: Optional[int] = None,
            swap_memory: bool = False, scope: Any = None) -> Tuple[Any, Any, Any]:
    """Runs ``cell`` under the control of ``loop_fn`` (see the module docstring).

    Returns:
      ``(emit_ta, final_state, final_loop_state)``: ``emit_ta`` holds one
      ``TensorArray`` (time-major, one write per step) per emitted component, in the
      emit structure; ``final_loop_state`` is None when ``loop_fn`` started it as None.

    Raises:
      TypeError: ``cell`` or ``loop_fn`` is not callable, or ``finished`` not bool.
      ValueError: ``parallel_iterations`` is not positive, or ``loop_fn`` changes a
        structure between steps.
    """
    if not callable(cell) or not hasattr(cell, "output_size"):
        raise TypeError(f"raw_rnn: cell must be an RNNCell, got {cell!r}")
    if not callable(loop_fn):
        raise TypeError(f"raw_rnn: loop_fn must be callable, got {loop_fn!r}")
    if parallel_iterations is not None and int(parallel_iterations) < 1:
        raise ValueError(f"raw_rnn: parallel_iterations must be positive, got "
                         f"{parallel_iterations}")
    with variable_scope(scope or "rnn"):
        time = A.constant(0, dtype=_dtypes.int32, name="time")
        finished, next_input, initial_state, emit_structure, init_loop_state = loop_fn(
            time, None, None, None)
        finished = convert_to_tensor(finished)
        if finished.dtype is not _dtypes.bool:
            raise TypeError(f"raw_rnn: loop_fn must return a bool 'finished', got "
                            f"{finished.dtype.name}")
        state = initial_state
        batch = _batch_size(finished)
        # One call outside the loop makes the cell's variables (its ops never run).
        probe_out, _ = cell(next_input, state)
        if emit_structure is not None:
            flat_emit = [convert_to_tensor(e) for e in flatten(emit_structure)]
            emit_dtypes = [e.dtype for e in flat_emit]
            # The template holds one example's shape: the batch dimension is added here.
            emit_dims = [e.shape.as_list() if e.shape.ndims is not None else [None]
                         for e in flat_emit]
            structure = emit_structure
        else:
            flat_probe = flatten(probe_out)
            emit_dtypes = [o.dtype for o in flat_probe]
            emit_dims = [_size_dims(s) for s in flatten(cell.output_size)]
            structure = cell.output_size
        if any(d is None for dims in emit_dims for d in dims):
            raise ValueError(f"raw_rnn: the emitted sizes must be fully known, got {emit_dims}")
        zero_emit = [A.zeros([batch] + dims if isinstance(batch, int)
                             else A.stack([batch] + dims), dtype=dt)
                     for dims, dt in zip(emit_dims, emit_dtypes)]
        emit_tas = [TensorArray(dt, size=0, dynamic_size=True,
                                element_shape=TensorShape([batch if isinstance(batch, int)
                                                           else None] + dims))
                    for dims, dt in zip(emit_dims, emit_dtypes)]
        state_flat = flatten(state)
        n_state = len(state_flat)
        input_flat = flatten(next_input)
        n_input = len(input_flat)
        has_loop_state = init_loop_state is not None
        loop_flat = flatten(init_loop_state) if has_loop_state \
            else [A.constant(0, name="no_loop_state")]
        n_emit = len(emit_tas)

        def cond(t: Tensor, done: Tensor, *rest: Any) -> Tensor:
            return M.logical_not(M.reduce_all(done))

        def body(t: Tensor, done: Tensor, *rest: Any) -> Any:
            cur_in = pack_sequence_as(next_input, list(rest[:n_input]))
            tas = list(rest[n_input:n_input + n_emit])
            st_flat = list(rest[n_input + n_emit:n_input + n_emit + n_state])
            st = pack_sequence_as(state, st_flat)
            lp_flat = list(rest[n_input + n_emit + n_state:])
            lp = pack_sequence_as(init_loop_state, lp_flat) if has_loop_state else None
            out, cell_state = cell(cur_in, st)
            assert_same_structure(state, cell_state)
            t1 = M.add(t, 1)
            fin, nxt_in, nxt_state, emit, nxt_loop = loop_fn(t1, out, cell_state, lp)
            assert_same_structure(state, nxt_state)
            assert_same_structure(next_input, nxt_in)
            emit = out if emit is None else emit
            assert_same_structure(structure, emit)
            new_lp = lp_flat if (nxt_loop is None or not has_loop_state) else flatten(nxt_loop)
            emit_flat = [_where(done, z, e) for z, e in zip(zero_emit, flatten(emit))]
            new_state = [_where(done, s, n) for s, n in zip(st_flat, flatten(nxt_state))]
            tas = [ta.write(t, e) for ta, e in zip(tas, emit_flat)]
            done = M.logical_or(done, convert_to_tensor(fin))
            return [t1, done] + [convert_to_tensor(x) for x in flatten(nxt_in)] + tas \
                + new_state + list(new_lp)

        loop_vars = [time, finished] + [convert_to_tensor(x) for x in input_flat] + emit_tas \
            + [convert_to_tensor(s) for s in state_flat] + list(loop_flat)
        res = while_loop(cond, body, loop_vars,
                         parallel_iterations=int(parallel_iterations or 32),
                         swap_memory=swap_memory)
        base = 2 + n_input
        emit_ta = pack_sequence_as(structure, list(res[base:base + n_emit]))
        final_state = pack_sequence_as(state, list(res[base + n_emit:base + n_emit + n_state]))
        final_loop = pack_sequence_as(init_loop_state, list(res[base + n_emit + n_state:])) \
            if has_loop_state else None
    return emit_ta, final_state, final_loop


__all__ = ["raw_rnn"]
