"""The functions of ``tf.ragged``: building ragged tensors from nested Python lists
(``constant``, ``constant_value``) or placeholders, ``map_flat_values``, ``range``,
``boolean_mask``, ``stack``, ``stack_dynamic_partitions`` and feature crosses
(``cross``, ``cross_hashed``)."""

from __future__ import annotations

import builtins
from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.array_concat_ops import concat
from tensorfleet.ops.array_indexing_ops import dynamic_partition, unsorted_segment_sum
from tensorfleet.ops.hash_ops import sparse_cross, sparse_cross_hashed
from tensorfleet.ops.ragged_tensor import (RaggedTensor, RaggedTensorValue,
                                           row_splits_to_segment_ids)

_MAX_DEPTH = 64


def _depth(x: Any, level: int = 0) -> int:
    if level > _MAX_DEPTH:
        raise ValueError(f"a ragged constant nests more than {_MAX_DEPTH} levels")
    if isinstance(x, (list, tuple)):
        depths = [_depth(v, level + 1) for v in x]
        return 1 + (max(depths) if depths else 0)
    if isinstance(x, np.ndarray):
        return x.ndim
    return 0


def _split_nested(pylist: Any, ragged_rank: int) -> tuple:
    """``(flat_values, [row_splits outermost first])`` of a nested list."""
    splits: List[List[int]] = []
    level = list(pylist)
    for _ in builtins.range(ragged_rank):
        s, nxt = [0], []
        for row in level:
            if not isinstance(row, (list, tuple, np.ndarray)):
                raise ValueError(f"a ragged constant of ragged_rank {ragged_rank} needs "
                                 f"lists at every ragged level, got {row!r}")
            for item in row:
                nxt.append(item)
            s.append(len(nxt))
        splits.append(s)
        level = nxt
    return level, splits


def _parts(pylist: Any, ragged_rank: Optional[int], inner_shape: Any) -> tuple:
    if not isinstance(pylist, (list, tuple)):
        raise TypeError(f"a ragged constant is built from a nested list, got {pylist!r}")
    depth = _depth(pylist)
    inner = len(inner_shape) if inner_shape is not None else 0
    rr = ragged_rank if ragged_rank is not None else max(depth - 1 - inner, 1)
    if rr < 1 or rr >= max(depth, 2):
        raise ValueError(f"ragged_rank must be in [1, {max(depth - 1, 1)}] for this list, got "
                         f"{ragged_rank}")
    leaves, splits = _split_nested(pylist, rr)
    return leaves, splits, rr


def constant(pylist: Any, dtype: Any = None, ragged_rank: Optional[int] = None,
             inner_shape: Any = None, name: Optional[str] = None,
             row_splits_dtype: Any = _dtypes.int64) -> RaggedTensor:
    """A ragged tensor of the nested Python list ``pylist`` (``[[1, 2], [], [3]]``)."""
    leaves, splits, _ = _parts(pylist, ragged_rank, inner_shape)
    with name_scope(name, "RaggedConstant"):
        if leaves:
            values = A.constant(leaves, dtype=dtype)
        else:
            shape = [0] + list(inner_shape or [])
            values = A.zeros(shape, dtype=dtype or _dtypes.float32)
        if inner_shape is not None and values.shape.as_list()[1:] != list(inner_shape):
            raise ValueError(f"the values' inner shape {values.shape.as_list()[1:]} is not "
                             f"inner_shape {list(inner_shape)}")
        rsd = _dtypes.as_dtype(row_splits_dtype)
        return RaggedTensor.from_nested_row_splits(
            values, [np.asarray(s, rsd.np) for s in splits], validate=False)


def constant_value(pylist: Any, dtype: Any = None, ragged_rank: Optional[int] = None,
                   inner_shape: Any = None,
                   row_splits_dtype: Any = "int64") -> RaggedTensorValue:
    """The numpy ``RaggedTensorValue`` of a nested Python list."""
    leaves, splits, _ = _parts(pylist, ragged_rank, inner_shape)
    np_dtype = _dtypes.as_dtype(dtype).np if dtype is not None else None
    out: Any = np.asarray(leaves, dtype=np_dtype) if leaves else np.zeros(
        [0] + list(inner_shape or []), dtype=np_dtype or np.float64)
    rsd = _dtypes.as_dtype(row_splits_dtype).np
    for s in reversed(splits):
        out = RaggedTensorValue(out, np.asarray(s, rsd))
    return out


