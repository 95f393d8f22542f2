"""The loop form of ``dynamic_rnn``, for inputs whose number of time steps is unknown
while the graph is built.

The inputs are unstacked into ``TensorArray``s and a ``tf.while_loop`` runs one
cell step per iteration, writing each output into another ``TensorArray`` that
is stacked at the end. The cell's variables are made before the loop by one
call on the first time step outside it (its ops are never fetched, so they
never run): the loop body then only reads them, with the names a loop-free
call would give.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.functional_ops import while_loop
from tensorfleet.ops.rnn_cell_impl import flatten, pack_sequence_as
from tensorfleet.ops.tensor_array_ops import TensorArray


def _time_major(x: Tensor) -> Tensor:
    nd = x.shape.ndims
    if nd is None:
        raise ValueError(f"dynamic_rnn: the rank of the inputs must be known, got {x.name}")
    return A.transpose(x, [1, 0] + list(range(2, nd)))


def _batch_major(x: Tensor) -> Tensor:
    nd = x.shape.ndims
    return A.transpose(x, [1, 0] + list(range(2, nd)))


def dynamic_rnn_loop(cell: Any, inputs: Any, flat: List[Tensor], state: Any,
                     seq_len: Optional[Tensor], time_major: bool, parallel_iterations: int,
                     swap_memory: bool) -> Tuple[Any, Any]:
    """``dynamic_rnn`` as a ``while_loop``; returns ``(outputs, final_state)``."""
    flat_tm = flat if time_major else [_time_major(x) for x in flat]
    steps = A.shape(flat_tm[0])[0]
    # The first call makes the variables outside the loop; its result gives the
    # dtypes and shapes of the outputs.
    first_in = pack_sequence_as(inputs, [x[0] for x in flat_tm])
    probe_out, _ = cell(first_in, state)
    out_flat = flatten(probe_out)
    in_tas = [TensorArray(x.dtype, size=steps, element_shape=x.shape[1:]).unstack(x)
              for x in flat_tm]
    out_tas = [TensorArray(o.dtype, size=steps, element_shape=o.shape) for o in out_flat]
    zeros = [A.zeros_like(o) for o in out_flat] if seq_len is not None else []
    state_flat = flatten(state)
    n_state = len(state_flat)

    def cond(t: Tensor, *rest: Any) -> Tensor:
        return M.less(t, steps)

    def body(t: Tensor, *rest: Any) -> Any:
        st = pack_sequence_as(state, list(rest[:n_state]))
        tas = list(rest[n_state:])
        x_t = pack_sequence_as(inputs, [ta.read(t) for ta in in_tas])
        out, new_st = cell(x_t, st)
        outs = flatten(out)
        new_flat = flatten(new_st)
        if seq_len is not None:
            valid = M.less(t, seq_len)
            outs = [A.where(valid, o, z) for o, z in zip(outs, zeros)]
            new_flat = [A.where(valid, n, s) for n, s in zip(new_flat, rest[:n_state])]
        tas = [ta.write(t, o) for ta, o in zip(tas, outs)]
        return [M.add(t, 1)] + list(new_flat) + tas

    t0 = A.constant(0, dtype=_dtypes.int32, name="time")
    res = while_loop(cond, body, [t0] + state_flat + out_tas,
                     parallel_iterations=parallel_iterations, swap_memory=swap_memory)
    final_state = pack_sequence_as(state, list(res[1:1 + n_state]))
    stacked = [ta.stack() for ta in res[1 + n_state:]]
    if not time_major:
        stacked = [_batch_major(s) for s in stacked]
    return pack_sequence_as(probe_out, stacked), final_state


__all__ = ["dynamic_rnn_loop"]
