"""Array ops that select elements: slicing, gathering, padding, masks, ranges and segment ops.

Re-exported by ``array_ops``. This module defines ``range`` and ``slice``, so the
Python builtins are reached through ``_builtin_range`` and ``_pyslice``.
"""

from __future__ import annotations

import builtins
import logging
from typing import Any, List, Optional

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework import graph as _graph
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, unknown_shape
from tensorfleet.ops.array_ops_core import (_axis_tensor, _norm_axis, _scalar_int, cast,
                                            constant, convert_list, expand_dims, ones_like,
                                            partial_values, rank, reshape, shape,
                                            shape_from_tensor, shape_tensor, squeeze, stack)
from tensorfleet.ops.array_concat_ops import concat
from tensorfleet.ops.op_util import const_value, convert_pair, make_op, make_tensor

logger = logging.getLogger(__name__)

_builtin_range = builtins.range
_pyslice = builtins.slice

newaxis = None
"""``tf.newaxis``: inserts a dimension of size 1 when used in an index."""


# -- shape functions -----------------------------------------------------------------------

def _bit(mask: int, i: int) -> bool:
    return bool((mask >> i) & 1)


def sliced_dims(in_shape: TensorShape, bv: List[Optional[int]], ev: List[Optional[int]],
                sv: List[Optional[int]], attrs: dict) -> Optional[List[Optional[int]]]:
    """Static result dims of a strided slice, or None when the rank is unknown."""
    n = len(bv)
    ell, new, shrink = attrs["ellipsis_mask"], attrs["new_axis_mask"], attrs["shrink_axis_mask"]
    bm, em = attrs["begin_mask"], attrs["end_mask"]
    if sum(_bit(ell, i) for i in _builtin_range(n)) > 1:
        raise ValueError("Multiple ellipses in slice spec not allowed")
    rank = in_shape.ndims
    if rank is None:
        return None
    consumed = sum(1 for i in _builtin_range(n) if not _bit(ell, i) and not _bit(new, i))
    if consumed > rank:
        raise ValueError(f"Index out of range using input dim {rank}; input has only {rank} "
                         f"dims but the slice spec indexes {consumed}")
    dims = in_shape.as_list()
    out: List[Optional[int]] = []
    d = 0
    for i in _builtin_range(n):
        if _bit(ell, i):
            k = rank - consumed
            out.extend(dims[d:d + k])
            d += k
            continue
        if _bit(new, i):
            out.append(1)
            continue
        dim = dims[d]
        d += 1
        if _bit(shrink, i):
            b = bv[i]
            if b is not None and dim is not None and not -dim <= b < dim:
                raise ValueError(f"slice index {b} of dimension {d - 1} out of bounds.")
            continue
        st = sv[i]
        if st == 0:
            raise ValueError(f"strides[{i}] must be non-zero")
        b = None if _bit(bm, i) else bv[i]
        e = None if _bit(em, i) else ev[i]
        if dim is None or st is None or (b is None and not _bit(bm, i)) or (
                e is None and not _bit(em, i)):
            out.append(None)
        else:
            out.append(len(_builtin_range(*_pyslice(b, e, st).indices(dim))))
    out.extend(dims[d:])
    return out


def _strided_slice_shape(op: Any) -> List[TensorShape]:
    x, b, e, s = op.inputs[:4]
    vals = [partial_values(t) for t in (b, e, s)]
    n = next((len(v) for v in vals if v is not None), None)
    if n is None:
        return [unknown_shape()]
    vals = [v if v is not None else [None] * n for v in vals]
    dims = sliced_dims(x.shape, vals[0], vals[1], vals[2], op.attrs)
    return [unknown_shape() if dims is None else TensorShape(dims)]


