"""numpy kernels of the fused categorical ops (``ops/sparse_lookup_ops.py``).

``StringToHashBucketSparse`` hashes the non-empty strings of all its features in
one pass (FarmHash ``Fingerprint64``, the ids of ``StringToHashBucketFast``).
``SparseLookupPrepare`` / ``SparseLookupCombine`` / ``SparseLookupCombineGrad``
are ``safe_embedding_lookup_sparse`` without weights: the same entry order (by
row, input order within a row), the same fill of empty rows and the same
per-row sums, means and square-root-n means. ``SparseLookupPrepareMany`` prepares
many columns' ids in one call, each column's outputs those of its own prepare op.
``SparseLookupCombineMany`` and its gradient do the combine of many columns in one
call, value for value as the per-column ops: columns of one row width as stacked
arrays, others one by one.
"""

from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.numpy.hash_kernels import fingerprint64
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
    return tuple(_prepare(ctx, indices, values, shape, int(ctx.attrs["default_id"]), ""))


@register_kernel("SparseLookupPrepareMany")
def _sparse_lookup_prepare_many(ctx: KernelContext, *inputs: Any) -> Tuple[np.ndarray, ...]:
    n = int(ctx.attrs["N"])
    defaults = [int(d) for d in ctx.attrs["default_ids"]]
    if n < 1 or len(inputs) != 3 * n or len(defaults) != n:
        raise invalid(ctx, f"expected 3 x {n} inputs and {n} default_ids, got "
                      f"{len(inputs)} and {len(defaults)}")
    inds, vals, shapes = [], [], []
    for i in range(n):
        ind, val = np.asarray(inputs[i]), np.asarray(inputs[n + i])
        shp = np.asarray(inputs[2 * n + i])
        if shp.shape != (2,) or ind.ndim != 2 or ind.shape[1] != 2 or \
                val.shape != (ind.shape[0],):
            raise invalid(ctx, f"column {i}: the ids must be a sparse matrix [batch, k]: "
                          f"indices [N, 2], values [N], dense_shape [2]; got shapes "
                          f"{list(ind.shape)}, {list(val.shape)}, {list(shp.shape)}")
        inds.append(ind)
        vals.append(val)
        shapes.append(shp)
    if any(v.dtype.kind != "i" for v in vals):
        # Unsigned ids do not stack with signed ones without changing their values.
        out: List[np.ndarray] = []
        for i in range(n):
            out += _prepare(ctx, inds[i], vals[i], shapes[i], defaults[i], f"column {i}: ")
        return tuple(out)
    return tuple(_prepare_stacked(ctx, inds, vals, np.stack(shapes).astype(np.int64), defaults))


def _prepare_stacked(ctx: KernelContext, inds: List[np.ndarray], vals: List[np.ndarray],
                     shapes: np.ndarray, defaults: List[int]) -> List[np.ndarray]:
    """``_prepare`` of every column at once: the columns' examples stacked one after
    another, entries keyed by (column, value) for the distinct ids. Values equal the
    per-column results: the same entry order and the same sorted distinct ids."""
    n = len(vals)
    sizes = [v.size for v in vals]
    col = np.repeat(np.arange(n), sizes)
    ind = np.concatenate(inds).astype(np.int64, copy=False)
    val = np.concatenate(vals).astype(np.int64, copy=False)
    batch = shapes[:, 0]
    if ind.shape[0] and (ind.min() < 0 or (ind[:, 0] >= batch[col]).any() or
                         (ind[:, 1] >= shapes[col, 1]).any()):
        # Only on error: which column is at fault.
        bad = (ind < 0).any(axis=1) | (ind[:, 0] >= batch[col]) | (ind[:, 1] >= shapes[col, 1])
        i = int(col[np.argmax(bad)])
        raise invalid(ctx, f"column {i}: indices must lie in dense_shape {shapes[i].tolist()}")
    first_row = np.concatenate([[0], np.cumsum(batch)[:-1]]).astype(np.int64)
    row = ind[:, 0] + first_row[col]
    keep = val >= 0
    if not keep.all():
        row, val, col = row[keep], val[keep], col[keep]
    empty = np.bincount(row, minlength=int(batch.sum())) == 0
    if empty.any():
        # An empty row gets its column's default id, cast as the per-column op casts it.
        erow = np.flatnonzero(empty)
        ecol = np.repeat(np.arange(n), batch)[erow]
        fills = np.array([np.array(max(d, 0), dtype=v.dtype) for d, v in zip(defaults, vals)],
                         dtype=np.int64)
        row = np.concatenate([row, erow])
        val = np.concatenate([val, fills[ecol]])
        col = np.concatenate([col, ecol])
    if row.size > 1 and np.any(row[1:] < row[:-1]):
        # By row (so by column), a row's entries in input order.
        order = np.argsort(row, kind="stable")
        row, val, col = row[order], val[order], col[order]
    span = int(val.max()) + 1 if val.size else 1
    if span * n < 2 ** 62:
        # Ids are >= 0 here: one int64 key per (column, id), sorted far faster than
        # the two keys of a lexsort.
        by_value = np.argsort(col * span + val, kind="stable")
    else:
        by_value = np.lexsort((val, col))
    sv, sc = val[by_value], col[by_value]
    new = np.ones(sv.size, dtype=bool)
    new[1:] = (sv[1:] != sv[:-1]) | (sc[1:] != sc[:-1])
    group = np.cumsum(new) - 1
    u_first = np.searchsorted(sc[new], np.arange(n + 1))
    idx = np.empty(val.size, dtype=np.int64)
    idx[by_value] = group
    idx -= u_first[col]
    uniq = sv[new]
    e_first = np.searchsorted(col, np.arange(n + 1))
    seg = row - first_row[col]
    out: List[np.ndarray] = []
    for i in range(n):
        a, b = e_first[i], e_first[i + 1]
        out += [uniq[u_first[i]:u_first[i + 1]].astype(vals[i].dtype),
                idx[a:b].astype(np.int32), seg[a:b].astype(np.int32),
                empty[first_row[i]:first_row[i] + batch[i]]]
    return out


