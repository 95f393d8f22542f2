"""numpy kernel of ``GatherTree``: beam search results traced back along parent pointers.

All ``batch * beam_width`` beams are followed at once, one step at a time from the
last one back, so the Python loop runs over time steps only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel


def _bad(ctx: KernelContext, msg: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(ctx.op_name, None, msg)


@register_kernel("GatherTree")
def _gather_tree(ctx: KernelContext, step_ids: Any, parent_ids: Any, max_sequence_lengths: Any,
                 end_token: Any) -> np.ndarray:
    ids = np.asarray(step_ids)
    parents = np.asarray(parent_ids)
    lens = np.asarray(max_sequence_lengths)
    end = np.asarray(end_token)
    if ids.ndim != 3:
        raise _bad(ctx, f"step_ids must be a 3-tensor [max_time, batch, beam_width], saw "
                        f"shape: {list(ids.shape)}")
    if parents.shape != ids.shape:
        raise _bad(ctx, f"step_ids.shape must match parent_ids.shape, but shapes are: "
                        f"{list(ids.shape)} and {list(parents.shape)}")
    if lens.ndim != 1 or lens.shape[0] != ids.shape[1]:
        raise _bad(ctx, f"max_sequence_lengths must be a vector of batch_size="
                        f"{ids.shape[1]} entries, saw shape: {list(lens.shape)}")
    if end.ndim != 0:
        raise _bad(ctx, f"end_token must be a scalar, saw shape: {list(end.shape)}")
    n_time, batch, beam = ids.shape
    end_id = int(end)
    out = np.full(ids.shape, end_id, dtype=np.int32)
    if out.size == 0:
        return out
    last = np.minimum(lens.astype(np.int64), n_time) - 1
    rows = np.arange(batch)[:, None]
    # ptr[b, k]: which beam of step t lies on the path of final beam k.
    ptr = np.broadcast_to(np.arange(beam), (batch, beam)).copy()
    alive = np.broadcast_to((last >= 0)[:, None], (batch, beam)).copy()
    for t in range(n_time - 1, -1, -1):
        here = alive & (t <= last)[:, None]
        bad = here & ((ptr < 0) | (ptr >= beam))
        safe = np.clip(ptr, 0, beam - 1)
        ok = here & ~bad
        out[t][ok] = ids[t][rows, safe][ok]
        # A broken pointer marks its step with -1; earlier steps keep end_token.
        out[t][bad] = -1
        alive &= ~bad
        ptr = np.where(ok, parents[t][rows, safe], ptr)
    # Everything after a beam's first end_token (within its length) is end_token too.
    is_end = out == end_id
    after_end = (np.cumsum(is_end, axis=0) - is_end) > 0
    within = np.arange(n_time)[:, None, None] <= last[None, :, None]
    out[after_end & within] = end_id
    return out
