"""Sparse ops whose result is sparse: ``tf.sparse.reduce_sum_sparse`` /
``reduce_max_sparse`` (also ``tf.sparse_reduce_*_sparse``), ``tf.sparse.bincount`` and
``tf.sparse.merge`` (``tf.sparse_merge``).

Each groups the entries by their output index (``unique`` over a linearized index) and
combines each group with a segment op, so only indices that occur appear in the result.
"""

from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.array_indexing_ops import unsorted_segment_sum
from tensorfleet.ops.segment_ops import unsorted_segment_max
from tensorfleet.ops.sparse_ops import sparse_reorder, unique


def _group(indices: Tensor, shape: Tensor, keep: List[int]) -> tuple:
    """``(group of each entry, kept indices of each group [G, len(keep)], kept shape)``."""
    kept_idx = A.gather(indices, keep, axis=1)
    kept_shape = A.gather(shape, keep)
    strides = M.cumprod(kept_shape, exclusive=True, reverse=True)
    linear = M.reduce_sum(M.multiply(kept_idx, strides), 1)
    uniq, group = unique(linear, out_idx=_dtypes.int64)
    # Back from linear index to coordinates.
    coords = M.floormod(M.floordiv(A.expand_dims(uniq, 1), strides), kept_shape)
    return group, coords, kept_shape, A.shape(uniq, out_type=_dtypes.int64)[0]


def _reduce_sparse(sp_input: SparseTensor, axis: Any, keepdims: Optional[bool], how: str,
                   name: Optional[str], default: str) -> SparseTensor:
    if not isinstance(sp_input, SparseTensor):
        raise TypeError(f"{default} takes a SparseTensor, got {type(sp_input).__name__}")
    with name_scope(name, default):
        rank = sp_input.indices.shape.as_list()[1]
        if rank is None:
            raise ValueError(f"{default} needs the rank of the SparseTensor known")
        axes = list(range(rank)) if axis is None else sorted(
            {int(a) % rank for a in np.asarray(axis).reshape(-1)})
        keep = [d for d in range(rank) if d not in axes]
        if not keep:
            values = (M.reduce_sum(sp_input.values) if how == "sum"
                      else M.reduce_max(sp_input.values))
            idx = A.zeros([1, rank if keepdims else 0], _dtypes.int64)
            shape = A.ones([rank], _dtypes.int64) if keepdims else A.zeros([0], _dtypes.int64)
            return SparseTensor(idx, A.reshape(values, [1]), shape)
        group, coords, kept_shape, n = _group(sp_input.indices, sp_input.dense_shape, keep)
        combine = unsorted_segment_sum if how == "sum" else unsorted_segment_max
        values = combine(sp_input.values, group, n)
        if keepdims:
            cols, shape_parts, k = [], [], 0
            for d in range(rank):
                if d in keep:
                    cols.append(coords[:, k])
                    shape_parts.append(kept_shape[k])
                    k += 1
                else:
                    cols.append(A.zeros_like(coords[:, 0]))
                    shape_parts.append(A.ones([], _dtypes.int64))
            coords, kept_shape = A.stack(cols, 1), A.stack(shape_parts)
        return sparse_reorder(SparseTensor(coords, values, kept_shape))


def sparse_reduce_sum_sparse(sp_input: SparseTensor, axis: Any = None,
                             keepdims: Optional[bool] = None,
                             reduction_axes: Any = None, keep_dims: Optional[bool] = None,
                             name: Optional[str] = None) -> SparseTensor:
    """The sum of ``sp_input`` over ``axis`` as a SparseTensor (only the output indices
    that some entry falls in)."""
    axis = reduction_axes if axis is None else axis
    keep = bool(keepdims if keepdims is not None else keep_dims)
    return _reduce_sparse(sp_input, axis, keep, "sum", name, "SparseReduceSumSparse")


def sparse_reduce_max_sparse(sp_input: SparseTensor, axis: Any = None,
                             keepdims: Optional[bool] = None,
                             reduction_axes: Any = None, keep_dims: Optional[bool] = None,
                             name: Optional[str] = None) -> SparseTensor:
    """The maximum of ``sp_input`` over ``axis`` as a SparseTensor."""
    axis = reduction_axes if axis is None else axis
    keep = bool(keepdims if keepdims is not None else keep_dims)
    return _reduce_sparse(sp_input, axis, keep, "max", name, "SparseReduceMaxSparse")


