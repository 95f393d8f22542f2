"""Sparse ops: building, densifying, multiplying, reducing and combining ``SparseTensor``s.

A ``SparseTensor`` is its three component tensors (see
``tensorfleet.framework.sparse_tensor``); each op here takes those components
as inputs and, when it returns a sparse result, wraps its outputs in a new
``SparseTensor``. Kernels check the components at run time and name the op and
the offending entry on bad input (an index outside ``dense_shape``, indices out
of order where order matters, mismatched lengths).

Also here: the sparse segment reductions (``sparse_segment_sum/mean/sqrt_n``,
whose gradient is an ``IndexedSlices`` of the rows read) and ``tf.unique``.

Reshaping, transposing, slicing and splitting, and resetting the dense shape
(``sparse_reshape``, ``sparse_transpose``, ``sparse_slice``, ``sparse_split``,
``sparse_reset_shape``),
``sparse_to_indicator``, ``sparse_reduce_max``, ``sparse_softmax``,
``sparse_maximum``/``sparse_minimum`` and ``sparse_matmul`` (a dense matmul; its sparsity
flags are hints in TensorFlow too) are composed of dense ops on the components, so their
gradients come from those ops. The elementwise and reducing ones see only the stored
entries, as TensorFlow's do: ``sparse_reduce_max`` ignores implicit zeros (an empty
reduction is 0) and ``sparse_softmax`` normalises each innermost row over its stored
entries; ``sparse_maximum``/``sparse_minimum`` compare over the union of both index sets,
a missing entry counting as 0. Results are in row-major order.
"""

from __future__ import annotations

import collections
from typing import Any, List, Optional, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, get_default_graph, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tensorfleet.framework.tensor_shape import TensorShape, as_shape, unknown_shape
from tensorfleet.ops import array_ops as A
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
from tensorfleet.ops.op_util import const_value, make_op, make_tensor, normalize_axis
from tensorfleet.ops.scatter_ops import gather_nd


def _rank_of(shape_t: Tensor) -> Optional[int]:
    s = shape_t.shape
    return s[0] if s.ndims == 1 else None


def _sparse_outputs(op: Any) -> List[TensorShape]:
    """``(indices [?, rank], values [?], dense_shape [rank])`` from the first input's rank."""
    rank = _rank_of(op.inputs[2]) if len(op.inputs) > 2 else None
    return [TensorShape([None, rank]), TensorShape([None]), TensorShape([rank])][:len(op.outputs)]


def _to_dense_shape(op: Any) -> List[TensorShape]:
    v = const_value(op.inputs[1])
    if v is not None:
        return [TensorShape([int(d) for d in np.reshape(v, [-1])])]
    s = op.inputs[1].shape
    return [unknown_shape(s[0]) if s.ndims == 1 and s[0] is not None else
            TensorShape([]) if s.ndims == 0 else unknown_shape()]


def _static_dense(shape_t: Tensor) -> Optional[List[int]]:
    if shape_t.op.type == "PlaceholderWithDefault":
        shape_t = shape_t.op.inputs[0]
    v = const_value(shape_t)
    return None if v is None else [int(d) for d in np.reshape(v, [-1])]


def _matmul_shape(op: Any) -> List[TensorShape]:
    a = _static_dense(op.inputs[2])
    b = op.inputs[3].shape
    if b.ndims is not None and b.ndims != 2:
        raise ValueError(f"sparse_tensor_dense_matmul: b must be a matrix, got shape {b}")
    if a is not None and len(a) != 2:
        raise ValueError(f"sparse_tensor_dense_matmul: a must be a sparse matrix, got dense "
                         f"shape {a}")
    rows = inner = None
    if a is not None:
        rows, inner = (a[1], a[0]) if op.attrs["adjoint_a"] else (a[0], a[1])
    cols = b_inner = None
    if b.ndims == 2:
        b_inner, cols = (b[1], b[0]) if op.attrs["adjoint_b"] else (b[0], b[1])
    if inner is not None and b_inner is not None and inner != b_inner:
        raise ValueError(f"sparse_tensor_dense_matmul: inner dimensions differ: a is "
                         f"{a} (adjoint_a={op.attrs['adjoint_a']}) and b is {b} "
                         f"(adjoint_b={op.attrs['adjoint_b']})")
    return [TensorShape([rows, cols])]


