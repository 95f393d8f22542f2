"""Gradients of the TensorArray ops: the gradient of a list is a list of gradients.

A gradient list is sparse (an element never given a gradient is zero), so reading
one needs the shape of the value it stands for: the gradient ops take the shape of
the forward value (a small tensor, which a loop records per iteration when the
op sits in a loop body). Writing an element and reading it back hand the gradient
from the read to the written value; ``unstack`` and ``stack``, ``scatter`` and
``gather``, ``split`` and ``concat`` are each other's gradients.
"""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops import array_ops
from tensorfleet.ops.op_util import make_tensor
from tensorfleet.ops.tensor_array_ops import empty_grad_list
from tensorfleet.framework.tensor_shape import unknown_shape

for _t in ("TensorArrayV3", "TensorArraySizeV3", "TensorArrayCloseV3", "TensorArrayGradEmpty",
           "TensorArrayGradRead", "TensorArrayGradGather", "TensorArrayGradConcat",
           "TensorArrayGradClear"):
    no_gradient(_t)


def _dense(g: Any) -> Any:
    return convert_to_tensor(g) if isinstance(g, IndexedSlices) else g


def _grad_attrs(op: Operation) -> dict:
    return {"dtype": op.attrs["dtype"], "element_shape": unknown_shape()}


def _clear(gflow: Tensor, indices: Optional[Tensor] = None) -> Tensor:
    ins = [gflow] if indices is None else [gflow, indices]
    return make_tensor("TensorArrayGradClear", ins, _dtypes.variant, name="TensorArrayGradClear")


@register_gradient("TensorArrayWriteV3")
def _write_grad(op: Operation, gflow: Any) -> List[Optional[Any]]:
    if gflow is None:
        return [None, None, None]
    _, index, value = op.inputs
    dv = make_tensor("TensorArrayGradRead", [gflow, index, array_ops.shape(value)], value.dtype,
                     _grad_attrs(op), name="TensorArrayGradRead", shape=value.shape)
    return [_clear(gflow, index), None, dv]


@register_gradient("TensorArrayReadV3")
def _read_grad(op: Operation, grad: Any) -> List[Optional[Any]]:
    if grad is None:
        return [None, None]
    flow, index = op.inputs
    g = make_tensor("TensorArrayWriteV3", [empty_grad_list(flow), index, _dense(grad)],
                    _dtypes.variant, _grad_attrs(op), name="TensorArrayGradWrite")
    return [g, None]


@register_gradient("TensorArrayGatherV3")
def _gather_grad(op: Operation, grad: Any) -> List[Optional[Any]]:
    if grad is None:
        return [None] * len(op.inputs)
    flow = op.inputs[0]
    ins = [empty_grad_list(flow), _dense(grad)] + list(op.inputs[1:])
    g = make_tensor("TensorArrayScatterV3", ins, _dtypes.variant,
                    dict(_grad_attrs(op), all=op.attrs.get("all", False)),
                    name="TensorArrayGradScatter")
    return [g] + [None] * (len(op.inputs) - 1)


@register_gradient("TensorArrayScatterV3")
def _scatter_grad(op: Operation, gflow: Any) -> List[Optional[Any]]:
    if gflow is None:
        return [None] * len(op.inputs)
    value = op.inputs[1]
    vshape = array_ops.shape(value)
    if len(op.inputs) > 2:
        indices = op.inputs[2]
    else:
        indices = array_ops.range(vshape[0])
    dv = make_tensor("TensorArrayGradGather", [gflow, vshape, indices], value.dtype,
                     _grad_attrs(op), name="TensorArrayGradGather", shape=value.shape)
    return [_clear(gflow, indices), dv] + [None] * (len(op.inputs) - 2)


@register_gradient("TensorArrayConcatV3")
def _concat_grad(op: Operation, grad: Any, _lengths_grad: Any = None) -> List[Optional[Any]]:
    if grad is None:
        return [None]
    flow = op.inputs[0]
    g = make_tensor("TensorArraySplitV3", [empty_grad_list(flow), _dense(grad), op.outputs[1]],
                    _dtypes.variant, _grad_attrs(op), name="TensorArrayGradSplit")
    return [g]


@register_gradient("TensorArraySplitV3")
def _split_grad(op: Operation, gflow: Any) -> List[Optional[Any]]:
    if gflow is None:
        return [None, None, None]
    _, value, lengths = op.inputs
    dv = make_tensor("TensorArrayGradConcat", [gflow, lengths, array_ops.shape(value)],
                     value.dtype, _grad_attrs(op), name="TensorArrayGradConcat",
                     shape=value.shape)
    return [_clear(gflow), dv, None]