def _slice_shape(op: Any) -> List[TensorShape]:
    x, b, s = op.inputs
    bv, sv = partial_values(b), partial_values(s)
    r = x.shape.ndims
    n = next((len(v) for v in (bv, sv) if v is not None), r)
    if r is not None and n is not None and n != r:
        raise ValueError(f"Length of begin/size ({n}) must equal the rank of the input ({r})")
    if n is None:
        return [unknown_shape()]
    bv, sv = bv or [None] * n, sv or [None] * n
    dims = x.shape.as_list() if r is not None else [None] * n
    out: List[Optional[int]] = []
    for i, (b, sz, d) in enumerate(zip(bv, sv, dims)):
        if b is not None and d is not None and not 0 <= b <= d:
            raise ValueError(f"Expected begin[{i}] in [0, {d}], but got {b}")
        if sz is not None and sz != -1 and b is not None and d is not None and (
                sz < 0 or b + sz > d):
            raise ValueError(f"Expected size[{i}] in [0, {d - b}], but got {sz}")
        if sz == -1:
            out.append(None if b is None or d is None else d - b)
        else:
            out.append(sz)
    return [TensorShape(out)]


def _gather_shape(op: Any) -> List[TensorShape]:
    p, i, a = op.inputs
    axis = _scalar_int(a)
    if p.shape.ndims is None or i.shape.ndims is None or axis is None:
        return [unknown_shape()]
    axis = _norm_axis(axis, p.shape.ndims)
    pd = p.shape.as_list()
    return [TensorShape(pd[:axis] + i.shape.as_list() + pd[axis + 1:])]


def _one_hot_shape(op: Any) -> List[TensorShape]:
    s = op.inputs[0].shape
    depth = _scalar_int(op.inputs[1])
    if depth is not None and depth < 0:
        raise ValueError(f"depth must be non-negative, got {depth}")
    if s.ndims is None:
        return [unknown_shape()]
    dims = s.as_list()
    axis = op.attrs["axis"]
    if not -1 <= axis <= len(dims):
        raise ValueError(f"axis {axis} must be in [-1, {len(dims)}]")
    pos = len(dims) if axis == -1 else axis
    return [TensorShape(dims[:pos] + [depth] + dims[pos:])]


def _tile_shape(op: Any) -> List[TensorShape]:
    x, m = op.inputs
    mv = partial_values(m)
    r = x.shape.ndims
    if mv is None:
        return [unknown_shape(r)]
    if r is not None and len(mv) != r:
        raise ValueError(f"Shape must be rank {r} but multiples has length {len(mv)}")
    dims = x.shape.as_list() if r is not None else [None] * len(mv)
    return [TensorShape([None if d is None or k is None else d * k for d, k in zip(dims, mv)])]


def _pad_shape(op: Any) -> List[TensorShape]:
    x, p = op.inputs[:2]
    r = x.shape.ndims
    if p.shape.ndims is not None and not p.shape.is_compatible_with([r, 2]):
        raise ValueError(f"paddings must be of shape [{r if r is not None else '?'}, 2], got "
                         f"{p.shape}")
    pv = const_value(p)
    if pv is None or r is None:
        return [unknown_shape(r)]
    pv = np.asarray(pv).reshape(-1, 2)
    if (pv < 0).any():
        raise ValueError(f"paddings must be non-negative, got {pv.tolist()}")
    mode = op.attrs.get("mode")
    out = []
    for d, (b, a) in zip(x.shape.as_list(), pv.tolist()):
        if d is not None and mode is not None:
            limit = d - 1 if mode == "REFLECT" else d
            if b > limit or a > limit:
                raise ValueError(f"paddings {[b, a]} must be no greater than {limit} for a "
                                 f"dimension of size {d} in {mode} mode")
        out.append(None if d is None else d + b + a)
    return [TensorShape(out)]


def _mirror_pad_grad_shape(op: Any) -> List[TensorShape]:
    g, p = op.inputs
    pv = const_value(p)
    if pv is None or g.shape.ndims is None:
        return [unknown_shape(g.shape.ndims)]
    pads = np.asarray(pv).reshape(-1, 2).sum(axis=1).tolist()
    return [TensorShape([None if d is None else d - k for d, k in zip(g.shape.as_list(), pads)])]