def _reduce_sum_shape(op: Any) -> List[TensorShape]:
    dense = _static_dense(op.inputs[2])
    axes = const_value(op.inputs[3])
    if dense is None or axes is None:
        return [unknown_shape()]
    red = normalize_axis(np.reshape(axes, [-1]).tolist(), len(dense)) or []
    if op.attrs["keep_dims"]:
        return [TensorShape([1 if i in red else d for i, d in enumerate(dense)])]
    return [TensorShape([d for i, d in enumerate(dense) if i not in red])]


def _concat_shape(op: Any) -> List[TensorShape]:
    n = op.attrs["N"]
    ranks = {_rank_of(s) for s in op.inputs[2 * n:]} - {None}
    if len(ranks) > 1:
        raise ValueError(f"sparse_concat: inputs have different ranks {sorted(ranks)}")
    rank = ranks.pop() if ranks else None
    return [TensorShape([None, rank]), TensorShape([None]), TensorShape([rank])]


register_op("SparseToDense", _to_dense_shape)
register_op("SparseTensorDenseAdd", lambda op: [op.inputs[3].shape])
register_op("SparseTensorDenseMatMul", _matmul_shape)
register_op("SparseReduceSum", _reduce_sum_shape)
register_op("SparseReorder", lambda op: [op.inputs[0].shape, op.inputs[1].shape])
register_op("SparseConcat", _concat_shape)
register_op("SparseAdd", _sparse_outputs)
register_op("SparseAddGrad", lambda op: [op.inputs[1].shape[:1] if op.inputs[1].shape.ndims
                                         else unknown_shape(1),
                                         op.inputs[2].shape[:1] if op.inputs[2].shape.ndims
                                         else unknown_shape(1)])
register_op("SparseFillEmptyRows", lambda op: [
    TensorShape([None, _rank_of(op.inputs[2])]), TensorShape([None]), TensorShape([None]),
    op.inputs[1].shape])
register_op("RaggedFillEmptyRows", lambda op: [
    TensorShape([None]), TensorShape([None]), TensorShape([None]), op.inputs[0].shape])
register_op("RaggedFillEmptyRowsGrad", lambda op: [op.inputs[0].shape, TensorShape([])])
register_op("SparseRetain", lambda op: [
    TensorShape([None, op.inputs[0].shape[1] if op.inputs[0].shape.ndims == 2 else None]),
    TensorShape([None]), TensorShape([None])])


def as_sparse(sp: Any, fname: str, arg: str = "sp_input") -> SparseTensor:
    """``sp`` as a ``SparseTensor`` (a ``SparseTensorValue`` becomes constants)."""
    if isinstance(sp, SparseTensorValue):
        return SparseTensor.from_value(sp)
    if not isinstance(sp, SparseTensor):
        raise TypeError(f"{fname}: {arg} must be a SparseTensor, got {type(sp).__name__}")
    return sp


def sparse_placeholder(dtype: Any, shape: Any = None, name: Optional[str] = None
                       ) -> SparseTensor:
    """A ``SparseTensor`` whose value is fed at run time as a ``SparseTensorValue``.

    Args:
      dtype: the dtype of the values.
      shape: the dense shape; when fully known it is the default of ``dense_shape``
        (feeding a value still overrides it), otherwise ``dense_shape`` must be fed.
      name: prefix of the three placeholders (``name/indices``, ``name/values``,
        ``name/shape``).
    """
    dt = _dtypes.as_dtype(dtype)
    s = as_shape(shape) if shape is not None else unknown_shape()
    rank = s.ndims
    prefix = f"{name}/" if name else ""
    values = A.placeholder(dt, [None], name=f"{prefix}values" if name else None)
    indices = A.placeholder(_dtypes.int64, [None, rank],
                            name=f"{prefix}indices" if name else None)
    if s.is_fully_defined():
        dense_shape = A.placeholder_with_default(
            A.constant(np.array(s.as_list(), np.int64)), [rank],
            name=f"{prefix}shape" if name else None)
    else:
        dense_shape = A.placeholder(_dtypes.int64, [rank], name=f"{prefix}shape" if name else None)
    return SparseTensor(indices, values, dense_shape)


