"""More TF 1.x sparse names, composed of existing ops: ``tf.sparse_reshape``,
``tf.sparse_transpose``, ``tf.sparse_slice``, ``tf.sparse_split``, ``tf.sparse_reset_shape``,
``tf.sparse_to_indicator``, ``tf.sparse_reduce_max``, ``tf.sparse_softmax``,
``tf.sparse_maximum``, ``tf.sparse_minimum`` and ``tf.sparse_matmul`` (a dense matmul; its
sparsity flags are hints in TensorFlow too).

The elementwise and reducing ones see only the stored entries, as TensorFlow's do:
``sparse_reduce_max`` ignores implicit zeros (an empty reduction is 0) and
``sparse_softmax`` normalises each innermost row over its stored entries;
``sparse_maximum``/``sparse_minimum`` compare over the union of both index sets, a
missing entry counting as 0. Results are in row-major order.
"""

from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, get_default_graph, name_scope
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.ops.array_ops_core import (cast, expand_dims, fill, identity, ones_like, shape,
                                            stop_gradient, zeros_like)
from tensorfleet.ops.array_concat_ops import concat
from tensorfleet.ops.array_indexing_ops import boolean_mask, gather, range as _range, where
from tensorfleet.ops.control_flow_ops import Assert
from tensorfleet.ops.math_ops_core import (equal, exp, floordiv, floormod, greater,
                                           greater_equal, less, logical_and, logical_or, matmul,
                                           maximum, minimum)
from tensorfleet.ops.math_ops_reduce import (cumprod, reduce_all, reduce_any, reduce_max,
                                             reduce_prod, reduce_sum)
from tensorfleet.ops.scatter_ops import gather_nd
from tensorfleet.ops.sparse_ops import as_sparse, sparse_reorder, sparse_tensor_to_dense

__all__ = ["sparse_reshape", "sparse_transpose", "sparse_slice", "sparse_split",
           "sparse_reset_shape", "sparse_to_indicator", "sparse_reduce_max", "sparse_softmax",
           "sparse_maximum", "sparse_minimum", "sparse_matmul"]


def _rank(sp: SparseTensor, fname: str) -> int:
    r = sp.dense_shape.shape.as_list()[0] if sp.dense_shape.shape.ndims == 1 else None
    if r is None:
        r = sp.indices.shape.as_list()[1] if sp.indices.shape.ndims == 2 else None
    if r is None:
        raise ValueError(f"{fname} needs the rank of its SparseTensor to be known")
    return r


def _strides(dims: Tensor) -> Tensor:
    """Row-major strides of a shape vector."""
    return cumprod(dims, exclusive=True, reverse=True)


def sparse_reshape(sp_input: Any, shape: Any, name: Optional[str] = None) -> SparseTensor:
    """The same entries in a dense shape of the same size; one dimension of ``shape`` may be
    -1 (inferred). A shape of another size fails when run."""
    sp = as_sparse(sp_input, "sparse_reshape")
    with name_scope(name or "SparseReshape"):
        old = sp.dense_shape
        new = cast(convert_to_tensor(shape), _dtypes.int64)
        total = reduce_prod(old)
        known = reduce_prod(where(equal(new, -1), ones_like(new), new))
        new = where(equal(new, -1), fill(_shape_of(new), floordiv(total, maximum(known, 1))), new)
        check = Assert(equal(reduce_prod(new), total),
                       ["Input to reshape is a tensor with", total,
                        "dense values, but the requested shape has", reduce_prod(new)])
        linear = reduce_sum(sp.indices * expand_dims(_strides(old), 0), 1)
        with get_default_graph().control_dependencies([check]):
            idx = floormod(floordiv(expand_dims(linear, 1), expand_dims(_strides(new), 0)),
                           expand_dims(new, 0))
            return SparseTensor(idx, identity(sp.values), new)


def _shape_of(t: Tensor) -> Tensor:
    """The shape of ``t`` as int64, for shape arithmetic with ``dense_shape``."""
    return shape(t, out_type=_dtypes.int64)


