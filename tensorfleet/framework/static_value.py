"""``tf.get_static_value`` and ``tf.is_symbolic_tensor``: what the graph already tells
about a tensor's value before any session runs."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tensorfleet.framework.graph import Tensor

# Ops whose output is their first input's value.
_PASS_THROUGH = ("Identity", "StopGradient", "Snapshot", "PreventGradient")


def get_static_value(tensor: Any, partial: bool = False) -> Optional[np.ndarray]:
    """The value of ``tensor`` when the graph fixes it (constants, the shape, size and
    rank of tensors of known shape, and identities, casts and stacks of those), else None.
    A value that is not a Tensor is returned as a numpy array. With ``partial``, the
    ``Shape`` of a tensor of partly known shape gives -1 for its unknown dims.
    """
    if not isinstance(tensor, Tensor):
        return np.asarray(tensor)
    op = tensor.op
    if op.type == "Const":
        return np.array(op.attrs["value"])
    if op.type in _PASS_THROUGH:
        return get_static_value(op.inputs[0], partial)
    if op.type in ("Shape", "Size", "Rank"):
        shape = op.inputs[0].shape
        out_type = op.attrs.get("out_type")
        np_type = out_type.as_numpy_dtype if out_type is not None else np.int32
        if op.type == "Rank":
            return None if shape.ndims is None else np.array(shape.ndims, np.int32)
        if shape.ndims is None:
            return None
        dims = shape.as_list()
        if op.type == "Size":
            return None if None in dims else np.array(int(np.prod(dims)), np_type)
        if None in dims and not partial:
            return None
        return np.array([-1 if d is None else d for d in dims], np_type)
    if op.type == "Cast":
        value = get_static_value(op.inputs[0], partial)
        return None if value is None else value.astype(op.attrs["DstT"].as_numpy_dtype)
    if op.type == "Pack":
        values = [get_static_value(t, partial) for t in op.inputs]
        if any(v is None for v in values):
            return None
        return np.stack(values, axis=int(op.attrs.get("axis", 0)))
    return None


def is_symbolic_tensor(tensor: Any) -> bool:
    """Whether ``tensor`` is a graph tensor (every tensorfleet Tensor is)."""
    return isinstance(tensor, Tensor)


__all__ = ["get_static_value", "is_symbolic_tensor"]
