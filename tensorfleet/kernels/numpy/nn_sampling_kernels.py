"""numpy kernels of ``TopKV2``, the candidate samplers and ``ComputeAccidentalHits``.

Each sampler op draws from its own generator (``random_kernels.generator``),
so a seeded graph replays the same candidates in every new session. A unique
sampler draws in batches until it has ``num_sampled`` distinct ids and counts
every draw it needed (``num_tries``); the expected count of an id of
probability ``p`` is then ``1 - (1 - p) ** num_tries``, or ``num_sampled * p``
when draws may repeat.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.numpy.random_kernels import generator
from tensorfleet.kernels.registry import KernelContext, register_kernel

_FLT_MAX = np.finfo(np.float32).max


def _bad(ctx: KernelContext, msg: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(ctx.op_name, None, msg)


@register_kernel("TopKV2")
def _top_k(ctx: KernelContext, x: Any, k: Any) -> Tuple[np.ndarray, np.ndarray]:
    k = int(k)
    if x.ndim < 1:
        raise _bad(ctx, "input must be at least 1-D")
    n = x.shape[-1]
    if k < 0 or k > n:
        raise _bad(ctx, f"input must have at least k={k} columns, got shape {list(x.shape)}")
    # Few of many: select in linear time (NaN rows keep the full sort's ordering).
    if 0 < k and 8 * k < n and (x.dtype.kind in "iu" or not np.isnan(x).any()):
        idx = _top_k_by_partition(x, k)
    else:
        idx = _stable_descending(x)[..., :k]
    idx = idx.astype(np.int32)
    return np.take_along_axis(x, idx, axis=-1), idx


def _stable_descending(x: np.ndarray) -> np.ndarray:
    """Indices ordering each last-axis row by descending value, ties by ascending index."""
    # A stable ascending sort of the reversed rows, read backwards, gives that order
    # without negating the values (which would overflow the smallest integer).
    n = x.shape[-1]
    return n - 1 - np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1]


def _top_k_by_partition(x: np.ndarray, k: int) -> np.ndarray:
    """The top-k indices in linear time: everything above the k-th largest value, then
    the lowest-indexed entries equal to it, then a sort of those k only."""
    n = x.shape[-1]
    kth = np.partition(x, n - k, axis=-1)[..., n - k:n - k + 1]
    above = x > kth
    room = k - above.sum(axis=-1, keepdims=True)
    equal = x == kth
    if (equal.sum(axis=-1, keepdims=True) == room).all():
        take = above | equal  # no tie straddles the k-th place
    else:
        take = above | (equal & (np.cumsum(equal, axis=-1) <= room))
    rows_first = np.nonzero(take.reshape(-1, n))[1].reshape(x.shape[:-1] + (k,))
    vals = np.take_along_axis(x, rows_first, axis=-1)
    return np.take_along_axis(rows_first, _stable_descending(vals), axis=-1)


# -- candidate samplers ----------------------------------------------------------------------

def _check_true(ctx: KernelContext, true_classes: Any) -> np.ndarray:
    t = np.asarray(true_classes)
    a = ctx.attrs
    if t.ndim != 2 or t.shape[1] != a["num_true"]:
        raise _bad(ctx, f"true_classes must be a [batch, {a['num_true']}] matrix, got shape "
                        f"{list(t.shape)}")
    bad = (t < 0) | (t >= a["range_max"])
    if bad.any():
        raise _bad(ctx, f"true_classes holds {int(t[bad][0])}, outside [0, {a['range_max']})")
    return t


def _draw(ctx: KernelContext, draw: Callable[[np.random.Generator, int], np.ndarray]
          ) -> Tuple[np.ndarray, int]:
    """``num_sampled`` candidates and the number of draws made to get them."""
    a = ctx.attrs
    n, g = a["num_sampled"], generator(ctx)
    if not a["unique"]:
        return draw(g, n).astype(np.int64), n
    seen = np.empty(0, np.int64)
    while True:
        seen = np.concatenate([seen, draw(g, max(2 * n, 16)).astype(np.int64)])
        _, first = np.unique(seen, return_index=True)
        if first.size >= n:
            first.sort()
            return seen[first[:n]], int(first[n - 1]) + 1


def _expected(ctx: KernelContext, p: np.ndarray, tries: int) -> np.ndarray:
    if ctx.attrs["unique"]:
        return (-np.expm1(tries * np.log1p(-np.minimum(p, 1.0)))).astype(np.float32)
    return (ctx.attrs["num_sampled"] * p).astype(np.float32)


def _result(ctx: KernelContext, true: np.ndarray, sampled: np.ndarray, tries: int,
            prob: Callable[[np.ndarray], np.ndarray]) -> Tuple[np.ndarray, ...]:
    return (sampled, _expected(ctx, prob(true), tries), _expected(ctx, prob(sampled), tries))


@register_kernel("UniformCandidateSampler")
def _uniform_sampler(ctx: KernelContext, true_classes: Any) -> Tuple[np.ndarray, ...]:
    t = _check_true(ctx, true_classes)
    r = ctx.attrs["range_max"]
    sampled, tries = _draw(ctx, lambda g, n: g.integers(0, r, n))
    return _result(ctx, t, sampled, tries, lambda c: np.full(c.shape, 1.0 / r))


@register_kernel("LogUniformCandidateSampler")
def _log_uniform_sampler(ctx: KernelContext, true_classes: Any) -> Tuple[np.ndarray, ...]:
    t = _check_true(ctx, true_classes)
    r = ctx.attrs["range_max"]
    log_range = np.log1p(r)

    def draw(g: np.random.Generator, n: int) -> np.ndarray:
        v = np.floor(np.exp(g.random(n) * log_range)).astype(np.int64) - 1
        return np.clip(v, 0, r - 1)

    def prob(c: np.ndarray) -> np.ndarray:
        c = c.astype(np.float64)
        return (np.log(c + 2.0) - np.log(c + 1.0)) / log_range

    sampled, tries = _draw(ctx, draw)
    return _result(ctx, t, sampled, tries, prob)


def _weighted(ctx: KernelContext, t: np.ndarray, weights: np.ndarray) -> Tuple[np.ndarray, ...]:
    total = weights.sum()
    if not total > 0:
        raise _bad(ctx, "the sampling weights sum to zero")
    p = weights / total
    if ctx.attrs["unique"] and np.count_nonzero(p) < ctx.attrs["num_sampled"]:
        raise _bad(ctx, f"cannot draw {ctx.attrs['num_sampled']} unique candidates: only "
                        f"{np.count_nonzero(p)} ids have a non-zero weight")
    cdf = np.cumsum(p)

    def draw(g: np.random.Generator, n: int) -> np.ndarray:
        return np.minimum(np.searchsorted(cdf, g.random(n) * cdf[-1], side="right"),
                          p.size - 1)

    sampled, tries = _draw(ctx, draw)
    return _result(ctx, t, sampled, tries, lambda c: p[c])


@register_kernel("LearnedUnigramCandidateSampler")
def _learned_unigram_sampler(ctx: KernelContext, true_classes: Any) -> Tuple[np.ndarray, ...]:
    t = _check_true(ctx, true_classes)
    state = ctx.state
    if "counts" not in state:
        state.setdefault("lock", threading.Lock())
        with state["lock"]:
            state.setdefault("counts", np.ones(ctx.attrs["range_max"], np.float64))
    with state["lock"]:
        out = _weighted(ctx, t, state["counts"].copy())
        np.add.at(state["counts"], t.reshape(-1), 1.0)
    return out


def _read_vocab(ctx: KernelContext, path: str) -> np.ndarray:
    try:
        with open(path, "r", encoding="utf-8") as f:
            lines = [ln.strip() for ln in f if ln.strip()]
        return np.array([float(ln.rsplit(",", 1)[-1]) for ln in lines], np.float64)
    except OSError as e:
        raise errors.NotFoundError(ctx.op_name, None, f"cannot read vocab_file {path!r}: {e}")
    except ValueError as e:
        raise _bad(ctx, f"vocab_file {path!r} has a line whose last field is not a "
                        f"number: {e}")


@register_kernel("FixedUnigramCandidateSampler")
def _fixed_unigram_sampler(ctx: KernelContext, true_classes: Any) -> Tuple[np.ndarray, ...]:
    t = _check_true(ctx, true_classes)
    a = ctx.attrs
    w = ctx.state.get("weights")
    if w is None:
        raw = (np.asarray(a["unigrams"], np.float64) if a.get("unigrams")
               else _read_vocab(ctx, a["vocab_file"]))
        w = np.concatenate([np.zeros(a["num_reserved_ids"]), raw ** a["distortion"]])
        if w.size != a["range_max"]:
            raise _bad(ctx, f"{raw.size} weights plus {a['num_reserved_ids']} reserved ids "
                            f"do not make range_max={a['range_max']}")
        ctx.state["weights"] = w
    return _weighted(ctx, t, w)


@register_kernel("ComputeAccidentalHits")
def _accidental_hits(ctx: KernelContext, true_classes: Any,
                     sampled: Any) -> Tuple[np.ndarray, ...]:
    t = np.asarray(true_classes)
    if t.ndim != 2 or t.shape[1] != ctx.attrs["num_true"]:
        raise _bad(ctx, f"true_classes must be [batch, {ctx.attrs['num_true']}], got shape "
                        f"{list(t.shape)}")
    s = np.asarray(sampled).reshape(-1)
    hit = (t[:, :, None] == s[None, None, :]).any(axis=1)
    rows, cols = np.nonzero(hit)
    return (rows.astype(np.int32), cols.astype(np.int64),
            np.full(rows.size, -_FLT_MAX, np.float32))
