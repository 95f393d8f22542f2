"""Gradients of the sparse ops.

Gradients flow to the ``values`` of sparse operands and to dense operands; the
``indices`` and ``dense_shape`` components are integer and get none. Where an
op moves entries around (reorder, concat, fill-empty-rows, retain) the
gradient routes each output value's gradient back to the entry it came from.
"""

from __future__ import annotations

from typing import Any, List

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import convert_to_tensor
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import sparse_ops as S
from tensorfleet.ops.math_ops_reduce import reduced_shape
from tensorfleet.ops.op_util import make_op

for _t in ("SparseAddGrad", "Unique"):
    no_gradient(_t)


def _dense(g: Any) -> Any:
    return convert_to_tensor(g) if isinstance(g, IndexedSlices) else g


def gather_nd_rows(params: Any, coords: Any) -> Any:
    """``params[coords[i]]`` for each row of the int64 ``[N, rank(params)]`` coords,
    through the flattened tensor (strides from the run-time shape)."""
    shape = A.shape(params, out_type=_dtypes.int64)
    strides = M.cumprod(shape, exclusive=True, reverse=True)
    flat = M.reduce_sum(coords * strides, axis=1)
    return A.gather(A.reshape(params, [-1]), flat)


@register_gradient("SparseToDense")
def _sparse_to_dense_grad(op: Any, grad: Any) -> list:
    indices, out_shape, values, _ = op.inputs
    grad = _dense(grad)
    coords = A.cast(A.reshape(indices, A.stack([-1, A.size(out_shape)])), _dtypes.int64)
    picked = gather_nd_rows(grad, coords)
    g_values = M.reduce_sum(picked) if values.shape.ndims == 0 else \
        A.reshape(picked, A.shape(values))
    g_default = M.reduce_sum(grad) - M.reduce_sum(picked)
    return [None, None, g_values, g_default]


@register_gradient("SparseTensorDenseAdd")
def _sparse_dense_add_grad(op: Any, grad: Any) -> list:
    grad = _dense(grad)
    return [None, gather_nd_rows(grad, op.inputs[0]), None, grad]


@register_gradient("SparseTensorDenseMatMul")
def _sparse_dense_matmul_grad(op: Any, grad: Any) -> list:
    indices, values, shape, b = op.inputs
    adj_a, adj_b = op.attrs["adjoint_a"], op.attrs["adjoint_b"]
    grad = _dense(grad)
    sp = S.SparseTensor(indices, values, shape)
    # d(op(b)) = op(a)^T @ grad, transposed back when b entered transposed.
    d_opb = S.sparse_tensor_dense_matmul(sp, grad, adjoint_a=not adj_a)
    g_b = A.transpose(d_opb) if adj_b else d_opb
    rows, cols = indices[:, 0], indices[:, 1]
    if adj_a:
        rows, cols = cols, rows
    opb = A.transpose(b) if adj_b else b
    g_values = M.reduce_sum(A.gather(grad, rows) * A.gather(opb, cols), axis=1)
    return [None, g_values, None, g_b]


@register_gradient("SparseReduceSum")
def _sparse_reduce_sum_grad(op: Any, grad: Any) -> list:
    indices, _, shape, axes = op.inputs
    kept_shape = A.cast(reduced_shape(shape, axes), _dtypes.int64)
    g = A.reshape(_dense(grad), kept_shape)
    # Reduced dims have size 1 in kept_shape: clamping sends them to coordinate 0.
    coords = M.minimum(indices, kept_shape - 1)
    return [None, gather_nd_rows(g, coords), None, None]


def _back_to_sources(grad: Any, sources: Any, n: Any) -> Any:
    """Gradient of the inputs of a permutation/selection ``out[k] = in[sources[k]]``."""
    return A.unsorted_segment_sum(_dense(grad), sources, n)