def sparse_to_dense(sparse_indices: Any, output_shape: Any, sparse_values: Any,
                    default_value: Any = 0, validate_indices: bool = True,
                    name: Optional[str] = None) -> Tensor:
    """A dense tensor of ``output_shape`` holding ``sparse_values`` at ``sparse_indices``
    and ``default_value`` elsewhere.

    ``sparse_indices`` is a scalar or vector (for a vector output) or an
    ``[N, rank]`` matrix; ``sparse_values`` a scalar (used for every index) or
    ``[N]``. With ``validate_indices`` the indices must be in row-major order
    without repeats (InvalidArgumentError otherwise).
    """
    values = convert_to_tensor(sparse_values, name="sparse_values")
    ind = convert_to_tensor(sparse_indices, name="sparse_indices")
    if not ind.dtype.is_integer:
        raise TypeError(f"sparse_to_dense: sparse_indices must be int32 or int64, got "
                        f"{ind.dtype.name}")
    shape = convert_to_tensor(output_shape, dtype=ind.dtype, name="output_shape") if not \
        isinstance(output_shape, Tensor) else output_shape
    default = convert_to_tensor(default_value, dtype=values.dtype, name="default_value")
    return make_tensor("SparseToDense", [ind, shape, values, default], values.dtype,
                       {"validate_indices": bool(validate_indices)},
                       name=name or "SparseToDense")


def sparse_tensor_to_dense(sp_input: Any, default_value: Any = 0, validate_indices: bool = True,
                           name: Optional[str] = None) -> Tensor:
    """The dense tensor ``sp_input`` stands for, ``default_value`` where nothing is stored.

    With ``validate_indices`` the indices must be in row-major order without
    repeats (use ``sparse_reorder`` first otherwise).
    """
    sp = as_sparse(sp_input, "sparse_tensor_to_dense")
    return sparse_to_dense(sp.indices, sp.dense_shape, sp.values, default_value,
                           validate_indices, name=name or "SparseToDense")


def sparse_tensor_dense_matmul(sp_a: Any, b: Any, adjoint_a: bool = False,
                               adjoint_b: bool = False, name: Optional[str] = None) -> Tensor:
    """``op(sp_a) @ op(b)`` for a sparse matrix ``sp_a`` and a dense matrix ``b``, where
    ``op`` is the (conjugate) transpose when ``adjoint_a`` / ``adjoint_b`` is set.

    Differentiable with respect to ``b`` and ``sp_a.values``.
    """
    sp = as_sparse(sp_a, "sparse_tensor_dense_matmul", "sp_a")
    bt = convert_to_tensor(b, dtype=sp.dtype, name="b")
    return make_tensor("SparseTensorDenseMatMul", [sp.indices, sp.values, sp.dense_shape, bt],
                       sp.dtype, {"adjoint_a": bool(adjoint_a), "adjoint_b": bool(adjoint_b)},
                       name=name or "SparseTensorDenseMatMul")


