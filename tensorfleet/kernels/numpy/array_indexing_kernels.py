"""numpy kernels of the array ops, continued: slicing, gathering, padding, segments."""

from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid, norm_axis, shape_arg
from tensorfleet.kernels.registry import KernelContext, register_kernel


def _ints(v: Any) -> List[int]:
    return [int(i) for i in np.reshape(v, [-1])]


# -- slicing ----------------------------------------------------------------------------------

@register_kernel("Slice")
def _slice(ctx: KernelContext, x: Any, begin: Any, size: Any) -> np.ndarray:
    x = np.asarray(x)
    b, s = _ints(begin), _ints(size)
    if len(b) != x.ndim or len(s) != x.ndim:
        raise invalid(ctx, f"Expected begin and size arguments to be 1-D tensors of size "
                      f"{x.ndim}, but got shapes [{len(b)}] and [{len(s)}] instead.")
    idx = []
    for i, (bi, si, d) in enumerate(zip(b, s, x.shape)):
        if si == -1:
            si = d - bi
        if not (0 <= bi <= d and 0 <= si and bi + si <= d):
            raise invalid(ctx, f"Expected begin[{i}] in [0, {d}] and size[{i}] in "
                          f"[0, {d - bi}], but got {bi} and {s[i]}")
        idx.append(slice(bi, bi + si))
    return x[tuple(idx)]


def _strided_index(ctx: KernelContext, begin: Any, end: Any, strides: Any) -> tuple:
    """The numpy index equivalent to a StridedSlice spec; cached per distinct spec."""
    b, e, s = np.asarray(begin), np.asarray(end), np.asarray(strides)
    key = (b.tobytes(), e.tobytes(), s.tobytes())
    cached = ctx.state.get("index")
    if cached is not None and cached[0] == key:
        return cached[1]
    a = ctx.attrs
    bm, em, ell = a["begin_mask"], a["end_mask"], a["ellipsis_mask"]
    new, shrink = a["new_axis_mask"], a["shrink_axis_mask"]
    b, e, s = _ints(b), _ints(e), _ints(s)
    if not len(b) == len(e) == len(s):
        raise invalid(ctx, f"begin, end and strides must have the same length, got "
                      f"{len(b)}, {len(e)} and {len(s)}")
    idx: List[Any] = []
    for i in range(len(b)):
        if (ell >> i) & 1:
            idx.append(Ellipsis)
        elif (new >> i) & 1:
            idx.append(None)
        elif (shrink >> i) & 1:
            idx.append(b[i])
        else:
            if s[i] == 0:
                raise invalid(ctx, f"strides[{i}] must be non-zero")
            idx.append(slice(None if (bm >> i) & 1 else b[i], None if (em >> i) & 1 else e[i],
                             s[i]))
    out = tuple(idx)
    ctx.state["index"] = (key, out)
    return out


@register_kernel("StridedSlice")
def _strided_slice(ctx: KernelContext, x: Any, begin: Any, end: Any,
                   strides: Any) -> np.ndarray:
    x = np.asarray(x)
    idx = _strided_index(ctx, begin, end, strides)
    try:
        r = x[idx]
    except IndexError as err:
        raise invalid(ctx, f"slice {idx} out of bounds for shape {list(x.shape)}: {err}") from None
    return r if type(r) is np.ndarray else np.asarray(r)


@register_kernel("StridedSliceGrad")
def _strided_slice_grad(ctx: KernelContext, shape: Any, begin: Any, end: Any, strides: Any,
                        dy: Any) -> np.ndarray:
    dy = np.asarray(dy)
    out = np.zeros(shape_arg(ctx, shape), dtype=dy.dtype)
    out[_strided_index(ctx, begin, end, strides)] = dy
    return out


# -- gathering ----------------------------------------------------------------------------------

@register_kernel("GatherV2")
def _gather(ctx: KernelContext, params: Any, indices: Any, axis: Any) -> np.ndarray:
    params = np.asarray(params)
    indices = np.asarray(indices)
    if params.ndim == 0:
        raise invalid(ctx, "params must be at least 1 dimensional")
    a = norm_axis(ctx, axis, params.ndim)
    n = params.shape[a]
    if indices.size:
        lo, hi = indices.min(), indices.max()
        if lo < 0 or hi >= n:
            bad = lo if lo < 0 else hi
            pos = np.argwhere(indices == bad)[0].tolist()
            raise invalid(ctx, f"indices{pos} = {bad} is not in [0, {n})")
    return np.take(params, indices, axis=a)