def _prepare(ctx: KernelContext, indices: Any, values: Any, shape: Any, default_id: int,
             where: str) -> List[np.ndarray]:
    """``[unique_ids, idx, segment_ids, empty]`` of one column's sparse ids."""
    ind, val, shp = np.asarray(indices), np.asarray(values), np.asarray(shape)
    if shp.shape != (2,) or ind.ndim != 2 or ind.shape[1] != 2 or \
            val.shape != (ind.shape[0],):
        raise invalid(ctx, f"{where}the ids must be a sparse matrix [batch, k]: indices "
                      f"[N, 2], values [N], dense_shape [2]; got shapes {list(ind.shape)}, "
                      f"{list(val.shape)}, {list(shp.shape)}")
    rows = int(shp[0])
    if ind.shape[0] and (ind.min() < 0 or ind[:, 0].max() >= rows or
                         ind[:, 1].max() >= shp[1]):
        raise invalid(ctx, f"{where}indices must lie in dense_shape {shp.tolist()}")
    fill = max(default_id, 0)
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
    return [unique, idx.reshape(-1).astype(np.int32), row.astype(np.int32), empty]


def _row_scale(ctx: KernelContext, counts: np.ndarray, empty: np.ndarray,
               dtype: np.dtype) -> np.ndarray:
    """Per row, the factor that turns the sum of its entries into the combined value."""
    return _scale(ctx.attrs["combiner"], bool(ctx.attrs["zero_empty"]), counts, empty, dtype)


def _scale(combiner: str, zero_empty: bool, counts: np.ndarray, empty: np.ndarray,
           dtype: np.dtype) -> np.ndarray:
    """``_row_scale`` of one column given its combiner and empty-row rule."""
    if combiner == "sum":
        scale = np.ones(empty.shape[0], dtype=dtype)
    else:
        c = np.maximum(counts, 1).astype(dtype)
        scale = np.reciprocal(c if combiner == "mean" else np.sqrt(c))
    if zero_empty:
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
    return _combine(data, idx, seg, empty.shape[0], one_each,
                    _row_scale(ctx, counts, empty, data.dtype))


def _combine(data: np.ndarray, idx: np.ndarray, seg: np.ndarray, n: int, one_each: bool,
             scale: np.ndarray) -> np.ndarray:
    """The ``n`` combined rows of one column, given its per-row ``scale``."""
    scale = scale.reshape((n,) + (1,) * (data.ndim - 1))
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


