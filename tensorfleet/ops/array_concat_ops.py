"""Array ops, joining and splitting: concat, stack, unstack, split.

Re-exported by ``array_ops``.
"""

from __future__ import annotations

import builtins
from typing import Any, List, Optional

import numpy as np

from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, unknown_shape
from tensorfleet.ops.array_ops_core import (_axis_tensor, _norm_axis, _scalar_int,
                                            convert_list, identity, partial_values,
                                            shape_tensor)
# ``stack`` moved to array_ops_core (constants pack lists with it); still importable here.
from tensorfleet.ops.array_ops_core import stack  # noqa: F401
from tensorfleet.ops.op_util import make_op, make_tensor

_builtin_range = builtins.range


def _concat_shape(op: Any) -> List[TensorShape]:
    shapes = [t.shape for t in op.inputs[:-1]]
    known = [s for s in shapes if s.ndims is not None]
    rank = known[0].ndims if known else None
    for s in known:
        if s.ndims != rank:
            raise ValueError(f"Shape must be rank {rank} but is rank {s.ndims}")
    axis = _scalar_int(op.inputs[-1])
    if rank is None:
        return [unknown_shape()]
    if axis is None:
        return [unknown_shape(rank)]
    axis = _norm_axis(axis, rank)
    out: List[Optional[int]] = [None] * rank
    total: Optional[int] = 0
    for s in known:
        d = s.as_list()
        total = None if total is None or d[axis] is None else total + d[axis]
        for i in _builtin_range(rank):
            if i == axis:
                continue
            if out[i] is not None and d[i] is not None and out[i] != d[i]:
                raise ValueError(f"Dimension {i} in both shapes must be equal, but are "
                                 f"{out[i]} and {d[i]}. Shapes are {known[0]} and {s}")
            out[i] = out[i] if out[i] is not None else d[i]
    out[axis] = total if len(known) == len(shapes) else None
    return [TensorShape(out)]


def _unpack_shape(op: Any) -> List[TensorShape]:
    s = op.inputs[0].shape
    if s.ndims is None:
        return [unknown_shape() for _ in op.outputs]
    axis = _norm_axis(op.attrs["axis"], s.ndims)
    dims = s.as_list()
    if dims[axis] is not None and dims[axis] != op.attrs["num"]:
        raise ValueError(f"Dimension {axis} has size {dims[axis]}, cannot unstack into "
                         f"{op.attrs['num']} tensors")
    return [TensorShape(dims[:axis] + dims[axis + 1:]) for _ in op.outputs]


def _split_shape(op: Any) -> List[TensorShape]:
    axis_t, x = op.inputs
    n = op.attrs["num_split"]
    axis = _scalar_int(axis_t)
    if x.shape.ndims is None or axis is None:
        return [unknown_shape(x.shape.ndims) for _ in _builtin_range(n)]
    axis = _norm_axis(axis, x.shape.ndims)
    dims = x.shape.as_list()
    if dims[axis] is not None:
        if dims[axis] % n:
            raise ValueError(f"Dimension size must be evenly divisible by {n} but is "
                             f"{dims[axis]}")
        dims[axis] //= n
    return [TensorShape(dims) for _ in _builtin_range(n)]


