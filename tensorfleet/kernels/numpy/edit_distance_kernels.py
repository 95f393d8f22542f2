"""numpy kernel of ``EditDistance`` (``ops/edit_distance_ops.py``)."""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel


def _levenshtein(a: List[Any], b: List[Any]) -> int:
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y))
        prev = cur
    return prev[-1]


def _sequences(ctx: KernelContext, indices: Any, values: Any, shape: Any,
               what: str) -> Tuple[List[int], Dict[Tuple[int, ...], List[Any]]]:
    ind = np.asarray(indices, np.int64)
    vals = np.asarray(values)
    dims = [int(d) for d in np.asarray(shape).reshape(-1)]
    if len(dims) < 1 or ind.ndim != 2 or ind.shape[1] != len(dims) or \
            ind.shape[0] != vals.shape[0]:
        raise invalid(ctx, f"{what}: indices of shape {list(ind.shape)} do not fit "
                           f"{vals.shape[0]} values of a rank-{len(dims)} tensor")
    if ind.size and ((ind < 0).any() or (ind >= np.asarray(dims)).any()):
        raise invalid(ctx, f"{what}: an index is out of bounds of shape {dims}")
    order = np.lexsort(ind.T[::-1]) if ind.size else np.zeros(0, np.int64)
    seqs: Dict[Tuple[int, ...], List[Any]] = {}
    for k in order.tolist():
        seqs.setdefault(tuple(ind[k, :-1].tolist()), []).append(vals[k])
    return dims[:-1], seqs


@register_kernel("EditDistance")
def _edit_distance(ctx: KernelContext, hi: Any, hv: Any, hs: Any, ti: Any, tv: Any,
                   ts: Any) -> np.ndarray:
    hdims, hyp = _sequences(ctx, hi, hv, hs, "hypothesis")
    tdims, truth = _sequences(ctx, ti, tv, ts, "truth")
    if len(hdims) != len(tdims):
        raise invalid(ctx, f"hypothesis and truth differ in rank: {len(hdims) + 1} vs "
                           f"{len(tdims) + 1}")
    normalize = bool(ctx.attrs.get("normalize", True))
    out = np.zeros([max(a, b) for a, b in zip(hdims, tdims)], np.float32)
    for loc in set(hyp) | set(truth):
        h, t = hyp.get(loc, []), truth.get(loc, [])
        d = float(_levenshtein(h, t))
        if normalize:
            d = d / len(t) if t else (np.inf if h else 0.0)
        out[loc] = d
    return out