def sparse_reduce_sum(sp_input: Any, axis: Any = None, keepdims: Optional[bool] = None,
                      reduction_axes: Any = None, keep_dims: Optional[bool] = None,
                      name: Optional[str] = None) -> Tensor:
    """The dense sum of ``sp_input`` over ``axis`` (every axis if None)."""
    sp = as_sparse(sp_input, "sparse_reduce_sum")
    if axis is not None and reduction_axes is not None:
        raise ValueError("sparse_reduce_sum: pass axis or reduction_axes, not both")
    if keepdims is not None and keep_dims is not None:
        raise ValueError("sparse_reduce_sum: pass keepdims or keep_dims, not both")
    axis = axis if axis is not None else reduction_axes
    keep = bool(keepdims if keepdims is not None else keep_dims)
    if axis is None:
        axes: Any = A.range(0, A.size(sp.dense_shape, out_type=_dtypes.int32))
    else:
        axes = convert_to_tensor(axis, dtype=_dtypes.int32, name="reduction_axes")
    return make_tensor("SparseReduceSum", [sp.indices, sp.values, sp.dense_shape, axes],
                       sp.dtype, {"keep_dims": keep}, name=name or "SparseReduceSum")


def sparse_reorder(sp_input: Any, name: Optional[str] = None) -> SparseTensor:
    """The same sparse tensor with its entries in row-major (canonical) order."""
    sp = as_sparse(sp_input, "sparse_reorder")
    op = make_op("SparseReorder", [sp.indices, sp.values, sp.dense_shape],
                 [_dtypes.int64, sp.dtype], name=name or "SparseReorder")
    return SparseTensor(op.outputs[0], op.outputs[1], sp.dense_shape)


def sparse_concat(axis: Any, sp_inputs: Any, name: Optional[str] = None,
                  expand_nonconcat_dim: bool = False, concat_dim: Any = None
                  ) -> SparseTensor:
    """Concatenates sparse tensors along ``axis``; the result is in row-major order.

    Every dimension but ``axis`` must agree, unless ``expand_nonconcat_dim`` is
    set, in which case the result takes the largest of each.
    """
    if concat_dim is not None:
        if axis is not None and axis != concat_dim:
            raise ValueError("sparse_concat: axis and concat_dim disagree")
        axis = concat_dim
    if axis is None or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"sparse_concat: axis must be a Python int, got {axis!r}")
    sps = [as_sparse(s, "sparse_concat", f"sp_inputs[{i}]") for i, s in enumerate(sp_inputs)]
    if not sps:
        raise ValueError("sparse_concat: sp_inputs must not be empty")
    dts = {s.dtype for s in sps}
    if len(dts) != 1:
        raise TypeError(f"sparse_concat: inputs have different dtypes "
                        f"{sorted(d.name for d in dts)}")
    ins = [s.indices for s in sps] + [s.values for s in sps] + [s.dense_shape for s in sps]
    op = make_op("SparseConcat", ins, [_dtypes.int64, sps[0].dtype, _dtypes.int64],
                 {"N": len(sps), "concat_dim": int(axis),
                  "expand_nonconcat_dim": bool(expand_nonconcat_dim)},
                 name=name or "SparseConcat")
    return SparseTensor(*op.outputs)


def sparse_add(a: Any, b: Any, thresh: Any = 0, name: Optional[str] = None) -> Any:
    """``a + b`` where at least one operand is sparse.

    Sparse + dense (either order) gives a dense tensor. Sparse + sparse gives a
    ``SparseTensor`` in row-major order, dropping sums whose magnitude is below
    ``thresh``. Differentiable with respect to the values of both operands.
    """
    a_sp = isinstance(a, (SparseTensor, SparseTensorValue))
    b_sp = isinstance(b, (SparseTensor, SparseTensorValue))
    if not (a_sp or b_sp):
        raise TypeError("sparse_add: at least one operand must be a SparseTensor; use tf.add "
                        "for two dense tensors")
    if a_sp and b_sp:
        sa, sb = as_sparse(a, "sparse_add", "a"), as_sparse(b, "sparse_add", "b")
        if sa.dtype is not sb.dtype:
            raise TypeError(f"sparse_add: operands have dtypes {sa.dtype.name} and "
                            f"{sb.dtype.name}")
        th = convert_to_tensor(thresh, dtype=sa.dtype, name="thresh")
        op = make_op("SparseAdd", [sa.indices, sa.values, sa.dense_shape, sb.indices, sb.values,
                                   sb.dense_shape, th],
                     [_dtypes.int64, sa.dtype, _dtypes.int64], name=name or "SparseAdd")
        return SparseTensor(*op.outputs)
    sp, dense = (as_sparse(a, "sparse_add", "a"), b) if a_sp else (as_sparse(b, "sparse_add",
                                                                             "b"), a)
    d = convert_to_tensor(dense, dtype=sp.dtype, name="dense")
    return make_tensor("SparseTensorDenseAdd", [sp.indices, sp.values, sp.dense_shape, d],
                       sp.dtype, name=name or "SparseTensorDenseAdd")


