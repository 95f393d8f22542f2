"""Gradients of the n-d gathers and scatters; the set-like ops and the in-place
scatters on variables are not differentiable."""

from __future__ import annotations

from typing import Any, List

from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import scatter_ops as S

for _t in ("ScatterNdUpdate", "ScatterNdAdd", "ScatterNdSub", "UniqueWithCounts", "ListDiff",
           "Bincount"):
    no_gradient(_t)


@register_gradient("GatherNd")
def _gather_nd_grad(op: Any, grad: Any) -> List[Any]:
    params, indices = op.inputs
    shape = A.shape(params, out_type=indices.dtype)
    return [S.scatter_nd(indices, grad, shape), None]


@register_gradient("ScatterNd")
def _scatter_nd_grad(op: Any, grad: Any) -> List[Any]:
    return [None, S.gather_nd(grad, op.inputs[0]), None]


@register_gradient("TensorScatterUpdate")
def _tensor_scatter_update_grad(op: Any, grad: Any) -> List[Any]:
    indices = op.inputs[1]
    # The replaced positions take no gradient from the output.
    kept = S.tensor_scatter_update(grad, indices, A.zeros_like(op.inputs[2]))
    return [kept, None, S.gather_nd(grad, indices)]


@register_gradient("TensorScatterAdd")
def _tensor_scatter_add_grad(op: Any, grad: Any) -> List[Any]:
    return [grad, None, S.gather_nd(grad, op.inputs[1])]


@register_gradient("TensorScatterSub")
def _tensor_scatter_sub_grad(op: Any, grad: Any) -> List[Any]:
    from_updates = S.gather_nd(grad, op.inputs[1])
    return [grad, None, M.negative(from_updates)]


def _tensor_scatter_extremum_grad(op: Any, grad: Any) -> List[Any]:
    # The output's gradient is shared equally among the inputs (the tensor's element and
    # the updates) that equal the chosen extremum, as for reduce_max.
    x, indices, updates = op.inputs
    out = op.outputs[0]
    x_hit = A.cast(M.equal(x, out), grad.dtype)
    u_hit = A.cast(M.equal(updates, S.gather_nd(out, indices)), grad.dtype)
    shape = A.shape(x, out_type=indices.dtype)
    ties = x_hit + S.scatter_nd(indices, u_hit, shape)
    share = grad / ties
    return [share * x_hit, None, S.gather_nd(share, indices) * u_hit]


register_gradient("TensorScatterMax")(_tensor_scatter_extremum_grad)
register_gradient("TensorScatterMin")(_tensor_scatter_extremum_grad)
