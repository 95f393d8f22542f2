"""Gradients of the recurrent ops.

A ``FusedLSTMCell`` step maps onto one ``FusedLSTMCellGrad`` op that returns
the gradients of all five inputs at once, and a ``FusedLSTMSequence`` layer onto
one ``FusedLSTMSequenceGrad`` op. The backward op itself has no
gradient (no second derivatives): ``gradients()`` fails loudly through it.
``ReverseSequence`` is its own inverse, so its gradient reverses the gradient.
"""

from __future__ import annotations

from typing import Any, List

from tensorfleet.gradients.registry import register_gradient
from tensorfleet.ops import rnn_ops as R


@register_gradient("FusedLSTMCell")
def _fused_lstm_cell_grad(op: Any, grad_c: Any, grad_h: Any, grad_gates: Any) -> List[Any]:
    # The gates output only feeds the backward op; a gradient arriving for it
    # would mean someone differentiates through the saved activations.
    return R.fused_lstm_cell_grad(op, grad_c, grad_h)


@register_gradient("FusedLSTMSequence")
def _fused_lstm_sequence_grad(op: Any, grad_h: Any, grad_c: Any, grad_gates: Any,
                              grad_c_last: Any, grad_h_last: Any) -> List[Any]:
    # As for the single step, the saved gates only feed the backward op. Every step's
    # c is an output too, and its gradient is taken (it is zeros unless used).
    return R.fused_lstm_sequence_grad(op, grad_h, grad_c, grad_c_last, grad_h_last)


@register_gradient("ReverseSequence")
def _reverse_sequence_grad(op: Any, grad: Any) -> List[Any]:
    return [R.reverse_sequence(grad, op.inputs[1], seq_axis=op.attrs["seq_axis"],
                               batch_axis=op.attrs["batch_axis"]), None]
