"""numpy kernels of the fused categorical ops (``ops/sparse_lookup_ops.py``).

``StringToHashBucketSparse`` hashes the non-empty strings of all its features in
one pass (FarmHash ``Fingerprint64``, the ids of ``StringToHashBucketFast``).
``SparseLookupPrepare`` / ``SparseLookupCombine`` / ``SparseLookupCombineGrad``
are ``safe_embedding_lookup_sparse`` without weights: the same entry order (by
row, input order within a row), the same fill of empty rows and the same
per-row sums, means and square-root-n means.
"""

from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np

from tensorfleet.kernels.array_kernels import invalid
from tensorfleet.kernels.hash_kernels import fingerprint64
from tensorfleet.kernels.registry import KernelContext, register_kernel


def _non_empty(ctx: KernelContext, arr: np.ndarray, i: int) -> np.ndarray:
    """The mask of non-empty strings of input ``i``."""
    if arr.dtype.kind in "SU":
        return arr != arr.dtype.type()
    if arr.dtype != object:
        raise invalid(ctx, f"input {i} must hold strings, got {arr.dtype}")
    # Elementwise compares in C; a str "" and a bytes b"" both mean "missing".
    return (arr != b"") & (arr != "")


def _fingerprints(ctx: KernelContext, values: np.ndarray) -> np.ndarray:
    """Fingerprint64 of each string (bytes or str; a str hashes as its UTF-8 bytes)."""
    try:
        return fingerprint64(values)
    except TypeError as e:
        raise invalid(ctx, f"inputs must hold strings: {e}") from None


@register_kernel("StringToHashBucketSparse")
def _string_to_hash_bucket_sparse(ctx: KernelContext, *inputs: Any) -> Tuple[np.ndarray, ...]:
    buckets = [int(b) for b in ctx.attrs["num_buckets"]]
    if len(buckets) != len(inputs):
        raise invalid(ctx, f"{len(inputs)} inputs but {len(buckets)} num_buckets")
    kept: List[np.ndarray] = []
    shapes: List[np.ndarray] = []
    indices: List[np.ndarray] = []
    for i, x in enumerate(inputs):
        arr = np.asarray(x)
        if arr.ndim == 0:
            raise invalid(ctx, f"input {i} is a scalar; it needs a batch dimension")
        if arr.ndim == 1:
            arr = arr.reshape(-1, 1)
        keep = _non_empty(ctx, arr, i)
        indices.append(np.argwhere(keep).astype(np.int64))
        kept.append(arr[keep])
        shapes.append(np.array(arr.shape, dtype=np.int64))
    counts = [k.size for k in kept]
    flat = np.concatenate(kept) if kept else np.zeros(0, object)
    mods = np.repeat(np.array(buckets, dtype=np.uint64), counts)
    ids = (_fingerprints(ctx, flat) % mods).astype(np.int64)
    out: List[np.ndarray] = []
    start = 0
    for ind, n, shp in zip(indices, counts, shapes):
        out += [ind, ids[start:start + n], shp]
        start += n
    return tuple(out)


@register_kernel("SparseLookupPrepare")
def _sparse_lookup_prepare(ctx: KernelContext, indices: Any, values: Any,
                           shape: Any) -> Tuple[np.ndarray, ...]:
    ind, val, shp = np.asarray(indices), np.asarray(values), np.asarray(shape)
    if shp.shape != (2,) or ind.ndim != 2 or ind.shape[1] != 2 or \
            val.shape != (ind.shape[0],):
        raise invalid(ctx, f"the ids must be a sparse matrix [batch, k]: indices [N, 2], "
                      f"values [N], dense_shape [2]; got shapes {list(ind.shape)}, "
                      f"{list(val.shape)}, {list(shp.shape)}")
    rows = int(shp[0])
    if ind.shape[0] and (ind.min() < 0 or ind[:, 0].max() >= rows or
                         ind[:, 1].max() >= shp[1]):
        raise invalid(ctx, f"indices must lie in dense_shape {shp.tolist()}")
    fill = max(int(ctx.attrs["default_id"]), 0)
    keep = val >= 0
    row = ind[:, 0]
    if not keep.all():
        row, val = row[keep], val[keep]
    counts = np.bincount(row, minlength=rows)
    empty = counts == 0
    if empty.any():
        row = np.concatenate([row, np.flatnonzero(empty)])
        val = np.concatenate([val, np.full(int(empty.sum()), fill, dtype=val.dtype)])
    if row.size > 1 and np.any(row[1:] < row[:-1]):
        # By row, a row's entries in input order: the order SparseFillEmptyRows gives.
        order = np.argsort(row, kind="stable")
        row, val = row[order], val[order]
    unique, idx = np.unique(val, return_inverse=True)
    return (unique, idx.reshape(-1).astype(np.int32), row.astype(np.int32), empty)