def placeholder(dtype: Any, ragged_rank: int, value_shape: Any = None,
                name: Optional[str] = None) -> RaggedTensor:
    """A ragged tensor fed through ``feed_dict`` with a ``RaggedTensorValue``."""
    if int(ragged_rank) < 1:
        raise ValueError(f"ragged_rank must be at least 1, got {ragged_rank}")
    with name_scope(name, "RaggedPlaceholder"):
        shape = [None] + list(value_shape or [])
        out: Any = A.placeholder(dtype, shape, name="flat_values")
        for i in builtins.range(int(ragged_rank)):
            splits = A.placeholder(_dtypes.int64, [None], name=f"row_splits_{i}")
            out = RaggedTensor.from_row_splits(out, splits, validate=False)
        return out


def map_flat_values(op: Callable, *args: Any, **kwargs: Any) -> Any:
    """``op`` applied to the flat values of the ragged arguments, the result given their
    (shared) row partitions."""
    partitions: List[tuple] = []

    def flat(x: Any) -> Any:
        if isinstance(x, RaggedTensor):
            partitions.append(x.nested_row_splits)
            return x.flat_values
        if isinstance(x, (list, tuple)):
            return type(x)(flat(v) for v in x)
        if isinstance(x, dict):
            return {k: flat(v) for k, v in x.items()}
        return x

    new_args = [flat(a) for a in args]
    new_kwargs = {k: flat(v) for k, v in kwargs.items()}
    if not partitions:
        return op(*args, **kwargs)
    out = op(*new_args, **new_kwargs)
    return RaggedTensor.from_nested_row_splits(out, partitions[0], validate=False)


def range(starts: Any, limits: Any = None, deltas: Any = 1, dtype: Any = None,  # noqa: A001
          name: Optional[str] = None, row_splits_dtype: Any = _dtypes.int64) -> RaggedTensor:
    """Row ``i`` is ``range(starts[i], limits[i], deltas[i])`` (with one argument,
    ``range(0, starts[i])``); the arguments broadcast."""
    with name_scope(name, "RaggedRange"):
        if limits is None:
            starts, limits = 0, starts
        lim = convert_to_tensor(limits, dtype=dtype)
        dt = lim.dtype
        st = convert_to_tensor(starts, dtype=dt)
        dl = convert_to_tensor(deltas, dtype=dt)
        zero = A.zeros_like(st) + A.zeros_like(lim) + A.zeros_like(dl)
        st, lim, dl = st + zero, lim + zero, dl + zero
        if st.shape.ndims not in (None, 0, 1):
            raise ValueError(f"starts, limits and deltas must be scalars or vectors, got "
                             f"{st.shape}")
        st, lim, dl = (A.reshape(t, [-1]) for t in (st, lim, dl))
        span = A.cast(M.subtract(lim, st), _dtypes.float64)
        counts = M.maximum(M.ceil(M.div(span, A.cast(dl, _dtypes.float64))), 0.0)
        lengths = A.cast(counts, _dtypes.int64)
        rt = RaggedTensor.from_row_lengths(A.zeros([0], dt), lengths, validate=False)
        splits = rt.row_splits
        rowids = row_splits_to_segment_ids(splits)
        offset = A.cast(A.range(0, splits[-1], dtype=_dtypes.int64) - A.gather(splits, rowids),
                        dt)
        values = A.gather(st, rowids) + A.gather(dl, rowids) * offset
        return RaggedTensor.from_row_splits(values, A.cast(splits, row_splits_dtype),
                                            validate=False)


def _as_ragged(x: Any) -> RaggedTensor:
    return x if isinstance(x, RaggedTensor) else RaggedTensor.from_tensor(x)


