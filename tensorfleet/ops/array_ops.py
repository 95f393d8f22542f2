"""Array ops: constants, placeholders, shapes, reshaping, slicing, joining."""

from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework import graph as _graph
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, as_shape
from tensorfleet.ops.op_util import make_tensor, same_shape

register_op("Const", lambda op: [TensorShape(list(op.attrs["value"].shape))])
register_op("Placeholder", lambda op: [op.attrs["shape"]], stateful=True)
register_op("PlaceholderWithDefault", lambda op: [op.attrs["shape"]])
register_op("Identity", same_shape)


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const",
             verify_shape: bool = False) -> Tensor:
    """A tensor holding ``value`` (numbers, nested lists, numpy arrays or strings)."""
    dt = _dtypes.as_dtype(dtype) if dtype is not None else _dtypes.dtype_of_value(value)
    if dt is _dtypes.string:
        arr = np.asarray(value, dtype=object)
        flat = [v if isinstance(v, bytes) else str(v).encode() for v in arr.reshape(-1).tolist()]
        arr = np.array(flat + [None], dtype=object)[:-1].reshape(arr.shape)
    else:
        src = np.asarray(value)
        if src.dtype.kind in "OSU":
            raise TypeError(f"Expected {dt.name}, got {value!r} of type "
                            f"'{type(value).__name__}' instead.")
        if (dt.is_integer or dt.is_bool) and src.dtype.kind == "f" and src.size and not np.all(
                np.floor(src) == src):
            raise TypeError(f"Expected {dt.name}, got {value!r} of type "
                            f"'{type(value).__name__}' instead.")
        arr = src.astype(dt.np)
    if shape is not None:
        shp = [int(s) for s in (shape if isinstance(shape, (list, tuple)) else [shape])]
        if arr.size == 1 and int(np.prod(shp)) != 1:
            arr = np.full(shp, arr.reshape(-1)[0], dtype=arr.dtype)
        elif arr.size == int(np.prod(shp)):
            arr = arr.reshape(shp)
        else:
            raise TypeError(f"Expected Tensor's shape: {tuple(shp)}, got {arr.shape}.")
    arr.setflags(write=False)
    return make_tensor("Const", [], dt, {"value": arr, "dtype": dt}, name=name)


_graph._register_constant_fn(lambda value, dtype=None, name="Const": constant(
    value, dtype=dtype, name=name))


def placeholder(dtype: Any, shape: Any = None, name: Optional[str] = None) -> Tensor:
    """A tensor whose value must be fed at run time."""
    dt = _dtypes.as_dtype(dtype)
    return make_tensor("Placeholder", [], dt, {"dtype": dt, "shape": as_shape(shape)},
                       name=name or "Placeholder")


def placeholder_with_default(input: Any, shape: Any, name: Optional[str] = None) -> Tensor:
    """Passes ``input`` through unless a value is fed."""
    x = convert_to_tensor(input)
    shp = as_shape(shape)
    if not shp.is_compatible_with(x.shape):
        raise ValueError(f"Shape {shp} is not compatible with the default's shape {x.shape}")
    return make_tensor("PlaceholderWithDefault", [x], x.dtype, {"shape": shp},
                       name=name or "PlaceholderWithDefault")


def identity(input: Any, name: Optional[str] = None) -> Tensor:
    """Returns a tensor with the same value as ``input``."""
    x = convert_to_tensor(input)
    return make_tensor("Identity", [x], x.dtype, name=name or "Identity")


def stack(values: List[Any], axis: int = 0, name: str = "stack") -> Tensor:
    """Packs a list of rank-R tensors into one rank-(R+1) tensor."""
    raise NotImplementedError  # filled in by the array family


__all__ = ["constant", "placeholder", "placeholder_with_default", "identity", "stack"]
