"""numpy kernels of the set operations (``ops/sets_ops.py``)."""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel

Rows = Dict[Tuple[int, ...], set]


def _dense_rows(ctx: KernelContext, x: Any) -> Tuple[Tuple[int, ...], Rows]:
    x = np.asarray(x)
    if x.ndim < 2:
        raise invalid(ctx, f"a dense set operand must have rank >= 2, got shape {x.shape}")
    lead = x.shape[:-1]
    flat = x.reshape(-1, x.shape[-1]) if x.size or x.shape[-1] else x.reshape(-1, 0)
    rows = {idx: set(flat[i].tolist()) for i, idx in enumerate(np.ndindex(*lead))}
    return tuple(int(d) for d in lead), rows


def _sparse_rows(ctx: KernelContext, indices: Any, values: Any, shape: Any,
                 validate: bool) -> Tuple[Tuple[int, ...], Rows]:
    ind = np.asarray(indices, np.int64)
    vals = np.asarray(values)
    dims = tuple(int(d) for d in np.asarray(shape).reshape(-1))
    if len(dims) < 2:
        raise invalid(ctx, f"a sparse set operand must have rank >= 2, got shape {list(dims)}")
    if ind.ndim != 2 or ind.shape[1] != len(dims) or ind.shape[0] != vals.shape[0]:
        raise invalid(ctx, f"indices of shape {ind.shape} do not fit {vals.shape[0]} values "
                           f"of a rank-{len(dims)} tensor")
    if validate and ind.size:
        if (ind < 0).any() or (ind >= np.asarray(dims)).any():
            raise invalid(ctx, f"an index is out of bounds of shape {list(dims)}")
        keys = [tuple(r) for r in ind.tolist()]
        if any(keys[i] >= keys[i + 1] for i in range(len(keys) - 1)):
            raise invalid(ctx, "indices must be in row-major order without repeats")
    rows: Rows = {}
    for r, v in zip(ind.tolist(), vals.tolist()):
        rows.setdefault(tuple(r[:-1]), set()).add(v)
    return dims[:-1], rows


def _combine(ctx: KernelContext, a: Tuple[Tuple[int, ...], Rows],
             b: Tuple[Tuple[int, ...], Rows], dtype: np.dtype) -> List[np.ndarray]:
    (lead_a, rows_a), (lead_b, rows_b) = a, b
    if lead_a != lead_b:
        raise invalid(ctx, f"the leading dimensions of a {list(lead_a)} and b {list(lead_b)} "
                           f"differ")
    op = ctx.attrs["set_operation"]
    fns = {"a-b": lambda x, y: x - y, "b-a": lambda x, y: y - x,
           "intersection": lambda x, y: x & y, "union": lambda x, y: x | y}
    if op not in fns:
        raise invalid(ctx, f"unknown set_operation {op!r}")
    indices: List[List[int]] = []
    values: List[Any] = []
    widest = 0
    for row in sorted(set(rows_a) | set(rows_b)):
        members = sorted(fns[op](rows_a.get(row, set()), rows_b.get(row, set())))
        widest = max(widest, len(members))
        for j, v in enumerate(members):
            indices.append(list(row) + [j])
            values.append(v)
    out_indices = np.array(indices, np.int64).reshape(-1, len(lead_a) + 1)
    out_values = np.array(values, dtype=dtype) if values else np.zeros(0, dtype)
    return [out_indices, out_values, np.array(list(lead_a) + [widest], np.int64)]


def _dtype(ctx: KernelContext) -> np.dtype:
    return np.dtype(object) if ctx.attrs["T"].name == "string" else ctx.attrs["T"].np


@register_kernel("DenseToDenseSetOperation")
def _dense_dense(ctx: KernelContext, a: Any, b: Any) -> List[np.ndarray]:
    return _combine(ctx, _dense_rows(ctx, a), _dense_rows(ctx, b), _dtype(ctx))


@register_kernel("DenseToSparseSetOperation")
def _dense_sparse(ctx: KernelContext, a: Any, bi: Any, bv: Any, bs: Any) -> List[np.ndarray]:
    validate = ctx.attrs.get("validate_indices", True)
    return _combine(ctx, _dense_rows(ctx, a), _sparse_rows(ctx, bi, bv, bs, validate),
                    _dtype(ctx))


@register_kernel("SparseToSparseSetOperation")
def _sparse_sparse(ctx: KernelContext, ai: Any, av: Any, ash: Any, bi: Any, bv: Any,
                   bs: Any) -> List[np.ndarray]:
    validate = ctx.attrs.get("validate_indices", True)
    return _combine(ctx, _sparse_rows(ctx, ai, av, ash, validate),
                    _sparse_rows(ctx, bi, bv, bs, validate), _dtype(ctx))


@register_kernel("SetSize")
def _set_size(ctx: KernelContext, indices: Any, values: Any, shape: Any) -> np.ndarray:
    lead, rows = _sparse_rows(ctx, indices, values, shape, ctx.attrs.get("validate_indices",
                                                                          True))
    out = np.zeros(lead, np.int32)
    for row, members in rows.items():
        out[row] = len(members)
    return out
