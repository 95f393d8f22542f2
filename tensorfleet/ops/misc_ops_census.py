"""Assorted TF 1.x top-level names: ``tf.batch_gather``, ``tf.switch_case``,
``tf.required_space_to_batch_paddings``, ``tf.tensor_scatter_nd_update`` / ``_add`` /
``_sub`` (the later names of ``tf.tensor_scatter_update`` ...), ``tf.bitcast``,
``tf.timestamp``, ``tf.guarantee_const`` and ``tf.assert_proper_iterable``.

``Bitcast`` and ``Timestamp`` are ops of their own (kernels in
``kernels/numpy/misc_census_kernels.py``); the rest are composites of existing ops.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops.array_ops_core import cast, expand_dims, identity, reshape, shape, stack
from tensorfleet.ops.array_concat_ops import concat
from tensorfleet.ops.array_indexing_ops import gather, range as _range
from tensorfleet.ops.control_flow_ops import case
from tensorfleet.ops.math_ops_core import equal, floormod
from tensorfleet.ops.math_ops_reduce import reduce_prod
from tensorfleet.ops.op_util import make_tensor
from tensorfleet.ops.scatter_ops import (tensor_scatter_add, tensor_scatter_sub,
                                         tensor_scatter_update)

__all__ = ["batch_gather", "switch_case", "required_space_to_batch_paddings",
           "tensor_scatter_nd_update", "tensor_scatter_nd_add", "tensor_scatter_nd_sub",
           "bitcast", "timestamp", "guarantee_const", "assert_proper_iterable"]

tensor_scatter_nd_update = tensor_scatter_update
tensor_scatter_nd_add = tensor_scatter_add
tensor_scatter_nd_sub = tensor_scatter_sub


def _bitcast_shape(op: Any) -> List[TensorShape]:
    x = op.inputs[0]
    src, dst = x.dtype.np.itemsize, _dtypes.as_dtype(op.attrs["type"]).np.itemsize
    if x.shape.ndims is None:
        return [TensorShape(None)]
    dims = x.shape.as_list()
    if src == dst:
        return [TensorShape(dims)]
    if src > dst:
        return [TensorShape(dims + [src // dst])]
    if not dims or (dims[-1] is not None and dims[-1] != dst // src):
        raise ValueError(f"Cannot bitcast from {x.dtype.name} to "
                         f"{_dtypes.as_dtype(op.attrs['type']).name}: the last dimension "
                         f"must be {dst // src}, got shape {x.shape}")
    return [TensorShape(dims[:-1])]


register_op("Bitcast", _bitcast_shape)
register_op("Timestamp", lambda op: [TensorShape([])], stateful=True)


def bitcast(input: Any, type: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """The bytes of ``input`` read as ``type``: a wider source gains a last dimension of
    the size ratio, a narrower one loses its last dimension (which must be the ratio)."""
    x = convert_to_tensor(input)
    dt = _dtypes.as_dtype(type)
    if x.dtype is _dtypes.string or dt is _dtypes.string:
        raise TypeError("bitcast does not take string tensors")
    return make_tensor("Bitcast", [x], dt, {"type": dt.name}, name=name or "Bitcast")


def timestamp(name: Optional[str] = None) -> Tensor:
    """The time at which the op runs, in seconds since the epoch (float64)."""
    return make_tensor("Timestamp", [], _dtypes.float64, name=name or "Timestamp")


def guarantee_const(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002
    """``input`` unchanged; TensorFlow takes it as a promise that the value is constant."""
    return identity(input, name=name or "GuaranteeConst")


def assert_proper_iterable(values: Any) -> None:
    """TypeError when ``values`` is a tensor, an array or a string (iterable by accident) or
    is not iterable at all."""
    accidental = (Tensor, SparseTensor, np.ndarray, bytes, str)
    if isinstance(values, accidental):
        raise TypeError(f'Expected argument "values" to be a "proper" iterable.  Found: '
                        f"{type(values)}")
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


def batch_gather(params: Any, indices: Any, name: Optional[str] = None) -> Tensor:
    """For each batch position (all dimensions of ``indices`` but its last, which must lead
    ``params``), the rows of ``params`` at that position's indices."""
    with name_scope(name or "BatchGather"):
        p = convert_to_tensor(params)
        i = convert_to_tensor(indices)
        r = i.shape.ndims
        if r is None:
            raise ValueError("batch_gather needs the rank of indices to be known")
        if not i.dtype.is_integer:
            raise TypeError(f"indices of batch_gather must be integers, got {i.dtype.name}")
        if r <= 1:
            return gather(p, i)
        b = r - 1
        if p.shape.ndims is not None and p.shape.ndims < r:
            raise ValueError(f"batch_gather: params of rank {p.shape.ndims} has fewer than the "
                             f"{r} dimensions indices {i.shape} needs")
        ps = shape(p, out_type=i.dtype)
        batch = reduce_prod(ps[:b])
        n = ps[b]
        flat_p = reshape(p, concat([stack([batch * n]), ps[b + 1:]], 0))
        offsets = expand_dims(_range(batch) * n, 1)
        flat_i = reshape(i, stack([batch, -1])) + cast(offsets, i.dtype)
        out = gather(flat_p, flat_i)
        out = reshape(out, concat([shape(i, out_type=i.dtype), ps[b + 1:]], 0))
        if p.shape.ndims is not None:
            out.set_shape(i.shape.concatenate(p.shape[b + 1:]))
        return out


