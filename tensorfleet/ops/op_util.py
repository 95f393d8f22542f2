"""Helpers shared by the op families: building ops and common shape functions."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from tensorfleet.framework.tensor_shape import (TensorShape, broadcast_shape, scalar,
                                                unknown_shape)


def make_op(op_type: str, inputs: Sequence[Any], out_dtypes: Sequence[Any],
            attrs: Optional[Dict[str, Any]] = None, name: Optional[str] = None,
            shapes: Optional[Sequence[Any]] = None) -> Operation:
    """Creates an op in the graph of its inputs (or the default graph)."""
    tensors = [convert_to_tensor(i) for i in inputs]
    graph = tensors[0].graph if tensors else get_default_graph()
    return graph.create_op(op_type, tensors, out_dtypes, attrs, name=name, shapes=shapes)


def make_tensor(op_type: str, inputs: Sequence[Any], dtype: Any,
                attrs: Optional[Dict[str, Any]] = None, name: Optional[str] = None,
                shape: Any = None) -> Tensor:
    """Creates a single-output op and returns its output."""
    op = make_op(op_type, inputs, [dtype], attrs, name,
                 shapes=None if shape is None else [shape])
    return op.outputs[0]


def convert_pair(x: Any, y: Any) -> tuple:
    """Converts two operands, the Python one taking the dtype of the Tensor one."""
    if isinstance(x, Tensor) and not isinstance(y, Tensor):
        y = convert_to_tensor(y, dtype=_dtype_for_literal(x.dtype, y))
    elif isinstance(y, Tensor) and not isinstance(x, Tensor):
        x = convert_to_tensor(x, dtype=_dtype_for_literal(y.dtype, x))
    else:
        x, y = convert_to_tensor(x), convert_to_tensor(y)
    if x.dtype is not y.dtype:
        raise TypeError(f"Input 'y' has type {y.dtype.name} that does not match type "
                        f"{x.dtype.name} of argument 'x' ({x.name} vs {y.name}).")
    return x, y


def _dtype_for_literal(dt: _dtypes.DType, value: Any) -> Any:
    if hasattr(value, "dtype") and not isinstance(value, (float, int)):
        try:
            return _dtypes.as_dtype(value.dtype) if value.dtype != object else dt
        except TypeError:
            return dt
    return dt


# -- shape functions -------------------------------------------------------------------------

def same_shape(op: Operation) -> List[TensorShape]:
    """Output 0 has the shape of input 0."""
    return [op.inputs[0].shape]


def broadcast_binary(op: Operation) -> List[TensorShape]:
    return [broadcast_shape(op.inputs[0].shape, op.inputs[1].shape)]


def scalar_shape(op: Operation) -> List[TensorShape]:
    return [scalar() for _ in op.outputs]


def unknown(op: Operation) -> List[TensorShape]:
    return [unknown_shape() for _ in op.outputs]


def no_outputs(op: Operation) -> List[TensorShape]:
    return []


def const_value(t: Tensor) -> Any:
    """The numpy value of ``t`` when it is known at graph-build time, else None."""
    op = t.op
    if op.type == "Const":
        return op.attrs["value"]
    if op.type == "Shape" and op.inputs[0].shape.is_fully_defined():
        import numpy as np
        return np.array(op.inputs[0].shape.as_list(), dtype=t.dtype.np)
    if op.type == "Identity":
        return const_value(op.inputs[0])
    if op.type == "Pack":
        import numpy as np
        vals = [const_value(i) for i in op.inputs]
        if any(v is None for v in vals):
            return None
        return np.stack(vals, axis=op.attrs.get("axis", 0))
    return None


def normalize_axis(axis: Any, ndims: Optional[int]) -> Optional[List[int]]:
    """Axis list as non-negative ints, or None (all axes) when ``axis`` is None."""
    if axis is None:
        return None
    axes = [int(a) for a in (axis if isinstance(axis, (list, tuple)) else [axis])]
    if ndims is None:
        return axes
    out = []
    for a in axes:
        if not -ndims <= a < max(ndims, 1):
            raise ValueError(f"axis {a} is out of range for a tensor of rank {ndims}")
        out.append(a % ndims if ndims else 0)
    return out


__all__ = ["make_op", "make_tensor", "convert_pair", "same_shape", "broadcast_binary",
           "scalar_shape", "unknown", "no_outputs", "const_value", "normalize_axis"]
