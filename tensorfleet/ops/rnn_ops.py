"""Ops of the recurrent networks: the fused LSTM step and layer, ``reverse_sequence``,
``sequence_mask``.

``FusedLSTMCell`` computes one whole LSTM step (the gate matmul over
``concat([x, h_prev])``, the four nonlinearities and the state update) in a
single kernel, and ``FusedLSTMCellGrad`` its whole backward step, so a
time step costs one op forward and one op backward instead of about twenty.
``FusedLSTMSequence`` runs a whole layer over a known sequence: one matmul
projects the inputs of every step, the recurrence loops inside the kernel, and
its backward op computes the kernel's gradient with two matmuls instead of one
per step.
The kernel layout is TensorFlow's: ``[input_depth + num_units, 4 * num_units]``
with the gates in the order i, j, f, o, so checkpoints move between the two.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.array_indexing_ops import range as _range
from tensorfleet.ops.math_ops_reduce import reduce_max
from tensorfleet.ops.op_util import const_value, make_op, make_tensor, same_shape


def _dim(s: TensorShape, i: int) -> Optional[int]:
    return s[i] if s.ndims is not None else None


def _fused_lstm_shape(op: Any) -> List[TensorShape]:
    x, c, h, w = (t.shape for t in op.inputs[:4])
    batch = _dim(x, 0) if _dim(x, 0) is not None else _dim(c, 0)
    units = _dim(c, 1) if _dim(c, 1) is not None else _dim(h, 1)
    if units is None and _dim(w, 1) is not None:
        units = _dim(w, 1) // 4
    state = TensorShape([batch, units])
    gates = TensorShape([batch, None if units is None else 4 * units])
    return [state, state, gates]


def _fused_lstm_grad_shape(op: Any) -> List[TensorShape]:
    x, c, h, w = (t.shape for t in op.inputs[:4])
    b = TensorShape([_dim(w, 1)])
    return [x, c, h, w, b]


def _fused_lstm_sequence_shape(op: Any) -> List[TensorShape]:
    x, c, h, w = (t.shape for t in op.inputs[:4])
    steps, batch = _dim(x, 0), _dim(x, 1)
    batch = batch if batch is not None else _dim(c, 0)
    units = _dim(c, 1) if _dim(c, 1) is not None else _dim(h, 1)
    if units is None and _dim(w, 1) is not None:
        units = _dim(w, 1) // 4
    seq = TensorShape([steps, batch, units])
    gates = TensorShape([steps, batch, None if units is None else 4 * units])
    state = TensorShape([batch, units])
    return [seq, seq, gates, state, state]


def _fused_lstm_sequence_grad_shape(op: Any) -> List[TensorShape]:
    return [t.shape for t in op.inputs[:5]]


register_op("FusedLSTMCell", _fused_lstm_shape)
register_op("FusedLSTMCellGrad", _fused_lstm_grad_shape)
register_op("FusedLSTMSequence", _fused_lstm_sequence_shape)
register_op("FusedLSTMSequenceGrad", _fused_lstm_sequence_grad_shape)
register_op("ReverseSequence", same_shape)


def fused_lstm_cell(x: Any, c_prev: Any, h_prev: Any, kernel: Any, bias: Any,
                    forget_bias: float = 1.0, name: Optional[str] = None
                    ) -> Tuple[Tensor, Tensor, Tensor]:
    """One LSTM step in one op: returns ``(c, h, gates)``.

    ``gates`` holds the activated i, j, f, o gates ([batch, 4 * units]); the
    backward op reads them instead of recomputing the forward matmul.
    """
    ins = [convert_to_tensor(t) for t in (x, c_prev, h_prev, kernel, bias)]
    dt = ins[0].dtype
    if not dt.is_floating:
        raise TypeError(f"fused_lstm_cell needs floating-point inputs, got {dt.name}")
    for t in ins[1:]:
        if t.dtype is not dt:
            raise TypeError(f"fused_lstm_cell: {t.name} has dtype {t.dtype.name}, expected "
                            f"{dt.name} like the inputs")
    op = make_op("FusedLSTMCell", ins, [dt, dt, dt], {"forget_bias": float(forget_bias)},
                 name=name or "FusedLSTMCell")
    return op.outputs[0], op.outputs[1], op.outputs[2]


def fused_lstm_cell_grad(op: Any, grad_c: Any, grad_h: Any) -> List[Tensor]:
    """The backward step of a ``FusedLSTMCell`` op: gradients of its five inputs."""
    x, c_prev, h_prev, kernel, bias = op.inputs
    c, _, gates = op.outputs
    dt = x.dtype
    g = make_op("FusedLSTMCellGrad", [x, c_prev, h_prev, kernel, gates, c, grad_c, grad_h],
                [dt] * 5, name="FusedLSTMCellGrad")
    return list(g.outputs)


def fused_lstm_sequence(x: Any, c0: Any, h0: Any, kernel: Any, bias: Any,
                        forget_bias: float = 1.0, name: Optional[str] = None
                        ) -> Tuple[Tensor, Tensor, Tensor]:
    """An LSTM layer over a whole time-major sequence in one op.

    ``x`` is [time, batch, depth]; ``kernel`` and ``bias`` are laid out as for
    ``fused_lstm_cell``. Returns ``(h, c_last, h_last)``: the output of every
    step ([time, batch, units]) and the final state. The results are those of
    ``fused_lstm_cell`` applied step after step (up to the rounding of the bias
    sum, which is added once to the input part); the op also keeps every step's
    c and activated gates (outputs 1 and 2) for its backward op.
    """
    ins = [convert_to_tensor(t) for t in (x, c0, h0, kernel, bias)]
    dt = ins[0].dtype
    if not dt.is_floating:
        raise TypeError(f"fused_lstm_sequence needs floating-point inputs, got {dt.name}")
    for t in ins[1:]:
        if t.dtype is not dt:
            raise TypeError(f"fused_lstm_sequence: {t.name} has dtype {t.dtype.name}, "
                            f"expected {dt.name} like the inputs")
    if ins[0].shape.ndims is not None and ins[0].shape.ndims != 3:
        raise ValueError(f"fused_lstm_sequence: inputs must be [time, batch, depth], got "
                         f"shape {ins[0].shape}")
    op = make_op("FusedLSTMSequence", ins, [dt] * 5, {"forget_bias": float(forget_bias)},
                 name=name or "FusedLSTMSequence")
    return op.outputs[0], op.outputs[3], op.outputs[4]


def fused_lstm_sequence_grad(op: Any, grad_h: Any, grad_c: Any, grad_c_last: Any,
                             grad_h_last: Any) -> List[Tensor]:
    """The backward pass of a ``FusedLSTMSequence`` op: gradients of its five inputs.

    Every step's c is an output of the op only for its backward op; when no gradient
    reaches it (``grad_c`` is the zeros ``gradients()`` fills in), the backward op gets
    an empty tensor in its place instead of a [time, batch, units] array of zeros.
    """
    h, c, gates = op.outputs[:3]
    dt = op.inputs[0].dtype
    if getattr(grad_c, "op", None) is not None and grad_c.op.type == "ZerosLike" \
            and grad_c.op.inputs[0] is c:
        grad_c = A.zeros([0], dt)
    g = make_op("FusedLSTMSequenceGrad",
                list(op.inputs) + [h, c, gates, grad_h, grad_c, grad_c_last, grad_h_last],
                [dt] * 5, name="FusedLSTMSequenceGrad")
    return list(g.outputs)


def reverse_sequence(input: Any, seq_lengths: Any, seq_axis: Optional[int] = None,  # noqa: A002
                     batch_axis: Optional[int] = None, name: Optional[str] = None,
                     seq_dim: Optional[int] = None, batch_dim: Optional[int] = None) -> Tensor:
    """Reverses the first ``seq_lengths[b]`` entries along ``seq_axis`` of each batch row b.

    Entries past a row's length stay where they are. ``seq_dim``/``batch_dim``
    are the older names of ``seq_axis``/``batch_axis``.
    """
    if seq_axis is not None and seq_dim is not None:
        raise ValueError("reverse_sequence: give only one of seq_axis and seq_dim")
    if batch_axis is not None and batch_dim is not None:
        raise ValueError("reverse_sequence: give only one of batch_axis and batch_dim")
    seq_axis = seq_axis if seq_axis is not None else seq_dim
    batch_axis = batch_axis if batch_axis is not None else (batch_dim or 0)
    if seq_axis is None:
        raise ValueError("reverse_sequence: seq_axis is required")
    x = convert_to_tensor(input)
    lens = convert_to_tensor(seq_lengths)
    if lens.dtype not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"reverse_sequence: seq_lengths must be int32 or int64, got "
                        f"{lens.dtype.name}")
    if lens.shape.ndims is not None and lens.shape.ndims != 1:
        raise ValueError(f"reverse_sequence: seq_lengths must be a vector, got shape "
                         f"{lens.shape}")
    nd = x.shape.ndims
    if nd is not None:
        for what, ax in (("seq_axis", seq_axis), ("batch_axis", batch_axis)):
            if not -nd <= ax < nd:
                raise ValueError(f"reverse_sequence: {what} {ax} is out of range for a tensor "
                                 f"of rank {nd}")
        seq_axis %= nd
        batch_axis %= nd
    if seq_axis == batch_axis:
        raise ValueError("reverse_sequence: seq_axis and batch_axis must differ")
    return make_tensor("ReverseSequence", [x, lens], x.dtype,
                       {"seq_axis": int(seq_axis), "batch_axis": int(batch_axis)},
                       name=name or "ReverseSequence")


def sequence_mask(lengths: Any, maxlen: Any = None, dtype: Any = _dtypes.bool,
                  name: Optional[str] = None) -> Tensor:
    """``mask[..., j] = j < lengths[...]``, with ``maxlen`` columns (default max(lengths))."""
    with name_scope(name or "SequenceMask"):
        lens = convert_to_tensor(lengths)
        if not lens.dtype.is_integer:
            raise TypeError(f"sequence_mask: lengths must be integers, got {lens.dtype.name}")
        if maxlen is None:
            maxlen = reduce_max(lens)
        else:
            mv = const_value(maxlen) if isinstance(maxlen, Tensor) else maxlen
            if mv is not None and getattr(mv, "ndim", 0) != 0:
                raise ValueError(f"sequence_mask: maxlen must be a scalar, got {mv!r}")
            maxlen = A.cast(maxlen, lens.dtype) if isinstance(maxlen, Tensor) else \
                convert_to_tensor(int(maxlen), dtype=lens.dtype)
        row = _range(0, maxlen, 1, dtype=lens.dtype)
        mask = M.less(row, A.expand_dims(lens, -1))
        dt = _dtypes.as_dtype(dtype)
        return mask if dt is _dtypes.bool else A.cast(mask, dt)


__all__ = ["fused_lstm_cell", "fused_lstm_cell_grad", "fused_lstm_sequence",
           "fused_lstm_sequence_grad", "reverse_sequence", "sequence_mask"]
