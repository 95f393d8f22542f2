"""numpy kernels of the sparse ops.

A sparse tensor reaches a kernel as three arrays: int64 ``indices [N, rank]``,
``values [N]`` and int64 ``dense_shape [rank]``. Every kernel checks them first
(ranks, lengths, coordinates inside ``dense_shape``) and fails with an
InvalidArgumentError naming the op and the offending entry.
"""

from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel


def check_sparse(ctx: KernelContext, indices: Any, values: Any, shape: Any,
                 what: str = "") -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The components as arrays, after checking they describe a valid sparse tensor."""
    ind, val, shp = np.asarray(indices), np.asarray(values), np.asarray(shape)
    tag = f"{what} " if what else ""
    if shp.ndim != 1:
        raise invalid(ctx, f"{tag}dense_shape must be a vector, got shape {list(shp.shape)}")
    if ind.ndim != 2 or ind.shape[1] != shp.shape[0]:
        raise invalid(ctx, f"{tag}indices must be a matrix [N, {shp.shape[0]}] (the rank of "
                      f"dense_shape), got shape {list(ind.shape)}")
    if val.ndim != 1 or val.shape[0] != ind.shape[0]:
        raise invalid(ctx, f"{tag}values must be a vector of {ind.shape[0]} entries (one per "
                      f"row of indices), got shape {list(val.shape)}")
    if np.any(shp < 0):
        raise invalid(ctx, f"{tag}dense_shape must be non-negative, got {shp.tolist()}")
    if ind.size:
        bad = np.any((ind < 0) | (ind >= shp), axis=1)
        if bad.any():
            i = int(np.argmax(bad))
            raise invalid(ctx, f"{tag}indices[{i}] = {ind[i].tolist()} is out of bounds: need "
                          f"0 <= index < {shp.tolist()}")
    return ind.astype(np.int64, copy=False), val, shp.astype(np.int64, copy=False)


def _linear(ind: np.ndarray, shape: np.ndarray) -> np.ndarray:
    """Row-major position of each coordinate (the order canonical sparse tensors use)."""
    if ind.shape[1] == 0 or ind.shape[0] == 0:
        return np.zeros(ind.shape[0], np.int64)
    return np.ravel_multi_index(tuple(ind.T), tuple(int(d) for d in shape))


def _order(ind: np.ndarray) -> np.ndarray:
    """Stable permutation putting ``ind`` rows in lexicographic (row-major) order."""
    if ind.shape[0] == 0 or ind.shape[1] == 0:
        return np.arange(ind.shape[0])
    return np.lexsort(ind.T[::-1])


# -- densifying -----------------------------------------------------------------------------------

@register_kernel("SparseToDense")
def _sparse_to_dense(ctx: KernelContext, indices: Any, output_shape: Any, values: Any,
                     default_value: Any) -> np.ndarray:
    ind, shp, val = np.asarray(indices), np.asarray(output_shape), np.asarray(values)
    dv = np.asarray(default_value)
    if shp.ndim > 1:
        raise invalid(ctx, f"output_shape must be a scalar or vector, got {list(shp.shape)}")
    shp = shp.reshape(-1).astype(np.int64)
    rank = shp.size
    if ind.ndim > 2:
        raise invalid(ctx, f"sparse_indices must be at most rank 2, got {list(ind.shape)}")
    if ind.ndim < 2:  # a scalar or a vector of indices into a vector
        ind = ind.reshape(-1, 1)
    n = ind.shape[0]
    if ind.shape[1] != rank:
        raise invalid(ctx, f"sparse_indices has {ind.shape[1]} columns but output_shape has "
                      f"{rank} dimensions")
    if val.ndim == 0:
        val = np.full(n, val, dtype=val.dtype)
    if val.shape != (n,):
        raise invalid(ctx, f"sparse_values must be a scalar or a vector of {n} entries (one "
                      f"per index), got shape {list(val.shape)}")
    if dv.ndim != 0:
        raise invalid(ctx, f"default_value must be a scalar, got shape {list(dv.shape)}")
    ind, val, shp = check_sparse(ctx, ind, val, shp)
    if ctx.attrs.get("validate_indices", True) and n > 1:
        lin = _linear(ind, shp)
        step = np.diff(lin)
        if np.any(step <= 0):
            i = int(np.argmax(step <= 0)) + 1
            kind = "repeated" if step[i - 1] == 0 else "out of order"
            raise invalid(ctx, f"indices[{i}] = {ind[i].tolist()} is {kind}; sparse indices "
                          f"must be sorted in row-major order without repeats (use "
                          f"tf.sparse_reorder)")
    out = np.full(tuple(int(d) for d in shp), dv, dtype=val.dtype)
    if n:
        out[tuple(ind.T)] = val
    return out


@register_kernel("SparseTensorDenseAdd")
def _sparse_dense_add(ctx: KernelContext, indices: Any, values: Any, shape: Any,
                      b: Any) -> np.ndarray:
    ind, val, shp = check_sparse(ctx, indices, values, shape)
    b = np.asarray(b)
    if tuple(b.shape) != tuple(int(d) for d in shp):
        raise invalid(ctx, f"the sparse operand has dense shape {shp.tolist()} but the dense "
                      f"operand has shape {list(b.shape)}; they must be equal")
    out = b.astype(np.result_type(b, val), copy=True)
    if ind.shape[0]:
        np.add.at(out, tuple(ind.T), val)
    return out


# -- products and reductions ----------------------------------------------------------------------

@register_kernel("SparseTensorDenseMatMul")
def _sparse_dense_matmul(ctx: KernelContext, indices: Any, values: Any, shape: Any,
                         b: Any) -> np.ndarray:
    ind, val, shp = check_sparse(ctx, indices, values, shape, "a")
    b = np.asarray(b)
    if shp.size != 2 or b.ndim != 2:
        raise invalid(ctx, f"both operands must be matrices: a has dense shape {shp.tolist()}, "
                      f"b has shape {list(b.shape)}")
    rows, cols = ind[:, 0], ind[:, 1]
    a_rows, a_inner = int(shp[0]), int(shp[1])
    if ctx.attrs["adjoint_a"]:
        rows, cols, a_rows, a_inner = cols, rows, a_inner, a_rows
        val = np.conj(val)
    opb = np.conj(b.T) if ctx.attrs["adjoint_b"] else b
    if opb.shape[0] != a_inner:
        raise invalid(ctx, f"cannot multiply a [{a_rows}, {a_inner}] (after adjoint_a) by b "
                      f"{list(opb.shape)} (after adjoint_b): inner dimensions {a_inner} and "
                      f"{opb.shape[0]} differ")
    out = np.zeros((a_rows, opb.shape[1]), dtype=np.result_type(val, opb))
    if rows.size:
        np.add.at(out, rows, val[:, None] * opb[cols])
    return out


@register_kernel("SparseReduceSum")
def _sparse_reduce_sum(ctx: KernelContext, indices: Any, values: Any, shape: Any,
                       axes: Any) -> np.ndarray:
    ind, val, shp = check_sparse(ctx, indices, values, shape)
    rank = shp.size
    ax = np.asarray(axes).reshape(-1)
    for a in ax:
        if not -rank <= a < max(rank, 1):
            raise invalid(ctx, f"axis {int(a)} is out of range for a sparse tensor of rank "
                          f"{rank}")
    red = sorted({int(a) % rank for a in ax}) if rank else []
    kept = [d for d in range(rank) if d not in red]
    if kept:
        out = np.zeros(tuple(int(shp[d]) for d in kept), dtype=val.dtype)
        if ind.shape[0]:
            np.add.at(out, tuple(ind[:, kept].T), val)
    else:
        out = np.asarray(val.sum(dtype=val.dtype))
    if ctx.attrs["keep_dims"]:
        out = out.reshape(tuple(1 if d in red else int(shp[d]) for d in range(rank)))
    return out


# -- reordering, concatenating, adding ------------------------------------------------------------

@register_kernel("SparseReorder")
def _sparse_reorder(ctx: KernelContext, indices: Any, values: Any,
                    shape: Any) -> Tuple[np.ndarray, np.ndarray]:
    ind, val, _ = check_sparse(ctx, indices, values, shape)
    order = _order(ind)
    return ind[order], val[order]


@register_kernel("SparseConcat")
def _sparse_concat(ctx: KernelContext, *ins: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = ctx.attrs["N"]
    parts = [check_sparse(ctx, ins[i], ins[n + i], ins[2 * n + i], f"input {i}")
             for i in range(n)]
    rank = parts[0][2].size
    for i, (_, _, s) in enumerate(parts):
        if s.size != rank:
            raise invalid(ctx, f"all inputs must have the same rank: input 0 has rank {rank}, "
                          f"input {i} has rank {s.size}")
    axis = ctx.attrs["concat_dim"]
    if not -rank <= axis < rank:
        raise invalid(ctx, f"concat axis {axis} is out of range for rank {rank}")
    axis %= rank
    out_shape = parts[0][2].copy()
    for i, (_, _, s) in enumerate(parts[1:], 1):
        other = [d for d in range(rank) if d != axis]
        if ctx.attrs["expand_nonconcat_dim"]:
            out_shape[other] = np.maximum(out_shape[other], s[other])
        elif np.any(s[other] != out_shape[other]):
            raise invalid(ctx, f"input {i} has dense shape {s.tolist()}, which differs from "
                          f"input 0's {parts[0][2].tolist()} outside the concat axis {axis}")
    offset = 0
    inds, vals = [], []
    for ind, val, s in parts:
        moved = ind.copy()
        moved[:, axis] += offset
        offset += int(s[axis])
        inds.append(moved)
        vals.append(val)
    out_shape[axis] = offset
    ind, val = np.concatenate(inds, 0), np.concatenate(vals, 0)
    order = _order(ind)
    return ind[order], val[order], out_shape


def _row_keys(ind: np.ndarray) -> List[bytes]:
    """One hashable key per coordinate row."""
    ind = np.ascontiguousarray(ind, dtype=np.int64)
    return [row.tobytes() for row in ind]


@register_kernel("SparseAdd")
def _sparse_add(ctx: KernelContext, a_ind: Any, a_val: Any, a_shape: Any, b_ind: Any,
                b_val: Any, b_shape: Any, thresh: Any) -> Tuple[np.ndarray, ...]:
    ai, av, ashp = check_sparse(ctx, a_ind, a_val, a_shape, "a")
    bi, bv, bshp = check_sparse(ctx, b_ind, b_val, b_shape, "b")
    if ashp.tolist() != bshp.tolist():
        raise invalid(ctx, f"operands must have the same dense shape, got {ashp.tolist()} and "
                      f"{bshp.tolist()}")
    ind = np.concatenate([ai, bi], 0)
    val = np.concatenate([av, bv], 0)
    order = _order(ind)
    ind, val = ind[order], val[order]
    if ind.shape[0]:
        first = np.ones(ind.shape[0], bool)
        first[1:] = np.any(ind[1:] != ind[:-1], axis=1)
        starts = np.flatnonzero(first)
        ind = ind[starts]
        val = np.add.reduceat(val, starts) if val.size else val
    keep = np.abs(val) >= np.asarray(thresh)
    return ind[keep], val[keep], ashp


@register_kernel("SparseAddGrad")
def _sparse_add_grad(ctx: KernelContext, grad: Any, a_ind: Any, b_ind: Any,
                     sum_ind: Any) -> Tuple[np.ndarray, np.ndarray]:
    grad = np.asarray(grad)
    where = {k: i for i, k in enumerate(_row_keys(np.asarray(sum_ind)))}
    outs = []
    for ind in (np.asarray(a_ind), np.asarray(b_ind)):
        g = np.zeros(ind.shape[0], dtype=grad.dtype)
        for j, k in enumerate(_row_keys(ind)):
            pos = where.get(k)
            if pos is not None:  # dropped by thresh otherwise: no gradient
                g[j] = grad[pos]
        outs.append(g)
    return outs[0], outs[1]


@register_kernel("SparseFillEmptyRows")
def _sparse_fill_empty_rows(ctx: KernelContext, indices: Any, values: Any, shape: Any,
                            default_value: Any) -> Tuple[np.ndarray, ...]:
    ind, val, shp = check_sparse(ctx, indices, values, shape)
    dv = np.asarray(default_value)
    if dv.ndim != 0:
        raise invalid(ctx, f"default_value must be a scalar, got shape {list(dv.shape)}")
    if shp.size < 1:
        raise invalid(ctx, "the sparse tensor must have rank at least 1")
    rows = int(shp[0])
    counts = np.bincount(ind[:, 0], minlength=rows) if ind.shape[0] else np.zeros(rows, int)
    empty = counts == 0
    filler = np.zeros((int(empty.sum()), shp.size), np.int64)
    filler[:, 0] = np.flatnonzero(empty)
    all_ind = np.concatenate([ind, filler], 0)
    all_val = np.concatenate([val, np.full(filler.shape[0], dv, dtype=val.dtype)], 0)
    # Ordered by row; entries of one row keep their input order.
    order = np.argsort(all_ind[:, 0], kind="stable")
    reverse = np.empty(ind.shape[0], np.int64)
    pos = np.empty(order.size, np.int64)
    pos[order] = np.arange(order.size)
    reverse[:] = pos[:ind.shape[0]]
    return all_ind[order], all_val[order], empty, reverse


@register_kernel("RaggedFillEmptyRows")
def _ragged_fill_empty_rows(ctx: KernelContext, value_rowids: Any, values: Any, nrows: Any,
                            default_value: Any) -> Tuple[np.ndarray, ...]:
    rowids, val = np.asarray(value_rowids, np.int64), np.asarray(values)
    n = int(np.asarray(nrows))
    if rowids.ndim != 1 or val.ndim != 1 or rowids.shape != val.shape:
        raise invalid(ctx, f"value_rowids and values must be vectors of one length, got "
                      f"shapes {list(rowids.shape)} and {list(val.shape)}")
    if rowids.size and (rowids.min() < 0 or rowids.max() >= n):
        j = int(np.argmax((rowids < 0) | (rowids >= n)))
        raise invalid(ctx, f"value_rowids[{j}] = {int(rowids[j])} is not in [0, {n})")
    ind, filled, empty, reverse = _sparse_fill_empty_rows(
        ctx, rowids[:, None], val, np.array([n], np.int64), default_value)
    return ind[:, 0], filled, empty, reverse


@register_kernel("RaggedFillEmptyRowsGrad")
def _ragged_fill_empty_rows_grad(ctx: KernelContext, reverse_index_map: Any,
                                 grad_values: Any) -> Tuple[np.ndarray, np.ndarray]:
    rev, g = np.asarray(reverse_index_map, np.int64), np.asarray(grad_values)
    if rev.size and (rev.min() < 0 or rev.max() >= g.shape[0]):
        raise invalid(ctx, f"reverse_index_map holds positions outside grad_values' "
                      f"{g.shape[0]} entries")
    d_values = g[rev]
    return d_values, np.asarray(g.sum() - d_values.sum(), dtype=g.dtype)


# -- segments -------------------------------------------------------------------------------------

def _segments(ctx: KernelContext, data: Any, indices: Any, segment_ids: Any,
              num_segments: Any = None) -> Tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    data, idx, seg = np.asarray(data), np.asarray(indices), np.asarray(segment_ids)
    if data.ndim < 1:
        raise invalid(ctx, "data must be at least rank 1")
    if idx.ndim != 1 or seg.ndim != 1 or idx.shape != seg.shape:
        raise invalid(ctx, f"indices and segment_ids must be vectors of the same length, got "
                      f"shapes {list(idx.shape)} and {list(seg.shape)}")
    n = data.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        j = int(np.argmax((idx < 0) | (idx >= n)))
        raise invalid(ctx, f"indices[{j}] = {int(idx[j])} is out of range [0, {n}) of data's "
                      f"first dimension")
    if seg.size and (seg.min() < 0 or np.any(np.diff(seg) < 0)):
        j = 0 if seg[0] < 0 else int(np.argmax(np.diff(seg) < 0)) + 1
        raise invalid(ctx, f"segment_ids must be non-negative and sorted, but segment_ids[{j}] "
                      f"= {int(seg[j])}")
    out_rows = int(seg[-1]) + 1 if seg.size else 0
    if num_segments is not None:
        num = int(num_segments)
        if num < out_rows:
            raise invalid(ctx, f"segment_ids[{seg.size - 1}] = {int(seg[-1])} is out of range "
                          f"[0, {num}) given by num_segments")
        out_rows = num
    return data, idx, seg, out_rows


def _segment_reduce(ctx: KernelContext, args: Tuple[Any, ...], scale: str) -> np.ndarray:
    data, idx, seg, rows = _segments(ctx, *args)
    out = np.zeros((rows,) + data.shape[1:], dtype=data.dtype)
    if seg.size:
        np.add.at(out, seg, data[idx])
        if scale != "sum":
            counts = np.bincount(seg, minlength=rows).astype(np.float64)
            denom = counts if scale == "mean" else np.sqrt(counts)
            denom = np.maximum(denom, 1.0).reshape((rows,) + (1,) * (data.ndim - 1))
            out = (out / denom).astype(data.dtype, copy=False)
    return out


for _scale, _names in (("sum", ("SparseSegmentSum", "SparseSegmentSumWithNumSegments")),
                       ("mean", ("SparseSegmentMean", "SparseSegmentMeanWithNumSegments")),
                       ("sqrtn", ("SparseSegmentSqrtN", "SparseSegmentSqrtNWithNumSegments"))):
    def _make(scale: str) -> Any:
        def kernel(ctx: KernelContext, *args: Any) -> np.ndarray:
            return _segment_reduce(ctx, args, scale)
        return kernel
    for _n in _names:
        register_kernel(_n)(_make(_scale))


@register_kernel("Unique")
def _unique(ctx: KernelContext, x: Any) -> Tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x)
    if x.ndim != 1:
        raise invalid(ctx, f"x must be a vector, got shape {list(x.shape)}")
    _, first, inverse = np.unique(x, return_index=True, return_inverse=True)
    # Unique values in order of first appearance, as the op promises.
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    out_dt = np.int64 if ctx.attrs["out_idx"] == "int64" else np.int32
    return x[first[order]], rank[inverse.reshape(-1)].astype(out_dt)


@register_kernel("SparseRetain")
def _sparse_retain(ctx: KernelContext, indices: Any, values: Any,
                   to_retain: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    ind, val, keep = np.asarray(indices), np.asarray(values), np.asarray(to_retain)
    if keep.ndim != 1 or keep.shape[0] != val.shape[0]:
        raise invalid(ctx, f"to_retain must be a bool vector with one entry per value "
                      f"({val.shape[0]}), got shape {list(keep.shape)}")
    kept = np.flatnonzero(keep).astype(np.int64)
    return ind[kept], val[kept], kept