def _range_len(start: Any, limit: Any, delta: Any) -> int:
    if delta == 0:
        raise ValueError("Requires delta != 0")
    if delta > 0 and start > limit:
        raise ValueError(f"Requires start <= limit when delta > 0: {start}/{limit}")
    if delta < 0 and start < limit:
        raise ValueError(f"Requires start >= limit when delta < 0: {start}/{limit}")
    return int(np.ceil(abs((limit - start) / delta)))


def _range_shape(op: Any) -> List[TensorShape]:
    vals = [const_value(t) for t in op.inputs]
    if any(v is None for v in vals):
        return [TensorShape([None])]
    return [TensorShape([_range_len(*[np.asarray(v).item() for v in vals])])]


def _select_shape(op: Any) -> List[TensorShape]:
    c, x, y = op.inputs
    try:
        out = x.shape.merge_with(y.shape)
    except ValueError:
        raise ValueError(f"x and y must have the same shape, got {x.shape} and {y.shape}") from None
    cs = c.shape
    if cs.ndims is not None and out.ndims is not None:
        if cs.ndims == 1 and out.ndims > 1:
            if not TensorShape([cs[0]]).is_compatible_with([out[0]]):
                raise ValueError(f"condition of shape {cs} must match the first dimension of "
                                 f"x and y, which have shape {out}")
        else:
            try:
                out = out.merge_with(cs)
            except ValueError:
                raise ValueError(f"condition must have the shape of x and y or be a vector: "
                                 f"{cs} vs. {out}") from None
    return [out]


def _prefix_check(data: TensorShape, ids: TensorShape, what: str) -> None:
    if data.ndims is not None and ids.ndims is not None:
        if not TensorShape(data.as_list()[:ids.ndims]).is_compatible_with(ids):
            raise ValueError(f"{what} shape {ids} must be a prefix of data shape {data}")


def _segment_sum_shape(op: Any) -> List[TensorShape]:
    data, ids, n = op.inputs
    _prefix_check(data.shape, ids.shape, "segment_ids")
    num = _scalar_int(n)
    if data.shape.ndims is None or ids.shape.ndims is None:
        return [unknown_shape()]
    return [TensorShape([num] + data.shape.as_list()[ids.shape.ndims:])]


def _partition_shape(op: Any) -> List[TensorShape]:
    data, p = op.inputs
    _prefix_check(data.shape, p.shape, "partitions")
    if data.shape.ndims is None or p.shape.ndims is None:
        return [unknown_shape() for _ in op.outputs]
    return [TensorShape([None] + data.shape.as_list()[p.shape.ndims:]) for _ in op.outputs]


def _stitch_shape(op: Any) -> List[TensorShape]:
    n = op.attrs["N"]
    idx, data = op.inputs[:n], op.inputs[n:]
    for i, d in zip(idx, data):
        _prefix_check(d.shape, i.shape, "indices")
    vals = [const_value(i) for i in idx]
    size = None
    if all(v is not None for v in vals):
        size = max([int(np.max(v)) + 1 for v in vals if np.size(v)] + [0])
    i0, d0 = idx[0].shape, data[0].shape
    if i0.ndims is None or d0.ndims is None:
        return [unknown_shape()]
    return [TensorShape([size] + d0.as_list()[i0.ndims:])]


register_op("Slice", _slice_shape)
register_op("StridedSlice", _strided_slice_shape)
register_op("StridedSliceGrad", lambda op: [shape_from_tensor(op.inputs[0])])
register_op("GatherV2", _gather_shape)
register_op("OneHot", _one_hot_shape)
register_op("Tile", _tile_shape)
register_op("Pad", _pad_shape)
register_op("PadV2", _pad_shape)
register_op("MirrorPad", _pad_shape)
register_op("MirrorPadGrad", _mirror_pad_grad_shape)
register_op("Range", _range_shape)
register_op("Where", lambda op: [TensorShape([None, op.inputs[0].shape.ndims])])
register_op("Select", _select_shape)
register_op("UnsortedSegmentSum", _segment_sum_shape)
register_op("DynamicPartition", _partition_shape)
register_op("DynamicStitch", _stitch_shape)