def _columns(ctx: KernelContext, inputs: Tuple[Any, ...]) -> List[Tuple[Any, ...]]:
    """Per column of a ``SparseLookupCombineMany`` (or its gradient): the rows as a
    matrix, ``_entries`` of its ids, its combiner and empty-row rule."""
    n = int(ctx.attrs["N"])
    combiners, zero_empty = list(ctx.attrs["combiners"]), list(ctx.attrs["zero_empty"])
    if len(inputs) != 4 * n or len(combiners) != n or len(zero_empty) != n:
        raise invalid(ctx, f"expected 4 x {n} inputs and {n} combiners and zero_empty "
                      f"flags, got {len(inputs)}, {len(combiners)} and {len(zero_empty)}")
    cols: List[Tuple[Any, ...]] = []
    batch = None
    for i in range(n):
        data = np.asarray(inputs[i])
        if data.ndim != 2:
            raise invalid(ctx, f"rows {i} must be a matrix, got shape {list(data.shape)}")
        entries = _entries(ctx, data.shape[0], inputs[n + i], inputs[2 * n + i],
                           inputs[3 * n + i])
        rows = entries[2].shape[0]
        if batch is None:
            batch = rows
        elif rows != batch:
            raise invalid(ctx, f"column {i} has {rows} examples, column 0 has {batch}")
        cols.append((data,) + entries + (combiners[i], bool(zero_empty[i])))
    return cols


class _Stacked:
    """All columns of a ``SparseLookupCombineMany`` of one row width as flat arrays,
    checked at once: entries ordered by column, then as each column gives them."""

    def __init__(self, ctx: KernelContext, inputs: Tuple[Any, ...]) -> None:
        n = int(ctx.attrs["N"])
        datas = [np.asarray(r) for r in inputs[:n]]
        idxs = [np.asarray(i) for i in inputs[n:2 * n]]
        segs = [np.asarray(x) for x in inputs[2 * n:3 * n]]
        empties = [np.asarray(e, dtype=bool) for e in inputs[3 * n:]]
        batch = empties[0].shape[0] if empties[0].ndim == 1 else -1
        for i in range(n):
            if idxs[i].ndim != 1 or segs[i].shape != idxs[i].shape:
                raise invalid(ctx, f"idx and segment_ids {i} must be vectors of one length, "
                              f"got shapes {list(idxs[i].shape)} and {list(segs[i].shape)}")
            if empties[i].shape != (batch,):
                raise invalid(ctx, f"empty {i} must be a vector of the {batch} examples of "
                              f"column 0, got shape {list(empties[i].shape)}")
        self.n, self.batch, self.width = n, batch, datas[0].shape[1]
        self.sizes = [d.shape[0] for d in datas]
        self.col = np.repeat(np.arange(n), [i.size for i in idxs])
        idx = np.concatenate(idxs).astype(np.int64)
        seg = np.concatenate(segs).astype(np.int64)
        first = np.concatenate([[0], np.cumsum(self.sizes)[:-1]]).astype(np.int64)
        self.key = self.col * batch + seg
        if idx.size:
            if idx.min() < 0 or (idx >= np.asarray(self.sizes)[self.col]).any():
                raise invalid(ctx, "idx must index the rows of its column")
            if seg.min() < 0 or seg.max() >= batch or (np.diff(self.key) < 0).any():
                raise invalid(ctx, f"segment_ids must be sorted and in [0, {batch})")
        self.seg, self.row = seg, idx + first[self.col]
        self.datas = datas
        counts = np.bincount(self.key, minlength=n * batch).reshape(n, batch)
        self.empty = np.stack(empties)
        self.counts = counts
        self.combiners = list(ctx.attrs["combiners"])
        self.zero_empty = [bool(z) for z in ctx.attrs["zero_empty"]]

    def scale(self, dtype: np.dtype) -> np.ndarray:
        """``_scale`` of every column, ``[N, batch]``, the same values elementwise."""
        comb = np.array(self.combiners)
        c = np.maximum(self.counts, 1).astype(dtype)
        scale = np.ones(c.shape, dtype=dtype)
        mean, sqrtn = comb == "mean", comb == "sqrtn"
        if mean.any():
            scale[mean] = np.reciprocal(c[mean])
        if sqrtn.any():
            scale[sqrtn] = np.reciprocal(np.sqrt(c[sqrtn]))
        scale[self.empty & np.array(self.zero_empty)[:, None]] = 0
        return scale


def _one_width(ctx: KernelContext, inputs: Tuple[Any, ...]) -> bool:
    """Whether every column's rows are matrices of one width and dtype, with lists of
    the expected lengths (the stacked path); anything else takes the per-column one,
    which reports what is wrong."""
    n = int(ctx.attrs["N"])
    if n < 1 or len(inputs) != 4 * n or len(ctx.attrs["combiners"]) != n or \
            len(ctx.attrs["zero_empty"]) != n:
        return False
    first = np.asarray(inputs[0])
    return all(np.ndim(r) == 2 and np.shape(r)[1] == first.shape[1] and
               np.asarray(r).dtype == first.dtype for r in inputs[:n]) and \
        np.ndim(inputs[3 * n]) == 1