def sparse_retain(sp_input: Any, to_retain: Any) -> SparseTensor:
    """The entries of ``sp_input`` where the bool vector ``to_retain`` is true."""
    sp = as_sparse(sp_input, "sparse_retain")
    keep = convert_to_tensor(to_retain, name="to_retain")
    if keep.dtype is not _dtypes.bool:
        raise TypeError(f"sparse_retain: to_retain must be bool, got {keep.dtype.name}")
    if keep.shape.ndims is not None and keep.shape.ndims != 1:
        raise ValueError(f"sparse_retain: to_retain must be a vector, got shape {keep.shape}")
    n_keep, n_val = keep.shape[0] if keep.shape.ndims == 1 else None, \
        sp.values.shape[0] if sp.values.shape.ndims == 1 else None
    if n_keep is not None and n_val is not None and n_keep != n_val:
        raise ValueError(f"sparse_retain: to_retain has {n_keep} entries but sp_input has "
                         f"{n_val} values")
    op = make_op("SparseRetain", [sp.indices, sp.values, keep],
                 [_dtypes.int64, sp.dtype, _dtypes.int64], name="SparseRetain")
    return SparseTensor(op.outputs[0], op.outputs[1], sp.dense_shape)


def sparse_fill_empty_rows(sp_input: Any, default_value: Any, name: Optional[str] = None
                           ) -> Tuple[SparseTensor, Tensor]:
    """Adds ``default_value`` at ``[row, 0, ..., 0]`` for every row with no entry.

    Returns the filled ``SparseTensor`` (ordered by row, the entries of a row in
    their input order) and a bool vector marking the rows that were empty.
    """
    sp = as_sparse(sp_input, "sparse_fill_empty_rows")
    dv = convert_to_tensor(default_value, dtype=sp.dtype, name="default_value")
    op = make_op("SparseFillEmptyRows", [sp.indices, sp.values, sp.dense_shape, dv],
                 [_dtypes.int64, sp.dtype, _dtypes.bool, _dtypes.int64],
                 name=name or "SparseFillEmptyRows")
    return SparseTensor(op.outputs[0], op.outputs[1], sp.dense_shape), op.outputs[2]


RaggedFillEmptyRows = collections.namedtuple(
    "RaggedFillEmptyRows", ["output_value_rowids", "output_values", "empty_row_indicator",
                            "reverse_index_map"])
RaggedFillEmptyRowsGrad = collections.namedtuple("RaggedFillEmptyRowsGrad",
                                                 ["d_values", "d_default_value"])