# -- slicing ---------------------------------------------------------------------------------

def _int_vector(v: Any, name: str) -> Tensor:
    if isinstance(v, Tensor):
        return v
    return shape_tensor(list(v) if isinstance(v, (list, tuple)) else v, name=name)


def slice(input_: Any, begin: Any, size: Any, name: Optional[str] = None) -> Tensor:
    """The block of ``input_`` starting at ``begin`` of extent ``size`` (-1: to the end)."""
    x = convert_to_tensor(input_)
    return make_tensor("Slice", [x, _int_vector(begin, "begin"), _int_vector(size, "size")],
                       x.dtype, name=name or "Slice")


def strided_slice(input_: Any, begin: Any, end: Any, strides: Any = None, begin_mask: int = 0,
                  end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0,
                  shrink_axis_mask: int = 0, var: Any = None,
                  name: Optional[str] = None) -> Tensor:
    """``input_[begin:end:strides]`` per dimension, with TF's mask encoding of the spec."""
    x = convert_to_tensor(input_)
    tb, te = _int_vector(begin, "begin"), _int_vector(end, "end")
    ts = ones_like(tb) if strides is None else _int_vector(strides, "strides")
    attrs = {"begin_mask": int(begin_mask), "end_mask": int(end_mask),
             "ellipsis_mask": int(ellipsis_mask), "new_axis_mask": int(new_axis_mask),
             "shrink_axis_mask": int(shrink_axis_mask)}
    return make_tensor("StridedSlice", [x, tb, te, ts], x.dtype, attrs,
                       name=name or "strided_slice")


