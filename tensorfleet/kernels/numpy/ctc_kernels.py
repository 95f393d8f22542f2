"""numpy kernels of CTC: the loss with its gradient, and the greedy and beam decoders.

The loss runs the forward-backward recursions in log space over the extended label
sequence (a blank before, between and after the labels), one time step at a time
for the whole batch: states are a ``[batch, 2 * max_label_length + 1]`` array,
entries past a sequence's own states stay at ``-inf``. Three moves reach a state:
staying (not for a non-blank label when repeats do not merge), advancing by one,
and skipping a blank between two labels (not between equal labels when repeats
merge, since those need the blank to stay apart).
"""

from __future__ import annotations

import logging
from typing import Any, Dict, List, Tuple

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel

logger = logging.getLogger(__name__)

_NEG_INF = -np.inf


def _log_softmax(x: np.ndarray) -> np.ndarray:
    m = x.max(axis=-1, keepdims=True)
    z = x - m
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def _check_inputs(ctx: KernelContext, inputs: Any, seq_len: Any) -> Tuple[np.ndarray,
                                                                           np.ndarray]:
    x = np.asarray(inputs)
    if x.ndim != 3:
        raise invalid(ctx, f"inputs must be 3-D [max_time, batch, num_classes], got shape "
                           f"{list(x.shape)}")
    seq = np.asarray(seq_len).astype(np.int64)
    if seq.shape != (x.shape[1],):
        raise invalid(ctx, f"len(sequence_length) != batch_size: sequence_length has shape "
                           f"{list(seq.shape)}, batch size is {x.shape[1]}")
    if x.shape[2] < 1:
        raise invalid(ctx, "num_classes must be at least 1 (the blank)")
    bad = np.flatnonzero((seq < 0) | (seq > x.shape[0]))
    if bad.size:
        b = int(bad[0])
        raise invalid(ctx, f"sequence_length({b}) = {int(seq[b])} is outside [0, max_time = "
                           f"{x.shape[0]}]")
    return x, seq


def _labels(ctx: KernelContext, indices: Any, values: Any, batch: int, num_classes: int,
            collapse: bool) -> Tuple[np.ndarray, np.ndarray]:
    """The label sequences as a ``[batch, max_len]`` matrix (padded) and their lengths."""
    idx = np.asarray(indices, dtype=np.int64).reshape(-1, 2)
    vals = np.asarray(values, dtype=np.int64).reshape(-1)
    if idx.shape[0] != vals.shape[0]:
        raise invalid(ctx, f"labels indices has {idx.shape[0]} rows but values has "
                           f"{vals.shape[0]}")
    if idx.size and (idx[:, 0].min() < 0 or idx[:, 0].max() >= batch):
        raise invalid(ctx, f"labels batch indices must be in [0, {batch}), got "
                           f"{idx[:, 0].min()}..{idx[:, 0].max()}")
    order = np.lexsort((idx[:, 1], idx[:, 0]))
    rows, vals = idx[order, 0], vals[order]
    for test, what in ((vals < 0, "All labels must be nonnegative integers"),
                       (vals >= num_classes, f"No label may be greater than num_classes - 1 "
                                             f"(num_classes: {num_classes})")):
        if test.any():
            b = int(rows[np.argmax(test)])
            raise invalid(ctx, f"{what}, batch: {b} labels: "
                               f"{','.join(str(v) for v in vals[rows == b])}")
    if collapse and vals.size:
        keep = np.ones(vals.size, dtype=bool)
        keep[1:] = (vals[1:] != vals[:-1]) | (rows[1:] != rows[:-1])
        rows, vals = rows[keep], vals[keep]
    lengths = np.bincount(rows, minlength=batch)
    empty = np.flatnonzero(lengths == 0)
    if empty.size:
        raise invalid(ctx, f"Labels length is zero in batch {int(empty[0])}")
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    pos = np.arange(vals.size) - starts[rows]
    mat = np.zeros((batch, int(lengths.max()) if batch else 0), dtype=np.int64)
    mat[rows, pos] = vals
    return mat, lengths


def _shift(a: np.ndarray, k: int) -> np.ndarray:
    """``out[:, s] = a[:, s - k]`` (``-inf`` where that is outside), for k = +-1, +-2."""
    out = np.full_like(a, _NEG_INF)
    if k > 0:
        out[:, k:] = a[:, :-k]
    else:
        out[:, :k] = a[:, -k:]
    return out