def boolean_mask(data: Any, mask: Any, name: Optional[str] = None) -> Any:
    """The entries of ``data`` where ``mask`` is true: a rank-1 mask keeps rows, a mask of
    the rows' shape keeps values within each row (the result is ragged)."""
    with name_scope(name, "RaggedMask"):
        m = mask if isinstance(mask, RaggedTensor) else convert_to_tensor(mask)
        if m.dtype is not _dtypes.bool:
            raise TypeError(f"mask must be a bool tensor, got {m.dtype.name}")
        rank = 2 if isinstance(m, RaggedTensor) else m.shape.ndims
        if rank == 1:
            if not isinstance(data, RaggedTensor):
                return A.boolean_mask(data, m)
            keep_values = A.gather(m, data.value_rowids())
            return RaggedTensor.from_row_lengths(A.boolean_mask(data.values, keep_values)
                                                 if not isinstance(data.values, RaggedTensor)
                                                 else _mask_rows(data.values, keep_values),
                                                 A.boolean_mask(data.row_lengths(), m),
                                                 validate=False)
        if rank != 2:
            raise ValueError(f"boolean_mask takes a mask of rank 1 or 2 (one ragged "
                             f"dimension), got rank {rank}")
        d, mk = _as_ragged(data), _as_ragged(m)
        keep = A.cast(mk.values, _dtypes.int64)
        values = A.boolean_mask(d.values, mk.values)
        lengths = unsorted_segment_sum(keep, mk.value_rowids(), mk.nrows())
        return RaggedTensor.from_row_lengths(values, lengths, validate=False)


def _mask_rows(rt: RaggedTensor, keep: Tensor) -> RaggedTensor:
    """The rows of ``rt`` where ``keep``."""
    return boolean_mask(rt, keep)


def stack(values: Sequence[Any], axis: int = 0, name: Optional[str] = None) -> RaggedTensor:
    """Ragged (or dense) tensors of one ragged dimension stacked along a new outermost
    axis: ``[k, (rows), (values), ...]``."""
    if axis != 0:
        raise ValueError(f"ragged stack here stacks along axis 0, got axis={axis}")
    if not values:
        raise ValueError("stack needs at least one tensor")
    with name_scope(name, "RaggedStack"):
        rts = [_as_ragged(v) for v in values]
        if any(isinstance(r.values, RaggedTensor) for r in rts):
            raise ValueError("ragged stack takes tensors of ragged_rank 1")
        inner_splits, offset, outer = [A.zeros([1], _dtypes.int64)], None, [0]
        for r in rts:
            s = A.cast(r.row_splits, _dtypes.int64)
            inner_splits.append(s[1:] if offset is None else s[1:] + offset)
            offset = (s[-1] if offset is None else offset + s[-1])
            outer.append(r.nrows(_dtypes.int64))
        outer_splits = M.cumsum(A.stack([A.zeros([], _dtypes.int64)] + outer[1:]))
        flat = concat([r.values for r in rts], 0)
        return RaggedTensor.from_nested_row_splits(
            flat, [outer_splits, concat(inner_splits, 0)], validate=False)


def stack_dynamic_partitions(data: Any, partitions: Any, num_partitions: int,
                             name: Optional[str] = None) -> RaggedTensor:
    """The rows of ``data`` grouped by ``partitions``: row ``p`` of the result holds the
    items of partition ``p`` in order."""
    with name_scope(name, "SegmentStack"):
        parts = dynamic_partition(data, partitions, int(num_partitions))
        lengths = A.stack([A.shape(p, out_type=_dtypes.int64)[0] for p in parts])
        return RaggedTensor.from_row_lengths(concat(parts, 0), lengths, validate=False)


def _sparse_inputs(inputs: Sequence[Any]) -> List[Any]:
    out = []
    for x in inputs:
        if isinstance(x, RaggedTensor):
            out.append(x.to_sparse())
        elif isinstance(x, SparseTensor):
            out.append(x)
        else:
            out.append(convert_to_tensor(x))
    return out


def cross(inputs: Sequence[Any], name: Optional[str] = None) -> RaggedTensor:
    """The string crosses of the features in each row of ``inputs`` (ragged, sparse or
    dense), as ``tf.sparse.cross`` computes them, as a ragged tensor."""
    with name_scope(name, "RaggedCross"):
        return RaggedTensor.from_sparse(sparse_cross(_sparse_inputs(inputs)))


def cross_hashed(inputs: Sequence[Any], num_buckets: int = 0, hash_key: Optional[int] = None,
                 name: Optional[str] = None) -> RaggedTensor:
    """``cross`` with each combination hashed to an int64 bucket."""
    with name_scope(name, "RaggedCross"):
        return RaggedTensor.from_sparse(sparse_cross_hashed(_sparse_inputs(inputs),
                                                            num_buckets, hash_key))