def sparse_transpose(sp_input: Any, perm: Any = None, name: Optional[str] = None
                     ) -> SparseTensor:
    """The dimensions of ``sp_input`` permuted by ``perm`` (default: reversed)."""
    sp = as_sparse(sp_input, "sparse_transpose")
    with name_scope(name or "SparseTranspose"):
        if perm is None:
            perm = list(range(_rank(sp, "sparse_transpose")))[::-1]
        p = cast(convert_to_tensor(perm), _dtypes.int32)
        moved = SparseTensor(gather(sp.indices, p, axis=1), sp.values, gather(sp.dense_shape, p))
        return sparse_reorder(moved)


def sparse_slice(sp_input: Any, start: Any, size: Any, name: Optional[str] = None
                 ) -> SparseTensor:
    """The entries inside the box ``[start, start + size)``, re-based at ``start``; the dense
    shape is the box cut at the original shape."""
    sp = as_sparse(sp_input, "sparse_slice")
    with name_scope(name or "SparseSlice"):
        lo = cast(convert_to_tensor(start), _dtypes.int64)
        hi = lo + cast(convert_to_tensor(size), _dtypes.int64)
        inside = reduce_all(logical_and(greater_equal(sp.indices, expand_dims(lo, 0)),
                                        less(sp.indices, expand_dims(hi, 0))), axis=1)
        idx = boolean_mask(sp.indices, inside) - expand_dims(lo, 0)
        dims = maximum(minimum(hi, sp.dense_shape) - lo, zeros_like(lo))
        return SparseTensor(idx, boolean_mask(sp.values, inside), dims)


def sparse_split(keyword_required: Any = None, sp_input: Any = None, num_split: Any = None,
                 axis: Any = None, name: Optional[str] = None, split_dim: Any = None
                 ) -> List[SparseTensor]:
    """``num_split`` slices of ``sp_input`` along ``axis``; when the dimension does not divide
    evenly the first slices are one longer. Arguments are keyword-only, as in TF 1.x."""
    if keyword_required is not None:
        raise ValueError("Keyword arguments are required for this function.")
    if sp_input is None:
        raise ValueError("sp_input is required")
    if num_split is None:
        raise ValueError("num_split is required")
    if axis is None:
        axis = split_dim
    if axis is None:
        raise ValueError("axis is required")
    sp = as_sparse(sp_input, "sparse_split")
    n_split = int(num_split)
    r = _rank(sp, "sparse_split")
    a = int(axis) + r if int(axis) < 0 else int(axis)
    with name_scope(name or "SparseSplit"):
        n = sp.dense_shape[a]
        base, extra = floordiv(n, n_split), floormod(n, n_split)
        on_axis = equal(_range(r), a)
        out = []
        for i in range(n_split):
            first = base * i + minimum(extra, i)
            length = base + cast(less(i, extra), _dtypes.int64)
            start = where(on_axis, fill([r], first), fill([r], np.int64(0)))
            size = where(on_axis, fill([r], length), sp.dense_shape)
            out.append(sparse_slice(sp, start, size))
        return out


def sparse_reset_shape(sp_input: Any, new_shape: Any = None) -> SparseTensor:
    """``sp_input`` with dense shape ``new_shape`` (which must not be smaller; checked when
    run), or, without one, the tightest shape holding its indices."""
    sp = as_sparse(sp_input, "sparse_reset_shape")
    with name_scope("SparseResetShape"):
        if new_shape is None:
            dims = reduce_max(sp.indices, axis=0) + 1
            return SparseTensor(sp.indices, sp.values, dims)
        dims = cast(convert_to_tensor(new_shape), _dtypes.int64)
        check = Assert(reduce_all(greater_equal(dims, sp.dense_shape)),
                       ["new_shape must be no smaller than the dense shape", dims,
                        sp.dense_shape])
        with get_default_graph().control_dependencies([check]):
            return SparseTensor(identity(sp.indices), identity(sp.values), identity(dims))


def sparse_to_indicator(sp_input: Any, vocab_size: Any, name: Optional[str] = None) -> Tensor:
    """A dense bool tensor, one more dimension of ``vocab_size``, true at each stored id."""
    sp = as_sparse(sp_input, "sparse_to_indicator")
    if not sp.dtype.is_integer:
        raise TypeError(f"sparse_to_indicator needs integer ids, got {sp.dtype.name}")
    with name_scope(name or "SparseToIndicator"):
        ids = expand_dims(cast(sp.values, _dtypes.int64), 1)
        idx = concat([sp.indices[:, :-1], ids], 1)
        dims = concat([sp.dense_shape[:-1], cast(convert_to_tensor([vocab_size]), _dtypes.int64)],
                      0)
        flags = fill(shape(sp.values), True)
        return sparse_tensor_to_dense(sparse_reorder(SparseTensor(idx, flags, dims)), False)