@register_gradient("SparseReorder")
def _sparse_reorder_grad(op: Any, g_indices: Any, g_values: Any) -> list:
    indices, values, shape = op.inputs
    n = A.shape(values, out_type=_dtypes.int64)[0]
    positions = A.range(n)
    perm = make_op("SparseReorder", [indices, positions, shape],
                   [_dtypes.int64, _dtypes.int64]).outputs[1]
    return [None, _back_to_sources(g_values, perm, n), None]


@register_gradient("SparseConcat")
def _sparse_concat_grad(op: Any, g_indices: Any, g_values: Any, g_shape: Any) -> list:
    n = op.attrs["N"]
    inds, vals, shapes = op.inputs[:n], op.inputs[n:2 * n], op.inputs[2 * n:]
    sizes = [A.shape(v, out_type=_dtypes.int64)[0] for v in vals]
    offsets: List[Any] = [A.constant(0, dtype=_dtypes.int64)]
    for s in sizes[:-1]:
        offsets.append(offsets[-1] + s)
    positions = [A.range(o, o + s) for o, s in zip(offsets, sizes)]
    total = offsets[-1] + sizes[-1]
    src = make_op("SparseConcat", list(inds) + positions + list(shapes),
                  [_dtypes.int64, _dtypes.int64, _dtypes.int64],
                  {k: op.attrs[k] for k in ("N", "concat_dim", "expand_nonconcat_dim")}
                  ).outputs[1]
    g_all = _back_to_sources(g_values, src, total)
    return [None] * n + [A.gather(g_all, p) for p in positions] + [None] * n


@register_gradient("SparseAdd")
def _sparse_add_grad(op: Any, g_indices: Any, g_values: Any, g_shape: Any) -> list:
    a_ind, b_ind = op.inputs[0], op.inputs[3]
    g_a, g_b = S.sparse_add_grad(_dense(g_values), a_ind, b_ind, op.outputs[0])
    return [None, g_a, None, None, g_b, None, None]


@register_gradient("SparseRetain")
def _sparse_retain_grad(op: Any, g_indices: Any, g_values: Any, g_kept: Any) -> list:
    values = op.inputs[1]
    n = A.shape(values, out_type=_dtypes.int64)[0]
    return [None, _back_to_sources(g_values, op.outputs[2], n), None]


# A ragged tensor's rows fill as a sparse tensor's do: the same inputs and outputs.
@register_gradient("RaggedFillEmptyRows")
@register_gradient("SparseFillEmptyRows")
def _fill_empty_rows_grad(op: Any, g_indices: Any, g_values: Any, g_empty: Any,
                          g_reverse: Any) -> list:
    g = _dense(g_values)
    g_in = A.gather(g, op.outputs[3])
    return [None, g_in, None, M.reduce_sum(g) - M.reduce_sum(g_in)]


def _segment_grad(scale: str) -> Any:
    def grad_fn(op: Any, grad: Any) -> list:
        data, indices, seg = op.inputs[:3]
        grad = _dense(grad)
        rows = A.gather(grad, seg)
        if scale != "sum":
            num = A.shape(grad, out_type=seg.dtype)[0]
            counts = A.unsorted_segment_sum(A.ones_like(seg, dtype=grad.dtype), seg, num)
            counts = M.maximum(counts, A.ones_like(counts))
            denom = counts if scale == "mean" else M.sqrt(counts)
            w = A.gather(M.reciprocal(denom), seg)
            rank = data.shape.ndims
            if rank is not None:
                w = A.reshape(w, [-1] + [1] * (rank - 1))
            else:
                w = A.reshape(w, A.concat([[-1], A.ones_like(A.shape(data)[1:])], 0))
            rows = rows * w
        g_data = IndexedSlices(rows, indices, A.shape(data, out_type=indices.dtype))
        return [g_data] + [None] * (len(op.inputs) - 1)
    return grad_fn


for _scale, _name in (("sum", "SparseSegmentSum"), ("mean", "SparseSegmentMean"),
                      ("sqrtn", "SparseSegmentSqrtN")):
    register_gradient(_name)(_segment_grad(_scale))
    register_gradient(_name + "WithNumSegments")(_segment_grad(_scale))
