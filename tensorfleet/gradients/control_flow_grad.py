"""Gradients of the control-flow ops (and of the state ops, which have none).

Through a ``cond`` the gradient retraces the forward routing: a Merge sends its
gradient back through a Switch on the same predicate, so only the taken
branch's gradient ops run, and a Switch merges the gradients of its two
outputs (the untaken side arrives as zeros that are themselves dead).
"""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.gradients import state_grad  # noqa: F401 - registers the state ops
from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops import control_flow_ops, math_ops

no_gradient("NoOp")
no_gradient("Assert")


@register_gradient("Print")
def _print_grad(op: Any, grad: Any) -> List[Optional[Any]]:
    # Printing is invisible to differentiation: only input_ receives the gradient.
    return [grad] + [None] * (len(op.inputs) - 1)


def _merge_grads(grads: List[Any]) -> Any:
    if any(isinstance(g, IndexedSlices) for g in grads) and not all(
            isinstance(g, IndexedSlices) for g in grads):
        grads = [convert_to_tensor(g) for g in grads]
    return control_flow_ops.merge(grads, name="cond_grad")[0]


@register_gradient("Switch")
def _switch_grad(op: Any, grad_false: Any, grad_true: Any) -> List[Optional[Any]]:
    if grad_false is None or grad_true is None:
        # Only non-float outputs come without a filled-in zero gradient.
        return [None, None]
    return [_merge_grads([grad_false, grad_true]), None]


def _switch_pred(t: Tensor) -> Optional[Tensor]:
    return t.op.inputs[1] if t.op.type == "Switch" else None


@register_gradient("Merge")
def _merge_grad(op: Any, grad: Any, _index_grad: Any = None) -> List[Optional[Any]]:
    if grad is None:
        return [None] * len(op.inputs)
    preds = [_switch_pred(t) for t in op.inputs]
    if preds[0] is not None and all(p is preds[0] for p in preds):
        # A cond's merge: each input is one side of a Switch on the predicate.
        sides = control_flow_ops.switch(grad, preds[0])
        return [sides[t.value_index] for t in op.inputs]
    out = []
    for i in range(len(op.inputs)):
        taken = math_ops.equal(op.outputs[1], i)
        out.append(control_flow_ops.switch(grad, taken)[1])
    return out


@register_gradient("RefGate")
def _ref_gate_grad(op: Any, grad: Any) -> List[Optional[Any]]:
    return [grad, None]