def _present(sp: SparseTensor) -> Tensor:
    return sparse_tensor_to_dense(SparseTensor(sp.indices, fill(shape(sp.values), True),
                                               sp.dense_shape), False, validate_indices=False)


def _lowest(dt: Any) -> Any:
    return -np.inf if dt.is_floating else dt.min


def sparse_reduce_max(sp_input: Any, axis: Any = None, keepdims: Optional[bool] = None,
                      reduction_axes: Any = None, keep_dims: Optional[bool] = None) -> Tensor:
    """The maximum of the stored entries over ``axis`` (all when None), as a dense tensor;
    implicit zeros do not count, and a reduction over no entries is 0."""
    sp = as_sparse(sp_input, "sparse_reduce_max")
    ax = axis if axis is not None else reduction_axes
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with name_scope("SparseReduceMax"):
        dense = sparse_tensor_to_dense(sp, _lowest(sp.dtype), validate_indices=False)
        best = reduce_max(dense, ax, keepdims=keep)
        seen = reduce_any(_present(sp), ax, keepdims=keep)
        return where(seen, best, zeros_like(best))


def sparse_softmax(sp_input: Any, name: Optional[str] = None) -> SparseTensor:
    """Softmax of each innermost row over its stored entries; same indices."""
    sp = as_sparse(sp_input, "sparse_softmax")
    if not sp.dtype.is_floating:
        raise TypeError(f"sparse_softmax needs floating values, got {sp.dtype.name}")
    with name_scope(name or "SparseSoftmax"):
        dense = sparse_tensor_to_dense(sp, _lowest(sp.dtype), validate_indices=False)
        here = _present(sp)
        # Shifting by the row maximum keeps exp finite; it cancels out of the ratio.
        top = stop_gradient(reduce_max(dense, -1, keepdims=True))
        safe = where(here, dense - where(greater(top, _lowest(sp.dtype)), top, zeros_like(top)),
                     zeros_like(dense))
        e = where(here, exp(safe), zeros_like(dense))
        total = reduce_sum(e, -1, keepdims=True)
        probs = e / where(greater(total, 0), total, ones_like(total))
        return SparseTensor(sp.indices, gather_nd(probs, sp.indices), sp.dense_shape)


def _union(kind: Any, a: Any, b: Any, name: str) -> SparseTensor:
    sa, sb = as_sparse(a, name, "sp_a"), as_sparse(b, name, "sp_b")
    if sa.dtype is not sb.dtype:
        raise TypeError(f"{name}: sp_a and sp_b must have one dtype, got {sa.dtype.name} and "
                        f"{sb.dtype.name}")
    with name_scope(name):
        da = sparse_tensor_to_dense(sa, 0, validate_indices=False)
        db = sparse_tensor_to_dense(sb, 0, validate_indices=False)
        idx = where(logical_or(_present(sa), _present(sb)))
        return SparseTensor(idx, gather_nd(kind(da, db), idx), sa.dense_shape)


def sparse_maximum(sp_a: Any, sp_b: Any, name: Optional[str] = None) -> SparseTensor:
    """Elementwise maximum over the union of both index sets (a missing entry is 0)."""
    return _union(maximum, sp_a, sp_b, name or "SparseSparseMaximum")


def sparse_minimum(sp_a: Any, sp_b: Any, name: Optional[str] = None) -> SparseTensor:
    """Elementwise minimum over the union of both index sets (a missing entry is 0)."""
    return _union(minimum, sp_a, sp_b, name or "SparseSparseMinimum")


def sparse_matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False,
                  a_is_sparse: bool = False, b_is_sparse: bool = False,
                  name: Optional[str] = None) -> Tensor:
    """``matmul`` of two dense matrices; ``a_is_sparse``/``b_is_sparse`` only hint that
    many entries are zero and do not change the result."""
    return matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b,
                  name=name or "SparseMatMul")
