"""The kernel of ``SparseApplyMany``: one sparse update applied to many variables.

A wide model has one variable per feature column, each updated sparsely every
step: dozens of small updates whose cost is the call and a dozen numpy calls
each, not the arithmetic on a few hundred rows. ``SparseApplyMany`` takes every
variable of one device that the same optimizer updates with the same
hyperparameters. Its kernel sums each gradient's repeated indices and gathers the
touched rows of each variable and slot into one block per reference, runs the
update's row rule once on the blocks, and scatters the rows back: the values are
those of one single op per variable (the rules are elementwise on rows).

Variables of another dtype or row shape go into another block, and a variable
named twice is updated twice, one block after the other, as two single ops would.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Dict, List, Sequence, Tuple

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.kernels.numpy.training_kernels import _rows, _scalar, _slot
from tensorfleet.kernels.numpy.training_sparse_kernels import _ftrl_hypers, _ftrl_rule
from tensorfleet.kernels.variable_resource import VariableResource


def _adagrad_rule(var: np.ndarray, accum: np.ndarray, g: np.ndarray, lr: float) -> None:
    # The arithmetic of SparseApplyAdagrad, in its order: the same values.
    accum += g * g
    step = np.sqrt(accum)
    np.divide(g, step, out=step)
    step *= lr
    var -= step


def _adagrad_hypers(ctx: KernelContext, lr: Any) -> tuple:
    return (_scalar(ctx, lr, "lr"),)


def _ftrl_v1_hypers(ctx: KernelContext, lr: Any, l1: Any, l2: Any, lr_power: Any) -> tuple:
    return _ftrl_hypers(ctx, lr, l1, l2, None, lr_power)


# update op type -> (references per variable, row rule, hyperparameters from the scalars)
_UPDATES: Dict[str, Tuple[int, Callable[..., None], Callable[..., tuple]]] = {
    "SparseApplyAdagrad": (2, _adagrad_rule, _adagrad_hypers),
    "SparseApplyFtrl": (3, _ftrl_rule, _ftrl_v1_hypers),
    "SparseApplyFtrlV2": (3, _ftrl_rule, _ftrl_hypers),
}


class _Member:
    """One variable's part of the update: its arrays (variable first, then slots)
    and its de-duplicated gradient rows."""

    __slots__ = ("resource", "arrays", "g", "idx")

    def __init__(self, resource: VariableResource, arrays: List[np.ndarray], g: np.ndarray,
                 idx: np.ndarray):
        self.resource, self.arrays, self.g, self.idx = resource, arrays, g, idx


def _batches(members: Sequence[_Member]) -> List[List[_Member]]:
    """Members in blocks of one dtype and row shape, in order; a block never holds a
    variable twice (a repeat starts a later block, so updates apply in turn)."""
    batches: List[Tuple[tuple, set, List[_Member]]] = []
    for m in members:
        key = (m.arrays[0].dtype, m.g.dtype, m.arrays[0].shape[1:])
        for bkey, seen, batch in batches:
            if bkey == key and id(m.resource) not in seen:
                seen.add(id(m.resource))
                batch.append(m)
                break
        else:
            batches.append((key, {id(m.resource)}, [m]))
    return [batch for _, _, batch in batches]


def _apply_batch(batch: Sequence[_Member], rule: Callable[..., None], hyper: tuple) -> None:
    first = batch[0].arrays[0]
    rows = sum(m.idx.size for m in batch)
    blocks = [np.empty((rows,) + first.shape[1:], dtype=a.dtype) for a in batch[0].arrays]
    g = np.concatenate([m.g for m in batch])
    bounds = []
    start = 0
    for m in batch:
        end = start + m.idx.size
        for a, b in zip(m.arrays, blocks):
            np.take(a, m.idx, axis=0, out=b[start:end])
        bounds.append((start, end))
        start = end
    rule(*blocks, g, *hyper)
    for m, (start, end) in zip(batch, bounds):
        for a, b in zip(m.arrays, blocks):
            a[m.idx] = b[start:end]


@register_kernel("SparseApplyMany")
def _sparse_apply_many(ctx: KernelContext, *inputs: Any) -> None:
    update = ctx.attrs.get("update")
    if update not in _UPDATES:
        raise invalid(ctx, f"update must be one of {sorted(_UPDATES)}, got {update!r}")
    n_refs, rule, hypers_of = _UPDATES[update]
    n = int(ctx.attrs["N"])
    refs_end = n * n_refs
    if n < 1 or int(ctx.attrs.get("num_refs", -1)) != refs_end or len(inputs) < refs_end + 2 * n:
        raise invalid(ctx, f"{len(inputs)} inputs do not make N={n} variables of {n_refs} "
                      "references with their gradients and indices")
    refs = inputs[:refs_end]
    grads = inputs[refs_end:refs_end + n]
    indices = inputs[refs_end + n:refs_end + 2 * n]
    hyper = hypers_of(ctx, *inputs[refs_end + 2 * n:])
    members = []
    for i in range(n):
        own = refs[i * n_refs:(i + 1) * n_refs]
        var = own[0].read()
        arrays = [var] + [_slot(ctx, var, r) for r in own[1:]]
        g, idx = _rows(ctx, var, grads[i], indices[i])
        if idx.size:
            members.append(_Member(own[0], arrays, g, idx))
    with contextlib.ExitStack() as stack:
        if ctx.attrs.get("use_locking"):
            # In one global order, so that two grouped updates never deadlock.
            distinct = {id(m.resource): m.resource for m in members}
            for _, res in sorted(distinct.items()):
                stack.enter_context(res.lock)
        for batch in _batches(members):
            _apply_batch(batch, rule, hyper)
    return None