def bincount(values: Any, weights: Any = None, axis: int = 0, minlength: Any = None,
             maxlength: Any = None, binary_output: bool = False,
             name: Optional[str] = None) -> SparseTensor:
    """Counts (or summed ``weights``) of each value, as a SparseTensor: over all of
    ``values`` (``axis=0``) or per row of a 2-D input (``axis=-1``). Values of
    ``maxlength`` or more are dropped; the dense shape is at least ``minlength``."""
    if axis not in (0, -1):
        raise ValueError(f"Unsupported axis value {axis}. Only 0 and -1 are supported.")
    if binary_output and weights is not None:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive.")
    with name_scope(name, "count"):
        sp = values if isinstance(values, SparseTensor) else None
        if sp is None:
            v = convert_to_tensor(values)
            if axis == -1 and v.shape.ndims != 2:
                raise ValueError(f"axis=-1 counts the rows of a 2-D tensor, got {v.shape}")
            flat = A.reshape(v, [-1])
            rows = (A.reshape(A.tile(A.expand_dims(A.range(0, A.shape(v)[0]), 1),
                                     A.stack([1, A.shape(v)[1]])), [-1])
                    if axis == -1 else None)
            w = None if weights is None else A.reshape(convert_to_tensor(weights), [-1])
            nrows = A.shape(v, out_type=_dtypes.int64)[0] if axis == -1 else None
        else:
            flat = sp.values
            rows = sp.indices[:, 0] if axis == -1 else None
            w = None if weights is None else (weights.values if isinstance(
                weights, SparseTensor) else convert_to_tensor(weights))
            nrows = sp.dense_shape[0] if axis == -1 else None
        flat = A.cast(flat, _dtypes.int64)
        # The size counts every value (also those maxlength then drops).
        top = M.add(M.reduce_max(A.concat([flat, A.constant([-1], _dtypes.int64)], 0)), 1)
        keep = M.greater_equal(flat, 0)
        if maxlength is not None:
            keep = M.logical_and(keep, M.less(flat, A.cast(maxlength, _dtypes.int64)))
        flat = A.boolean_mask(flat, keep)
        counts = A.ones_like(flat, dtype=_dtypes.int64) if w is None else A.boolean_mask(w, keep)
        if rows is not None:
            rows = A.boolean_mask(A.cast(rows, _dtypes.int64), keep)
            idx = A.stack([rows, flat], 1)
        else:
            idx = A.expand_dims(flat, 1)
        if minlength is not None:
            top = M.maximum(top, A.cast(minlength, _dtypes.int64))
        if maxlength is not None:
            top = M.minimum(top, A.cast(maxlength, _dtypes.int64))
        shape = A.stack([nrows, top]) if rows is not None else A.reshape(top, [1])
        group, coords, kept_shape, n = _group(idx, shape, list(range(idx.shape.as_list()[1])))
        summed = unsorted_segment_sum(counts, group, n)
        if binary_output:
            summed = A.ones_like(summed)
        return sparse_reorder(SparseTensor(coords, summed, shape))


def sparse_merge(sp_ids: SparseTensor, sp_values: SparseTensor, vocab_size: Any,
                 name: Optional[str] = None, already_sorted: bool = False) -> SparseTensor:
    """The ``[batch, vocab_size]`` SparseTensor with ``sp_values`` placed at column
    ``sp_ids`` of each row (the ids and values of one example share their indices)."""
    if not isinstance(sp_ids, SparseTensor) or not isinstance(sp_values, SparseTensor):
        raise TypeError("sparse_merge takes SparseTensors sp_ids and sp_values")
    if isinstance(vocab_size, (list, tuple)):
        raise ValueError("sparse_merge here takes one sp_ids tensor and an int vocab_size")
    with name_scope(name, "SparseMerge"):
        ids = A.cast(sp_ids.values, _dtypes.int64)
        idx = A.stack([sp_ids.indices[:, 0], ids], 1)
        shape = A.stack([sp_ids.dense_shape[0], A.cast(vocab_size, _dtypes.int64)])
        out = SparseTensor(idx, sp_values.values, shape)
        return out if already_sorted else sparse_reorder(out)