def switch_case(branch_index: Any, branch_fns: Any, default: Optional[Callable[[], Any]] = None,
                name: str = "switch_case") -> Any:
    """The result of ``branch_fns[branch_index]`` (a list of callables, a list of
    ``(int, callable)`` pairs or a dict with keys 0..n-1); an index out of range runs
    ``default``, or the last branch when there is none."""
    if isinstance(branch_fns, dict):
        items: List[Tuple[Any, Any]] = list(branch_fns.items())
    else:
        items = list(branch_fns)
        if items and not isinstance(items[0], tuple):
            items = list(enumerate(items))
    if not items:
        raise ValueError("branch_fns must not be empty")
    keys = sorted(int(k) for k, _ in items)
    if keys != list(range(len(items))):
        raise ValueError(f"branch_fns keys must be the ints 0 to {len(items) - 1}, got {keys}")
    fns = [fn for _, fn in sorted(items, key=lambda kv: int(kv[0]))]
    for fn in fns + ([default] if default is not None else []):
        if not callable(fn):
            raise TypeError(f"branch function {fn!r} is not callable")
    with name_scope(name):
        idx = convert_to_tensor(branch_index)
        if not idx.dtype.is_integer:
            raise TypeError(f"branch_index must be an integer, got {idx.dtype.name}")
        if default is None:
            default, fns = fns[-1], fns[:-1]
        pairs = [(equal(idx, cast(k, idx.dtype)), fn) for k, fn in enumerate(fns)]
        return case(pairs, default=default, exclusive=False)


def required_space_to_batch_paddings(input_shape: Any, block_shape: Any,
                                     base_paddings: Any = None,
                                     name: Optional[str] = None) -> Tuple[Tensor, Tensor]:
    """The ``(paddings, crops)`` for ``space_to_batch_nd`` / ``batch_to_space_nd``: extra end
    padding making ``input_shape`` plus ``base_paddings`` divisible by ``block_shape``, and
    the crops that remove it again."""
    with name_scope(name or "required_space_to_batch_paddings"):
        shp = cast(convert_to_tensor(input_shape), _dtypes.int32)
        block = cast(convert_to_tensor(block_shape), _dtypes.int32)
        if base_paddings is None:
            base = stack([shp * 0, shp * 0], 1)
        else:
            base = cast(convert_to_tensor(base_paddings), _dtypes.int32)
        start, end = base[:, 0], base[:, 1]
        extra = floormod(block - floormod(shp + start + end, block), block)
        paddings = stack([start, end + extra], 1)
        crops = stack([extra * 0, extra], 1)
        return paddings, crops