def _check_index(v: Any) -> Any:
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, Tensor) and v.dtype in (_dtypes.int32, _dtypes.int64) and (
            v.shape.ndims in (None, 0)):
        return v
    raise TypeError("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                    f"scalar tf.int32/tf.int64 tensors are valid indices, got {v!r}")


def _getitem(tensor: Tensor, slice_spec: Any) -> Tensor:
    """``tensor[spec]``: numpy-style basic indexing, lowered to one StridedSlice."""
    spec = slice_spec if isinstance(slice_spec, tuple) else (slice_spec,)
    begin: List[Any] = []
    end: List[Any] = []
    strides: List[Any] = []
    masks = {"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0, "new_axis_mask": 0,
             "shrink_axis_mask": 0}
    for i, s in enumerate(spec):
        bit = 1 << i
        if isinstance(s, _pyslice):
            if s.start is None:
                begin.append(0)
                masks["begin_mask"] |= bit
            else:
                begin.append(_check_index(s.start))
            if s.stop is None:
                end.append(0)
                masks["end_mask"] |= bit
            else:
                end.append(_check_index(s.stop))
            strides.append(1 if s.step is None else _check_index(s.step))
        elif s is Ellipsis or s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            masks["ellipsis_mask" if s is Ellipsis else "new_axis_mask"] |= bit
        else:
            idx = _check_index(s)
            begin.append(idx)
            # The kernel reads only begin on shrunk axes; end is kept for TF's layout.
            end.append(idx + 1 if isinstance(idx, int) else 0)
            strides.append(1)
            masks["shrink_axis_mask"] |= bit
    if masks["ellipsis_mask"] & (masks["ellipsis_mask"] - 1):
        raise ValueError("Multiple ellipses in slice spec not allowed")
    vecs = []
    dt = next((v.dtype for v in begin + end + strides if isinstance(v, Tensor)), _dtypes.int32)
    for name, vals in (("begin", begin), ("end", end), ("strides", strides)):
        if any(isinstance(v, Tensor) for v in vals):
            vecs.append(make_tensor("Pack", convert_list(vals, dt), dt,
                                    {"N": len(vals), "axis": 0}, name="stack"))
        else:
            vecs.append(constant(np.array(vals, dtype=dt.np).reshape([len(vals)]), name=name))
    return make_tensor("StridedSlice", [tensor] + vecs, tensor.dtype, masks, name="strided_slice")


Tensor._override_operator("__getitem__", _getitem)


# -- gathering and scattering ----------------------------------------------------------------

def gather(params: Any, indices: Any, validate_indices: Any = None, name: Optional[str] = None,
           axis: Any = 0) -> Tensor:
    """Rows (slices along ``axis``) of ``params`` at ``indices``."""
    p = convert_to_tensor(params)
    i = convert_to_tensor(indices)
    if not i.dtype.is_integer:
        raise TypeError(f"indices of gather must be int32 or int64, got {i.dtype.name}")
    return make_tensor("GatherV2", [p, i, _axis_tensor(axis)], p.dtype, name=name or "GatherV2")


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
        # The product of the batch dimensions, multiplied out here because the reductions
        # (math_ops_reduce) are built on this module.
        batch = ps[0]
        for k in _builtin_range(1, b):
            batch = batch * ps[k]
        n = ps[b]
        flat_p = reshape(p, concat([stack([batch * n]), ps[b + 1:]], 0))
        offsets = expand_dims(range(batch) * n, 1)
        flat_i = reshape(i, stack([batch, -1])) + cast(offsets, i.dtype)
        out = gather(flat_p, flat_i)
        out = reshape(out, concat([shape(i, out_type=i.dtype), ps[b + 1:]], 0))
        if p.shape.ndims is not None:
            out.set_shape(i.shape.concatenate(p.shape[b + 1:]))
        return out


def unsorted_segment_sum(data: Any, segment_ids: Any, num_segments: Any,
                         name: Optional[str] = None) -> Tensor:
    """Sums of ``data`` rows grouped by ``segment_ids``; negative ids are dropped."""
    d = convert_to_tensor(data)
    ids = convert_to_tensor(segment_ids)
    n = num_segments if isinstance(num_segments, Tensor) else convert_to_tensor(
        num_segments, dtype=ids.dtype)
    return make_tensor("UnsortedSegmentSum", [d, ids, n], d.dtype,
                       name=name or "UnsortedSegmentSum")


def dynamic_partition(data: Any, partitions: Any, num_partitions: int,
                      name: Optional[str] = None) -> List[Tensor]:
    """Splits ``data`` into ``num_partitions`` tensors by the partition index of each row."""
    d = convert_to_tensor(data)
    p = convert_to_tensor(partitions)
    n = int(num_partitions)
    if n < 1:
        raise ValueError(f"num_partitions must be at least 1, got {n}")
    op = make_op("DynamicPartition", [d, p], [d.dtype] * n, {"num_partitions": n},
                 name=name or "DynamicPartition")
    return list(op.outputs)


def dynamic_stitch(indices: List[Any], data: List[Any], name: Optional[str] = None) -> Tensor:
    """Interleaves ``data`` tensors into one: ``merged[indices[m][i]] = data[m][i]``."""
    if len(indices) != len(data) or not indices:
        raise ValueError(f"dynamic_stitch needs as many indices as data tensors (at least one), "
                         f"got {len(indices)} and {len(data)}")
    idx = [convert_to_tensor(i) for i in indices]
    ds = convert_list(list(data), op_name="DynamicStitch")
    return make_tensor("DynamicStitch", idx + ds, ds[0].dtype, {"N": len(idx)},
                       name=name or "DynamicStitch")


# -- building tensors ---------------------------------------------------------------------------

def one_hot(indices: Any, depth: Any, on_value: Any = None, off_value: Any = None,
            axis: Optional[int] = None, dtype: Any = None, name: Optional[str] = None) -> Tensor:
    """One-hot encoding: ``on_value`` where ``indices == j`` along the new ``axis``."""
    ind = convert_to_tensor(indices)
    first = on_value if on_value is not None else off_value
    if dtype is not None:
        dt = _dtypes.as_dtype(dtype)
    elif first is not None:
        dt = (_dtypes.dtype_of_value(first) if isinstance(first, (int, float, np.ndarray,
                                                                  np.generic))
              else convert_to_tensor(first).dtype)
    else:
        dt = _dtypes.float32
    on = convert_to_tensor(1 if on_value is None else on_value, dtype=dt)
    off = convert_to_tensor(0 if off_value is None else off_value, dtype=dt)
    depth_t = convert_to_tensor(depth, dtype=_dtypes.int32) if not isinstance(
        depth, Tensor) else depth
    return make_tensor("OneHot", [ind, depth_t, on, off], dt,
                       {"axis": -1 if axis is None else int(axis)}, name=name or "one_hot")


def tile(input: Any, multiples: Any, name: Optional[str] = None) -> Tensor:
    """``input`` repeated ``multiples[i]`` times along each dimension ``i``."""
    x = convert_to_tensor(input)
    return make_tensor("Tile", [x, _int_vector(multiples, "multiples")], x.dtype,
                       name=name or "Tile")


def pad(tensor: Any, paddings: Any, mode: str = "CONSTANT", name: Optional[str] = None,
        constant_values: Any = 0) -> Tensor:
    """Pads dimension i of ``tensor`` by ``paddings[i] = [before, after]``.

    ``mode`` is CONSTANT (with ``constant_values``), REFLECT or SYMMETRIC.
    """
    x = convert_to_tensor(tensor)
    p = paddings if isinstance(paddings, Tensor) else constant(
        np.asarray(paddings, dtype=np.int64).reshape(-1, 2).astype(np.int32), name="paddings")
    mode = mode.upper()
    if mode == "CONSTANT":
        if not isinstance(constant_values, Tensor) and np.all(np.asarray(constant_values) == 0):
            return make_tensor("Pad", [x, p], x.dtype, name=name or "Pad")
        c = convert_to_tensor(constant_values, dtype=x.dtype)
        return make_tensor("PadV2", [x, p, c], x.dtype, name=name or "PadV2")
    if mode in ("REFLECT", "SYMMETRIC"):
        return make_tensor("MirrorPad", [x, p], x.dtype, {"mode": mode}, name=name or "MirrorPad")
    raise ValueError(f"Unknown padding mode: {mode!r}; expected CONSTANT, REFLECT or SYMMETRIC")


_RANGE_ORDER = [_dtypes.int32, _dtypes.int64, _dtypes.float32, _dtypes.float64]


def range(start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None,
          name: str = "range") -> Tensor:
    """``[start, start + delta, ...)`` up to but excluding ``limit`` (``range(n)``: 0..n-1)."""
    if limit is None:
        start, limit = 0, start
    args = [start, limit, delta]
    if dtype is not None:
        dt = _dtypes.as_dtype(dtype)
    else:
        kinds = []
        for a in args:
            if isinstance(a, Tensor):
                kinds.append(a.dtype)
            else:
                kinds.append(_dtypes.float32 if np.asarray(a).dtype.kind == "f" else _dtypes.int32)
        dt = max(kinds, key=lambda d: _RANGE_ORDER.index(d) if d in _RANGE_ORDER else 0)
    ts = [cast(a, dt) if isinstance(a, Tensor) else convert_to_tensor(a, dtype=dt) for a in args]
    return make_tensor("Range", ts, dt, {"Tidx": dt}, name=name)


def transpose(a: Any, perm: Any = None, name: str = "transpose",
              conjugate: bool = False) -> Tensor:
    """Permutes the dimensions of ``a``; reverses them when ``perm`` is None."""
    x = convert_to_tensor(a)
    if perm is None:
        r = x.shape.ndims
        if r is not None:
            perm = constant(np.arange(r - 1, -1, -1, dtype=np.int32))
        else:
            # Rank known only at run time: perm = (rank - 1) - range(rank).
            n = rank(x)
            perm = (n - 1) - range(n)
    elif not isinstance(perm, Tensor):
        perm = constant(np.asarray(perm, dtype=np.int32).reshape(-1))
    return make_tensor("Transpose", [x, perm], x.dtype, name=name)


def where(condition: Any, x: Any = None, y: Any = None, name: Optional[str] = None) -> Tensor:
    """With x and y: elements of x where ``condition`` else y; alone: the true coordinates."""
    c = convert_to_tensor(condition)
    if x is None and y is None:
        return make_tensor("Where", [c], _dtypes.int64, name=name or "Where")
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    if c.dtype is not _dtypes.bool:
        raise TypeError(f"condition of where must be bool, got {c.dtype.name}")
    tx, ty = convert_pair(x, y)
    return make_tensor("Select", [c, tx, ty], tx.dtype, name=name or "Select")


def boolean_mask(tensor: Any, mask: Any, name: str = "boolean_mask", axis: Any = None) -> Tensor:
    """The entries of ``tensor`` where ``mask`` is true, the masked dims flattened into one."""
    t = convert_to_tensor(tensor)
    m = convert_to_tensor(mask)
    k = m.shape.ndims
    if k is None:
        raise ValueError("Number of mask dimensions must be specified, even if some dimensions "
                         "are None. E.g. shape=[None] is ok, but shape=None is not.")
    if k == 0:
        raise ValueError("mask cannot be scalar.")
    a = 0 if axis is None else int(axis)
    r = t.shape.ndims
    if r is not None:
        if a < 0:
            a += r
        t.shape[a:a + k].assert_is_compatible_with(m.shape)
    elif a < 0:
        raise ValueError(f"boolean_mask needs a non-negative axis when the rank of {t.name} "
                         f"is unknown, got {a}")
    with _graph.get_default_graph().name_scope(name):
        known = t.shape.as_list() if r is not None else None
        dyn: List[Tensor] = []

        def dyn_shape() -> Tensor:
            if not dyn:
                dyn.append(shape(t))
            return dyn[0]

        lead = [known[i] if known is not None and known[i] is not None else dyn_shape()[i]
                for i in _builtin_range(a)]
        if known is not None and None not in known[a + k:]:
            new_shape = shape_tensor(lead + [-1] + known[a + k:])
        else:
            new_shape = concat([shape_tensor(lead + [-1]), dyn_shape()[a + k:]], 0)
        flat = reshape(t, new_shape)
        idx = squeeze(where(reshape(m, [-1])), axis=[1])
        return gather(flat, idx, axis=a)


# -- IndexedSlices as a dense tensor ------------------------------------------------------

def _indexed_slices_to_dense(value: IndexedSlices, dtype: Any = None, name: Optional[str] = None,
                             as_ref: bool = False) -> Tensor:
    if dtype is not None and _dtypes.as_dtype(dtype) is not value.dtype:
        raise ValueError(f"Tensor conversion requested dtype {_dtypes.as_dtype(dtype).name} for "
                         f"IndexedSlices with dtype {value.dtype.name}")
    if value.dense_shape is None:
        raise ValueError(f"Tensor conversion requested for IndexedSlices without dense_shape: "
                         f"{value!r}")
    ds = value.dense_shape
    known = const_value(ds)
    n = int(known[0]) if known is not None else ds[0]
    out = unsorted_segment_sum(value.values, value.indices, n, name=name)
    if known is not None:
        out.set_shape([int(v) for v in known])
    return out


_graph.register_tensor_conversion_function(IndexedSlices, _indexed_slices_to_dense)


__all__ = [
    "newaxis", "slice", "strided_slice", "gather", "batch_gather", "unsorted_segment_sum",
    "dynamic_partition", "dynamic_stitch", "one_hot", "tile", "pad", "range", "transpose", "where",
    "boolean_mask",
]
