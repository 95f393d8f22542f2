"""Sparse tensors made from other values: ``tf.sparse.from_dense``, ``tf.sparse.eye``,
``tf.sparse.expand_dims`` and ``tf.sparse.mask`` (``tf.sparse_mask``), composed of
existing ops."""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.array_concat_ops import concat
from tensorfleet.ops.array_indexing_ops import gather, range as _range, where
from tensorfleet.ops.scatter_ops import gather_nd, setdiff1d


def from_dense(tensor: Any, name: Optional[str] = None) -> SparseTensor:
    """The non-zero (non-empty for strings) entries of ``tensor`` as a SparseTensor."""
    with name_scope(name, "dense_to_sparse"):
        x = convert_to_tensor(tensor, name="tensor")
        zero = A.constant(b"" if x.dtype is _dtypes.string else 0, dtype=x.dtype)
        indices = where(M.not_equal(x, zero))
        return SparseTensor(indices, gather_nd(x, indices), A.shape(x, out_type=_dtypes.int64))


def eye(num_rows: Any, num_columns: Any = None, dtype: Any = _dtypes.float32,
        name: Optional[str] = None) -> SparseTensor:
    """A ``[num_rows, num_columns]`` SparseTensor with ones on the diagonal."""
    with name_scope(name, "eye"):
        rows = A.cast(convert_to_tensor(num_rows, name="num_rows"), _dtypes.int64)
        cols = rows if num_columns is None else A.cast(
            convert_to_tensor(num_columns, name="num_columns"), _dtypes.int64)
        n = M.minimum(rows, cols)
        diag = _range(n)
        indices = A.stack([diag, diag], axis=1)
        return SparseTensor(indices, A.ones(A.expand_dims(n, 0), dtype=dtype),
                            A.stack([rows, cols]))


def expand_dims(sp_input: SparseTensor, axis: Optional[int] = None,
                name: Optional[str] = None) -> SparseTensor:
    """``sp_input`` with a dimension of size 1 inserted at ``axis`` (-1: the end).

    Raises:
      TypeError: ``sp_input`` is not a SparseTensor.
      ValueError: ``axis`` out of range, or a negative axis of an input of unknown rank.
    """
    if not isinstance(sp_input, SparseTensor):
        raise TypeError(f"sparse.expand_dims: expected a SparseTensor, got "
                        f"{type(sp_input).__name__}")
    axis = -1 if axis is None else axis
    rank = sp_input.dense_shape.shape[0]
    if axis < 0:
        if rank is None:
            raise ValueError("sparse.expand_dims: a negative axis needs an input of known "
                             "rank")
        axis += rank + 1
    if rank is not None and not 0 <= axis <= rank:
        raise ValueError(f"sparse.expand_dims: axis {axis} out of range for rank {rank}")
    with name_scope(name, "expand_dims"):
        ind = sp_input.indices
        zeros = A.zeros(A.stack([A.shape(ind, out_type=_dtypes.int64)[0], 1]), _dtypes.int64)
        indices = concat([ind[:, :axis], zeros, ind[:, axis:]], axis=1)
        shape = sp_input.dense_shape
        new_shape = concat([shape[:axis], A.constant([1], _dtypes.int64), shape[axis:]], 0)
        return SparseTensor(indices, sp_input.values, new_shape)


def mask(a: IndexedSlices, mask_indices: Any, name: Optional[str] = None) -> IndexedSlices:
    """The slices of ``a`` whose indices are not in ``mask_indices``."""
    if not isinstance(a, IndexedSlices):
        raise TypeError(f"sparse.mask: expected IndexedSlices, got {type(a).__name__}")
    with name_scope(name, "sparse_mask"):
        kept, positions = setdiff1d(a.indices, mask_indices)
        return IndexedSlices(gather(a.values, positions), kept, a.dense_shape)