def ragged_fill_empty_rows(value_rowids: Any, values: Any, nrows: Any, default_value: Any,
                           name: Optional[str] = None) -> RaggedFillEmptyRows:
    """``sparse_fill_empty_rows`` for a ragged tensor given as ``value_rowids`` (int64,
    the row of each value) and ``nrows``: every empty row gets one ``default_value``.

    Returns ``(output_value_rowids, output_values, empty_row_indicator,
    reverse_index_map)``: the filled rows ordered by row (values of a row in input
    order), a bool per row that was empty, and where each input value went.
    """
    with name_scope(name, "RaggedFillEmptyRows"):
        rowids = convert_to_tensor(value_rowids, dtype=_dtypes.int64, name="value_rowids")
        vals = convert_to_tensor(values, name="values")
        n = convert_to_tensor(nrows, dtype=_dtypes.int64, name="nrows")
        dv = convert_to_tensor(default_value, dtype=vals.dtype, name="default_value")
        for t, what in ((rowids, "value_rowids"), (vals, "values")):
            if t.shape.ndims not in (None, 1):
                raise ValueError(f"ragged_fill_empty_rows: {what} must be a vector, got "
                                 f"shape {t.shape}")
        op = make_op("RaggedFillEmptyRows", [rowids, vals, n, dv],
                     [_dtypes.int64, vals.dtype, _dtypes.bool, _dtypes.int64],
                     name="RaggedFillEmptyRows")
        return RaggedFillEmptyRows(*op.outputs)


def ragged_fill_empty_rows_grad(reverse_index_map: Any, grad_values: Any,
                                name: Optional[str] = None) -> RaggedFillEmptyRowsGrad:
    """The gradients of ``ragged_fill_empty_rows``'s ``values`` (``grad_values`` at
    ``reverse_index_map``) and ``default_value`` (the rest of ``grad_values``, summed)."""
    with name_scope(name, "RaggedFillEmptyRowsGrad"):
        rev = convert_to_tensor(reverse_index_map, dtype=_dtypes.int64,
                                name="reverse_index_map")
        g = convert_to_tensor(grad_values, name="grad_values")
        op = make_op("RaggedFillEmptyRowsGrad", [rev, g], [g.dtype, g.dtype],
                     name="RaggedFillEmptyRowsGrad")
        return RaggedFillEmptyRowsGrad(*op.outputs)


def sparse_add_grad(grad: Any, a_indices: Any, b_indices: Any, sum_indices: Any
                    ) -> Tuple[Tensor, Tensor]:
    """The gradients of ``sparse_add``'s two value vectors given that of its sum."""
    g = convert_to_tensor(grad)
    op = make_op("SparseAddGrad", [g, a_indices, b_indices, sum_indices], [g.dtype, g.dtype],
                 name="SparseAddGrad")
    return op.outputs[0], op.outputs[1]


# -- segment reductions and unique ----------------------------------------------------------------
#
# sparse_segment_sum(data, indices, segment_ids) sums the rows data[indices[i]] into
# output row segment_ids[i]; _mean divides each output row by the number of rows summed
# into it and _sqrt_n by its square root. segment_ids must be sorted; without
# num_segments the output has segment_ids[-1] + 1 rows. The gradient with respect to
# data is an IndexedSlices of the rows `indices` (a table is updated only where read).

_SEGMENT_OPS = {"sum": "SparseSegmentSum", "mean": "SparseSegmentMean",
                "sqrtn": "SparseSegmentSqrtN"}


def _segment_shape(op: Any) -> List[TensorShape]:
    data, idx, seg = op.inputs[:3]
    for t, what in ((idx, "indices"), (seg, "segment_ids")):
        if t.shape.ndims is not None and t.shape.ndims != 1:
            raise ValueError(f"{op.type}: {what} must be a vector, got shape {t.shape}")
    if idx.shape.ndims == 1 and seg.shape.ndims == 1 and not idx.shape.is_compatible_with(
            seg.shape):
        raise ValueError(f"{op.type}: indices {idx.shape} and segment_ids {seg.shape} must "
                         f"have the same length")
    rows = None
    if len(op.inputs) == 4:
        v = const_value(op.inputs[3])
        rows = None if v is None else int(v)
    if data.shape.ndims is None:
        return [unknown_shape()]
    if data.shape.ndims == 0:
        raise ValueError(f"{op.type}: data must be at least rank 1")
    return [TensorShape([rows] + data.shape.as_list()[1:])]