@register_kernel("OneHot")
def _one_hot(ctx: KernelContext, indices: Any, depth: Any, on: Any, off: Any) -> np.ndarray:
    ind = np.asarray(indices)
    d = int(depth)
    if d < 0:
        raise invalid(ctx, f"depth must be non-negative, got {d}")
    axis = ctx.attrs["axis"]
    pos = ind.ndim if axis == -1 else axis
    ar_shape = [1] * (ind.ndim + 1)
    ar_shape[pos] = d
    hot = np.expand_dims(ind, pos) == np.arange(d, dtype=ind.dtype).reshape(ar_shape)
    return np.where(hot, np.asarray(on), np.asarray(off))


@register_kernel("Tile")
def _tile(ctx: KernelContext, x: Any, multiples: Any) -> np.ndarray:
    x = np.asarray(x)
    m = _ints(multiples)
    if len(m) != x.ndim or any(k < 0 for k in m):
        raise invalid(ctx, f"Expected multiples argument to be a vector of length {x.ndim} "
                      f"with non-negative entries, got {m}")
    return np.tile(x, m)


# -- padding ----------------------------------------------------------------------------------

def _paddings(ctx: KernelContext, x: np.ndarray, paddings: Any) -> np.ndarray:
    p = np.asarray(paddings)
    if p.shape != (x.ndim, 2):
        raise invalid(ctx, f"paddings must be a matrix of shape [{x.ndim}, 2], got "
                      f"{list(p.shape)}")
    if (p < 0).any():
        raise invalid(ctx, f"paddings must be non-negative, got {p.tolist()}")
    return p


def _pad_constant(ctx: KernelContext, x: Any, paddings: Any, c: Any) -> np.ndarray:
    x = np.asarray(x)
    p = _paddings(ctx, x, paddings)
    shp = tuple(int(d + b + a) for d, (b, a) in zip(x.shape, p.tolist()))
    if x.dtype != object and not np.any(c):
        out = np.zeros(shp, dtype=x.dtype)
    else:
        out = np.full(shp, c, dtype=x.dtype)
    out[tuple(slice(int(b), int(b) + d) for d, (b, _) in zip(x.shape, p.tolist()))] = x
    return out


@register_kernel("Pad")
def _pad(ctx: KernelContext, x: Any, paddings: Any) -> np.ndarray:
    return _pad_constant(ctx, x, paddings, 0)


@register_kernel("PadV2")
def _pad_v2(ctx: KernelContext, x: Any, paddings: Any, c: Any) -> np.ndarray:
    if np.ndim(c) != 0:
        raise invalid(ctx, f"constant_values must be a scalar, got shape {list(np.shape(c))}")
    return _pad_constant(ctx, x, paddings, c)


@register_kernel("MirrorPad")
def _mirror_pad(ctx: KernelContext, x: Any, paddings: Any) -> np.ndarray:
    x = np.asarray(x)
    p = _paddings(ctx, x, paddings)
    mode = ctx.attrs["mode"]
    off = 1 if mode == "REFLECT" else 0
    for d, (b, a) in zip(x.shape, p.tolist()):
        if b > d - off or a > d - off:
            raise invalid(ctx, f"paddings {[b, a]} must be no greater than {d - off} for a "
                          f"dimension of size {d} in {mode} mode")
    return np.pad(x, p, mode="reflect" if off else "symmetric")


@register_kernel("MirrorPadGrad")
def _mirror_pad_grad(ctx: KernelContext, grad: Any, paddings: Any) -> np.ndarray:
    # Folds every padded border back onto the input positions it was copied from.
    g = np.asarray(grad)
    p = np.asarray(paddings).tolist()
    off = 1 if ctx.attrs["mode"] == "REFLECT" else 0
    for ax, (b, a) in enumerate(p):
        if not b and not a:
            continue
        n = g.shape[ax] - b - a

        def sl(start: int, stop: int) -> tuple:
            return (slice(None),) * ax + (slice(start, stop),)

        core = g[sl(b, b + n)].copy()
        if b:
            core[sl(off, off + b)] += np.flip(g[sl(0, b)], axis=ax)
        if a:
            core[sl(n - off - a, n - off)] += np.flip(g[sl(b + n, b + n + a)], axis=ax)
        g = core
    return g


# -- ranges and selection --------------------------------------------------------------

@register_kernel("Range")
def _range(ctx: KernelContext, start: Any, limit: Any, delta: Any) -> np.ndarray:
    dt = ctx.attrs["Tidx"].np
    s, lim, d = (np.asarray(v).item() for v in (start, limit, delta))
    if d == 0:
        raise invalid(ctx, "Requires delta != 0")
    if (d > 0 and s > lim) or (d < 0 and s < lim):
        raise invalid(ctx, f"Requires start {'<=' if d > 0 else '>='} limit when delta "
                      f"{'>' if d > 0 else '<'} 0: {s}/{lim}")
    n = int(np.ceil(abs((lim - s) / d)))
    if dt.kind in "iu":
        return np.arange(s, s + n * d, d, dtype=dt)[:n]
    return (s + d * np.arange(n, dtype=np.float64)).astype(dt)