def _row_scale(ctx: KernelContext, counts: np.ndarray, empty: np.ndarray,
               dtype: np.dtype) -> np.ndarray:
    """Per row, the factor that turns the sum of its entries into the combined value."""
    combiner = ctx.attrs["combiner"]
    if combiner == "sum":
        scale = np.ones(empty.shape[0], dtype=dtype)
    else:
        c = np.maximum(counts, 1).astype(dtype)
        scale = np.reciprocal(c if combiner == "mean" else np.sqrt(c))
    if ctx.attrs["zero_empty"]:
        scale[empty] = 0
    return scale


def _entries(ctx: KernelContext, n_rows: int, idx: Any, segment_ids: Any,
             empty: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool]:
    """``idx``, ``segment_ids``, ``empty``, the entries per row, and whether there is
    exactly one entry per row (the common case of a one-value feature), after checks."""
    idx, seg = np.asarray(idx), np.asarray(segment_ids)
    empty = np.asarray(empty, dtype=bool)
    if idx.ndim != 1 or seg.shape != idx.shape:
        raise invalid(ctx, f"idx and segment_ids must be vectors of one length, got shapes "
                      f"{list(idx.shape)} and {list(seg.shape)}")
    if empty.ndim != 1:
        raise invalid(ctx, f"empty must be a vector, got shape {list(empty.shape)}")
    n = empty.shape[0]
    if not idx.size:
        return idx, seg, empty, np.zeros(n, np.int64), False
    if idx.min() < 0 or idx.max() >= n_rows:
        raise invalid(ctx, f"idx must be in [0, {n_rows}), got {int(idx.min())} to "
                      f"{int(idx.max())}")
    steps = np.diff(seg)
    if seg[0] < 0 or seg[-1] >= n or (steps < 0).any():
        raise invalid(ctx, f"segment_ids must be sorted and in [0, {n})")
    one_each = seg.size == n and seg[0] == 0 and bool((steps == 1).all())
    counts = np.ones(n, np.int64) if one_each else np.bincount(seg, minlength=n)
    return idx, seg, empty, counts, one_each


@register_kernel("SparseLookupCombine")
def _sparse_lookup_combine(ctx: KernelContext, rows: Any, idx: Any, segment_ids: Any,
                           empty: Any) -> np.ndarray:
    data = np.asarray(rows)
    if data.ndim < 1:
        raise invalid(ctx, "rows must be at least rank 1")
    idx, seg, empty, counts, one_each = _entries(ctx, data.shape[0], idx, segment_ids, empty)
    n = empty.shape[0]
    scale = _row_scale(ctx, counts, empty, data.dtype).reshape((n,) + (1,) * (data.ndim - 1))
    if one_each:
        return data[idx] * scale
    out = np.zeros((n,) + data.shape[1:], dtype=data.dtype)
    if idx.size:
        # Segment ids are sorted: sum each run of one row at once.
        starts = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
        out[seg[starts]] = np.add.reduceat(data[idx], starts, axis=0)
    return out * scale


@register_kernel("SparseLookupCombineGrad")
def _sparse_lookup_combine_grad(ctx: KernelContext, grad: Any, rows: Any, idx: Any,
                                segment_ids: Any, empty: Any) -> np.ndarray:
    g, data = np.asarray(grad), np.asarray(rows)
    idx, seg, empty, counts, one_each = _entries(ctx, data.shape[0], idx, segment_ids, empty)
    if g.shape != (empty.shape[0],) + data.shape[1:]:
        raise invalid(ctx, f"grad must have shape {[empty.shape[0]] + list(data.shape[1:])}, "
                      f"got {list(g.shape)}")
    scale = _row_scale(ctx, counts, empty, g.dtype)
    scaled = g * scale.reshape((-1,) + (1,) * (g.ndim - 1))
    if not one_each:
        scaled = scaled[seg]
    u = data.shape[0]
    if not idx.size:
        return np.zeros(data.shape, dtype=g.dtype)
    flat = scaled.reshape(idx.size, -1)
    width = flat.shape[1]
    # One weighted bincount over (distinct id, column) pairs: several times faster
    # than np.add.at for the few-column rows of embeddings and linear weights.
    cells = (idx.astype(np.int64)[:, None] * width + np.arange(width)).reshape(-1)
    out = np.bincount(cells, weights=flat.reshape(-1), minlength=u * width)
    return out.astype(g.dtype, copy=False).reshape(data.shape)


__all__: list = []