for _t in _SEGMENT_OPS.values():
    register_op(_t, _segment_shape)
    register_op(_t + "WithNumSegments", _segment_shape)
register_op("Unique", lambda op: [TensorShape([None]), op.inputs[0].shape])


def _segment(kind: str, data: Any, indices: Any, segment_ids: Any, name: Optional[str],
             num_segments: Any) -> Tensor:
    d = convert_to_tensor(data, name="data")
    idx = convert_to_tensor(indices, name="indices")
    seg = convert_to_tensor(segment_ids, name="segment_ids")
    fname = f"sparse_segment_{'sqrt_n' if kind == 'sqrtn' else kind}"
    if not (idx.dtype.is_integer and seg.dtype.is_integer):
        raise TypeError(f"{fname}: indices and segment_ids must be integers, got "
                        f"{idx.dtype.name} and {seg.dtype.name}")
    if kind != "sum" and not d.dtype.is_floating:
        raise TypeError(f"{fname}: data must be floating point, got {d.dtype.name}")
    op_type = _SEGMENT_OPS[kind]
    ins = [d, idx, seg]
    if num_segments is not None:
        op_type += "WithNumSegments"
        ins.append(convert_to_tensor(num_segments, dtype=seg.dtype, name="num_segments")
                   if not isinstance(num_segments, Tensor) else num_segments)
    return make_tensor(op_type, ins, d.dtype, name=name or op_type)


def sparse_segment_sum(data: Any, indices: Any, segment_ids: Any, name: Optional[str] = None,
                       num_segments: Any = None) -> Tensor:
    """``out[s] = sum of data[indices[i]] over i with segment_ids[i] == s``."""
    return _segment("sum", data, indices, segment_ids, name, num_segments)


def sparse_segment_mean(data: Any, indices: Any, segment_ids: Any, name: Optional[str] = None,
                        num_segments: Any = None) -> Tensor:
    """Like ``sparse_segment_sum``, divided by the number of rows in each segment."""
    return _segment("mean", data, indices, segment_ids, name, num_segments)


def sparse_segment_sqrt_n(data: Any, indices: Any, segment_ids: Any,
                          name: Optional[str] = None, num_segments: Any = None) -> Tensor:
    """Like ``sparse_segment_sum``, divided by the square root of each segment's size."""
    return _segment("sqrtn", data, indices, segment_ids, name, num_segments)


def unique(x: Any, out_idx: Any = _dtypes.int32, name: Optional[str] = None
           ) -> Tuple[Tensor, Tensor]:
    """The distinct values of the vector ``x`` in order of first appearance, and for each
    element of ``x`` the position of its value in that list (``x == y[idx]``)."""
    t = convert_to_tensor(x, name="x")
    if t.shape.ndims is not None and t.shape.ndims != 1:
        raise ValueError(f"unique: x must be a vector, got shape {t.shape}")
    odt = _dtypes.as_dtype(out_idx)
    if odt not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"unique: out_idx must be int32 or int64, got {odt.name}")
    op = make_op("Unique", [t], [t.dtype, odt], {"out_idx": odt.name}, name=name or "Unique")
    return op.outputs[0], op.outputs[1]


# -- composites: reshaping, slicing, elementwise and reducing ----------------------------------

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


__all__ = ["ragged_fill_empty_rows", "ragged_fill_empty_rows_grad", "sparse_placeholder", "sparse_to_dense", "sparse_tensor_to_dense",
           "sparse_tensor_dense_matmul", "sparse_reduce_sum", "sparse_reorder", "sparse_concat",
           "sparse_add", "sparse_retain", "sparse_fill_empty_rows", "sparse_segment_sum",
           "sparse_segment_mean", "sparse_segment_sqrt_n", "unique", "sparse_reshape",
           "sparse_transpose", "sparse_slice", "sparse_split", "sparse_reset_shape",
           "sparse_to_indicator", "sparse_reduce_max", "sparse_softmax", "sparse_maximum",
           "sparse_minimum", "sparse_matmul"]