@register_kernel("Where")
def _where(ctx: KernelContext, cond: Any) -> np.ndarray:
    return np.argwhere(np.asarray(cond)).astype(np.int64, copy=False)


@register_kernel("Select")
def _select(ctx: KernelContext, cond: Any, x: Any, y: Any) -> np.ndarray:
    c, x, y = np.asarray(cond), np.asarray(x), np.asarray(y)
    if x.shape != y.shape:
        raise invalid(ctx, f"'then' and 'else' must have the same shape: {list(x.shape)} vs. "
                      f"{list(y.shape)}")
    if c.shape != x.shape:
        if c.ndim == 1 and x.ndim > 1 and c.shape[0] == x.shape[0]:
            c = c.reshape((-1,) + (1,) * (x.ndim - 1))
        else:
            raise invalid(ctx, f"condition must be a vector of size {x.shape[:1]} or have the "
                          f"shape {list(x.shape)} of 'then', got {list(c.shape)}")
    return np.where(c, x, y)


# -- segments, partitions, stitching ---------------------------------------------------------------

def _rows(ctx: KernelContext, data: np.ndarray, ids: np.ndarray, what: str) -> np.ndarray:
    if data.shape[:ids.ndim] != ids.shape:
        raise invalid(ctx, f"data.shape = {list(data.shape)} does not start with {what}.shape "
                      f"= {list(ids.shape)}")
    return data.reshape((ids.size,) + data.shape[ids.ndim:])


@register_kernel("UnsortedSegmentSum")
def _unsorted_segment_sum(ctx: KernelContext, data: Any, segment_ids: Any,
                          num_segments: Any) -> np.ndarray:
    data, ids = np.asarray(data), np.asarray(segment_ids)
    num = int(num_segments)
    if num < 0:
        raise invalid(ctx, f"num_segments must be non-negative, got {num}")
    rows = _rows(ctx, data, ids, "segment_ids")
    flat = ids.reshape(-1)
    inner = data.shape[ids.ndim:]
    if flat.size:
        hi = flat.max()
        if hi >= num:
            raise invalid(ctx, f"segment_ids[{np.argmax(flat)}] = {hi} is out of range "
                          f"[0, {num})")
        if flat.min() < 0:  # negative ids mean "drop this row"
            keep = flat >= 0
            flat, rows = flat[keep], rows[keep]
    if rows.ndim == 1 and data.dtype.kind == "f":
        return np.bincount(flat, weights=rows, minlength=num).astype(data.dtype, copy=False)
    out = np.zeros((num,) + inner, dtype=data.dtype)
    if flat.size < 64 or data.dtype.kind not in "fiuc":
        np.add.at(out, flat, rows)
        return out
    # Sorting then summing contiguous runs beats np.add.at on row-shaped data.
    order = np.argsort(flat, kind="stable")
    ids_sorted = flat[order]
    starts = np.flatnonzero(np.concatenate(([True], ids_sorted[1:] != ids_sorted[:-1])))
    out[ids_sorted[starts]] = np.add.reduceat(rows[order], starts, axis=0)
    return out


@register_kernel("DynamicPartition")
def _dynamic_partition(ctx: KernelContext, data: Any, partitions: Any) -> Tuple[np.ndarray, ...]:
    data, p = np.asarray(data), np.asarray(partitions)
    num = ctx.attrs["num_partitions"]
    rows = _rows(ctx, data, p, "partitions")
    flat = p.reshape(-1)
    if flat.size and (flat.min() < 0 or flat.max() >= num):
        bad = flat[(flat < 0) | (flat >= num)][0]
        raise invalid(ctx, f"partitions contains {bad}, which is not in [0, {num})")
    if num == 1:
        return (rows,)
    order = np.argsort(flat, kind="stable")
    counts = np.bincount(flat, minlength=num)
    return tuple(np.split(rows[order], np.cumsum(counts[:-1])))


@register_kernel("DynamicStitch")
def _dynamic_stitch(ctx: KernelContext, *ins: Any) -> np.ndarray:
    n = ctx.attrs["N"]
    idxs = [np.asarray(i) for i in ins[:n]]
    datas = [np.asarray(d) for d in ins[n:]]
    inner = datas[0].shape[idxs[0].ndim:]
    size = 0
    for i, d in zip(idxs, datas):
        if d.shape != i.shape + inner:
            raise invalid(ctx, f"data shape {list(d.shape)} must be indices shape "
                          f"{list(i.shape)} followed by {list(inner)}")
        if i.size:
            if i.min() < 0:
                raise invalid(ctx, f"indices must be non-negative, got {int(i.min())}")
            size = max(size, int(i.max()) + 1)
    out = np.zeros((size,) + inner, dtype=datas[0].dtype)
    for i, d in zip(idxs, datas):
        out[i.reshape(-1)] = d.reshape((i.size,) + inner)
    return out