@register_kernel("SparseLookupCombineMany")
def _sparse_lookup_combine_many(ctx: KernelContext, *inputs: Any) -> np.ndarray:
    if _one_width(ctx, inputs):
        st = _Stacked(ctx, inputs)
        data = np.concatenate(st.datas)
        n, batch, w = st.n, st.batch, st.width
        sums = np.zeros((n * batch, w), dtype=data.dtype)
        if st.key.size:
            # Keys are sorted: sum each run of one (column, example) at once.
            starts = np.flatnonzero(np.r_[True, st.key[1:] != st.key[:-1]])
            if starts.size == st.key.size:
                sums[st.key] = data[st.row]
            else:
                sums[st.key[starts]] = np.add.reduceat(data[st.row], starts, axis=0)
        sums *= st.scale(data.dtype).reshape(-1, 1)
        per = sums.reshape(n, batch, w)
        if ctx.attrs["reduce"] == "concat":
            return np.ascontiguousarray(per.transpose(1, 0, 2)).reshape(batch, n * w)
        total = per[0].copy()
        for k in range(1, n):
            total += per[k]
        return total
    parts = []
    for data, idx, seg, empty, counts, one_each, combiner, zero_empty in _columns(ctx, inputs):
        scale = _scale(combiner, zero_empty, counts, empty, data.dtype)
        parts.append(_combine(data, idx, seg, empty.shape[0], one_each, scale))
    if ctx.attrs["reduce"] == "concat":
        return np.concatenate(parts, axis=1)
    if any(p.shape != parts[0].shape for p in parts):
        raise invalid(ctx, f"columns summed must have one width, got "
                      f"{[p.shape[1] for p in parts]}")
    # Added in column order, as AddN over the per-column results adds them.
    total = parts[0].copy()
    for p in parts[1:]:
        total += p
    return total


@register_kernel("SparseLookupCombineManyGrad")
def _sparse_lookup_combine_many_grad(ctx: KernelContext, grad: Any,
                                     *inputs: Any) -> Tuple[np.ndarray, ...]:
    g = np.asarray(grad)
    concat = ctx.attrs["reduce"] == "concat"
    if _one_width(ctx, inputs):
        st = _Stacked(ctx, inputs)
        n, batch, w = st.n, st.batch, st.width
        want = [batch, n * w if concat else w]
        if list(g.shape) != want:
            raise invalid(ctx, f"grad must have shape {want}, got {list(g.shape)}")
        per = g.reshape(batch, n, w).transpose(1, 0, 2) if concat else g[None]
        scaled = per * st.scale(g.dtype)[:, :, None]
        entries = scaled[st.col, st.seg]
        # A weighted bincount over the stacked rows per element of a row: each sums
        # its entries in the order the per-column gradient does. Per element rather
        # than over (row, element) cells keeps the temporaries small, which numpy
        # allocates far faster than large ones.
        u = sum(st.sizes)
        out = np.empty((u, w), dtype=g.dtype)
        for j in range(w):
            out[:, j] = np.bincount(st.row, weights=entries[:, j], minlength=u)
        return tuple(np.split(out, np.cumsum(st.sizes)[:-1]))
    cols = _columns(ctx, inputs)
    widths = [c[0].shape[1] for c in cols]
    batch = cols[0][3].shape[0] if cols else 0
    want = [batch, sum(widths)] if concat else [batch, widths[0] if widths else 0]
    if list(g.shape) != want:
        raise invalid(ctx, f"grad must have shape {want}, got {list(g.shape)}")
    cells, weights, sizes = [], [], []
    base = offset = 0
    for (data, idx, seg, empty, counts, one_each, combiner, zero_empty), w in zip(cols, widths):
        if concat:
            part = g[:, offset:offset + w]
            offset += w
        elif w != want[1]:
            raise invalid(ctx, f"columns summed must have one width, got {widths}")
        else:
            part = g
        scale = _scale(combiner, zero_empty, counts, empty, g.dtype)
        scaled = part * scale[:, None]
        if not one_each:
            scaled = scaled[seg]
        # Every column's (distinct id, column) cells are offset past the previous
        # columns', so one weighted bincount serves all of them.
        cells.append((idx.astype(np.int64)[:, None] * w + np.arange(w)).reshape(-1) + base)
        weights.append(scaled.reshape(-1))
        sizes.append(data.shape[0] * w)
        base += sizes[-1]
    if not cols:
        return ()
    flat = np.bincount(np.concatenate(cells), weights=np.concatenate(weights), minlength=base)
    flat = flat.astype(g.dtype, copy=False)
    bounds = np.cumsum(sizes)[:-1]
    return tuple(piece.reshape(c[0].shape)
                 for piece, c in zip(np.split(flat, bounds), cols))


__all__: list = []