def ctc_loss_and_grad(x: np.ndarray, labels: np.ndarray, lengths: np.ndarray,
                      seq: np.ndarray, merge_repeated: bool) -> Tuple[np.ndarray, np.ndarray]:
    """Per-entry ``-log p(labels | x)`` and its gradient with respect to the logits ``x``
    (``[T, B, C]``, float64); entries with no alignment give ``inf`` and the softmax as
    gradient."""
    t_max, batch, num_classes = x.shape
    blank = num_classes - 1
    lp = _log_softmax(x)
    n_states = 2 * labels.shape[1] + 1
    ext = np.full((batch, n_states), blank, dtype=np.int64)
    ext[:, 1::2] = labels
    s_idx = np.arange(n_states)
    valid = s_idx[None, :] < (2 * lengths + 1)[:, None]
    stay = np.broadcast_to((ext == blank) | merge_repeated, ext.shape)
    skip = (ext != blank) & (s_idx[None, :] > 1)
    prev2 = np.zeros_like(ext)
    prev2[:, 2:] = ext[:, :-2]
    if merge_repeated:
        skip &= ext != prev2
    emit = np.take_along_axis(lp, np.broadcast_to(ext[None], (t_max, batch, n_states)),
                              axis=2)
    emit[:, ~valid] = _NEG_INF
    last = np.maximum(seq - 1, 0)
    rows = np.arange(batch)
    with np.errstate(invalid="ignore", divide="ignore"):
        alpha = np.full((t_max, batch, n_states), _NEG_INF)
        alpha[0, :, :2] = emit[0, :, :2]
        for t in range(1, t_max):
            p = alpha[t - 1]
            a = np.logaddexp(np.where(stay, p, _NEG_INF), _shift(p, 1))
            alpha[t] = np.logaddexp(a, np.where(skip, _shift(p, 2), _NEG_INF)) + emit[t]
        final = alpha[last, rows]
        end = 2 * lengths
        log_p = np.logaddexp(final[rows, end], final[rows, end - 1])
        init = np.where((s_idx[None, :] == end[:, None]) | (s_idx[None, :] == end[:, None] - 1),
                        0.0, _NEG_INF)
        beta = np.full((t_max, batch, n_states), _NEG_INF)
        skip_next = _shift(skip.astype(np.float64), -2) > 0
        nxt = np.full((batch, n_states), _NEG_INF)
        for t in range(t_max - 1, -1, -1):
            rec = np.logaddexp(np.where(stay, nxt, _NEG_INF), _shift(nxt, -1))
            rec = np.logaddexp(rec, np.where(skip_next, _shift(nxt, -2), _NEG_INF))
            here = np.where((t == last)[:, None], init, np.where((t < last)[:, None], rec,
                                                                 _NEG_INF))
            beta[t] = here
            nxt = here + emit[t]
        feasible = np.isfinite(log_p)
        occ_log = alpha + beta - np.where(feasible, log_p, 0.0)[None, :, None]
        occ = np.exp(occ_log)  # [T, B, S]
    # Sum the occupancies of the states of each class: sort the (entry, class) columns
    # so equal ones are adjacent, then one reduceat (no [B, S, C] one-hot in memory).
    cols = (rows[:, None] * num_classes + ext)[valid]
    order = np.argsort(cols, kind="stable")
    cols = cols[order]
    starts = np.flatnonzero(np.concatenate([[True], cols[1:] != cols[:-1]]))
    per_class = np.zeros((t_max, batch * num_classes))
    per_class[:, cols[starts]] = np.add.reduceat(occ[:, valid][:, order], starts, axis=1)
    per_class = per_class.reshape(t_max, batch, num_classes)
    per_class[:, ~feasible] = 0.0
    grad = np.exp(lp) - per_class
    grad[np.arange(t_max)[:, None] >= seq[None, :]] = 0.0
    if not feasible.all():
        logger.warning("ctc_loss: no valid alignment for batch entries %s",
                       np.flatnonzero(~feasible).tolist())
    return -log_p, grad


@register_kernel("CTCLoss")
def _ctc_loss(ctx: KernelContext, inputs: Any, indices: Any, values: Any,
              seq_len: Any) -> Tuple[np.ndarray, np.ndarray]:
    x, seq = _check_inputs(ctx, inputs, seq_len)
    t_max, batch, num_classes = x.shape
    labels, lengths = _labels(ctx, indices, values, batch, num_classes,
                              ctx.attrs["preprocess_collapse_repeated"])
    too_long = lengths > seq
    if too_long.any() and not ctx.attrs["ignore_longer_outputs_than_inputs"]:
        b = int(np.argmax(too_long))
        raise invalid(ctx, f"Not enough time for target transition sequence (required: "
                           f"{int(lengths[b])}, available: {int(seq[b])}) in batch {b}; "
                           f"ignore_longer_outputs_than_inputs=True gives such entries loss 0")
    loss = np.zeros(batch, dtype=x.dtype)
    grad = np.zeros(x.shape, dtype=x.dtype)
    keep = np.flatnonzero(~too_long)
    if keep.size:
        kl, kg = ctc_loss_and_grad(x[:, keep].astype(np.float64), labels[keep],
                                   lengths[keep], seq[keep], ctx.attrs["ctc_merge_repeated"])
        loss[keep] = kl
        grad[:, keep] = kg
    return loss, grad


