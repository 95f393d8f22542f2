"""Sparse ops: building, densifying, multiplying, reducing and combining ``SparseTensor``s.

A ``SparseTensor`` is its three component tensors (see
``tensorfleet.framework.sparse_tensor``); each op here takes those components
as inputs and, when it returns a sparse result, wraps its outputs in a new
``SparseTensor``. Kernels check the components at run time and name the op and
the offending entry on bad input (an index outside ``dense_shape``, indices out
of order where order matters, mismatched lengths).

Also here: the sparse segment reductions (``sparse_segment_sum/mean/sqrt_n``,
whose gradient is an ``IndexedSlices`` of the rows read) and ``tf.unique``.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tensorfleet.framework.tensor_shape import TensorShape, as_shape, unknown_shape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops.op_util import const_value, make_op, make_tensor, normalize_axis


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


__all__ = ["sparse_placeholder", "sparse_to_dense", "sparse_tensor_to_dense",
           "sparse_tensor_dense_matmul", "sparse_reduce_sum", "sparse_reorder", "sparse_concat",
           "sparse_add", "sparse_retain", "sparse_fill_empty_rows", "sparse_segment_sum",
           "sparse_segment_mean", "sparse_segment_sqrt_n", "unique"]