def _split_v_shape(op: Any) -> List[TensorShape]:
    x, sizes_t, axis_t = op.inputs
    n = op.attrs["num_split"]
    axis = _scalar_int(axis_t)
    sizes = partial_values(sizes_t)
    if x.shape.ndims is None or axis is None:
        return [unknown_shape(x.shape.ndims) for _ in _builtin_range(n)]
    axis = _norm_axis(axis, x.shape.ndims)
    dims = x.shape.as_list()
    if sizes is None or len(sizes) != n:
        if sizes is not None:
            raise ValueError(f"size_splits has {len(sizes)} entries but num_split is {n}")
        return [TensorShape(dims[:axis] + [None] + dims[axis + 1:]) for _ in _builtin_range(n)]
    if sizes.count(-1) > 1:
        raise ValueError(f"size_splits {sizes} has more than one -1")
    if -1 in sizes and None not in sizes and dims[axis] is not None:
        rest = dims[axis] - sum(s for s in sizes if s != -1)
        if rest < 0:
            raise ValueError(f"size_splits {sizes} add up to more than dimension {dims[axis]}")
        sizes[sizes.index(-1)] = rest
    elif None not in sizes and dims[axis] is not None and sum(sizes) != dims[axis]:
        raise ValueError(f"Determined shape must either match input shape along split_dim "
                         f"exactly if fully specified, or be less than the size of the input "
                         f"along split_dim if not fully specified. Got: {sum(sizes)} vs. "
                         f"{dims[axis]} (size_splits {sizes})")
    return [TensorShape(dims[:axis] + [None if s in (None, -1) else s] + dims[axis + 1:])
            for s in sizes]


register_op("ConcatV2", _concat_shape)
register_op("Unpack", _unpack_shape)
register_op("Split", _split_shape)
register_op("SplitV", _split_v_shape)


def unstack(value: Any, num: Optional[int] = None, axis: int = 0,
            name: str = "unstack") -> List[Tensor]:
    """Splits ``value`` along ``axis`` into a list of rank-(R-1) tensors."""
    x = convert_to_tensor(value)
    if num is None:
        s = x.shape
        if s.ndims is None:
            raise ValueError(f"Cannot infer num from shape {s}")
        d = s.as_list()[_norm_axis(axis, s.ndims)]
        if d is None:
            raise ValueError(f"Cannot infer num from shape {s}")
        num = d
    op = make_op("Unpack", [x], [x.dtype] * num, {"num": int(num), "axis": int(axis)}, name=name)
    return list(op.outputs)


def concat(values: Any, axis: Any, name: str = "concat") -> Tensor:
    """Joins tensors along ``axis`` (negative counts from the end)."""
    if isinstance(values, Tensor):
        values = [values]
    if not isinstance(values, (list, tuple)) or not values:
        raise ValueError("concat expects a non-empty list of tensors")
    if len(values) == 1:
        # One input: TF keeps the static-axis check but returns the tensor unchanged.
        t = convert_to_tensor(values[0])
        a = axis if not isinstance(axis, Tensor) else _scalar_int(axis)
        if a is not None and t.shape.ndims is not None:
            _norm_axis(int(a), t.shape.ndims)
        return identity(t, name=name)
    ts = convert_list(values, op_name="ConcatV2")
    return make_tensor("ConcatV2", ts + [_axis_tensor(axis)], ts[0].dtype, {"N": len(ts)},
                       name=name)


def split(value: Any, num_or_size_splits: Any, axis: Any = 0, num: Optional[int] = None,
          name: str = "split") -> List[Tensor]:
    """Splits ``value`` along ``axis`` into ``n`` equal parts or parts of the given sizes."""
    x = convert_to_tensor(value)
    if isinstance(num_or_size_splits, (int, np.integer)):
        n = int(num_or_size_splits)
        if n <= 0:
            raise ValueError(f"num_split must be positive, got {n}")
        op = make_op("Split", [_axis_tensor(axis, "split_dim"), x], [x.dtype] * n,
                     {"num_split": n}, name=name)
        return list(op.outputs)
    sizes = shape_tensor(num_or_size_splits, name="size_splits")
    if num is None:
        n0 = sizes.shape[0] if sizes.shape.ndims == 1 else None
        if n0 is None:
            raise ValueError(f"Cannot infer num from shape {sizes.shape}; pass num=")
        num = n0
    op = make_op("SplitV", [x, sizes, _axis_tensor(axis, "split_dim")], [x.dtype] * int(num),
                 {"num_split": int(num)}, name=name)
    return list(op.outputs)


__all__ = ["unstack", "concat", "split"]