def _sparse_outputs(seqs: List[List[List[int]]], batch: int) -> List[np.ndarray]:
    """``[indices..., values..., shapes...]`` of one SparseTensor per path."""
    idx, vals, shapes = [], [], []
    for path in seqs:
        lens = np.array([len(s) for s in path], dtype=np.int64)
        flat = np.array([v for s in path for v in s], dtype=np.int64)
        b = np.repeat(np.arange(batch, dtype=np.int64), lens)
        pos = np.arange(flat.size, dtype=np.int64) - np.repeat(np.cumsum(lens) - lens, lens)
        idx.append(np.stack([b, pos], axis=1).reshape(-1, 2))
        vals.append(flat)
        shapes.append(np.array([batch, lens.max() if batch else 0], dtype=np.int64))
    return idx + vals + shapes


@register_kernel("CTCGreedyDecoder")
def _ctc_greedy(ctx: KernelContext, inputs: Any, seq_len: Any) -> Tuple[np.ndarray, ...]:
    x, seq = _check_inputs(ctx, inputs, seq_len)
    t_max, batch, num_classes = x.shape
    best = x.argmax(axis=2).T  # [B, T]
    live = np.arange(t_max)[None, :] < seq[:, None]
    score = -np.where(live, x.max(axis=2).T, 0).sum(axis=1, keepdims=True)
    emit = live & (best != num_classes - 1)
    if ctx.attrs["merge_repeated"]:
        emit[:, 1:] &= best[:, 1:] != best[:, :-1]
    rows, cols = np.nonzero(emit)
    lens = np.bincount(rows, minlength=batch)
    pos = np.arange(rows.size) - np.repeat(np.cumsum(lens) - lens, lens)
    shape = np.array([batch, lens.max() if batch else 0], dtype=np.int64)
    return (np.stack([rows, pos], axis=1).astype(np.int64).reshape(-1, 2),
            best[rows, cols].astype(np.int64), shape, score.astype(x.dtype))


def _beam_search(lp: np.ndarray, beam_width: int, top_paths: int
                 ) -> List[Tuple[Tuple[int, ...], float]]:
    """Prefix beam search over ``lp`` (``[T, C]`` log-probabilities, blank last)."""
    blank = lp.shape[1] - 1
    # prefix -> (log p ending in blank, log p ending in its last label)
    beams: Dict[Tuple[int, ...], Tuple[float, float]] = {(): (0.0, _NEG_INF)}
    for step in lp:
        nxt: Dict[Tuple[int, ...], List[float]] = {}

        def add(prefix: Tuple[int, ...], which: int, value: float) -> None:
            cur = nxt.setdefault(prefix, [_NEG_INF, _NEG_INF])
            cur[which] = np.logaddexp(cur[which], value)

        for prefix, (pb, pnb) in beams.items():
            total = np.logaddexp(pb, pnb)
            add(prefix, 0, total + step[blank])
            if prefix:
                add(prefix, 1, pnb + step[prefix[-1]])
            for c in range(blank):
                from_prev = pb if prefix and prefix[-1] == c else total
                add(prefix + (c,), 1, from_prev + step[c])
        ranked = sorted(nxt.items(), key=lambda kv: -np.logaddexp(*kv[1]))
        beams = {k: (v[0], v[1]) for k, v in ranked[:beam_width]}
    ranked = sorted(beams.items(), key=lambda kv: -np.logaddexp(*kv[1]))
    return [(k, float(np.logaddexp(*v))) for k, v in ranked[:top_paths]]


@register_kernel("CTCBeamSearchDecoder")
def _ctc_beam(ctx: KernelContext, inputs: Any, seq_len: Any) -> Tuple[np.ndarray, ...]:
    x, seq = _check_inputs(ctx, inputs, seq_len)
    _, batch, _ = x.shape
    top, width = ctx.attrs["top_paths"], ctx.attrs["beam_width"]
    lp = _log_softmax(x.astype(np.float64))
    paths: List[List[List[int]]] = [[] for _ in range(top)]
    scores = np.full((batch, top), _NEG_INF)
    for b in range(batch):
        found = _beam_search(lp[:int(seq[b]), b], width, top)
        for k in range(top):
            labels, score = found[k] if k < len(found) else ((), _NEG_INF)
            out = list(labels)
            if ctx.attrs["merge_repeated"] and out:
                out = [v for i, v in enumerate(out) if i == 0 or v != out[i - 1]]
            paths[k].append(out)
            scores[b, k] = score
    return tuple(_sparse_outputs(paths, batch)) + (scores.astype(x.dtype),)
