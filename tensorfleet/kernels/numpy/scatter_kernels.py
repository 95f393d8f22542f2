"""numpy kernels of the n-d gathers and scatters, their in-place forms on variables,
and ``UniqueWithCounts``, ``ListDiff`` and ``Bincount``.

An index tensor of shape [..., M] becomes M integer arrays (one per indexed
axis), so every gather or scatter is one fancy-indexing operation; repeated
indices in an adding scatter go through ``ufunc.at`` so each one counts.
"""

from __future__ import annotations

from typing import Any, Callable, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.kernels.numpy.state_kernels import _locked
from tensorfleet.kernels.variable_resource import VariableResource


def _bad(ctx: KernelContext, msg: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(ctx.op_name, None, msg)


def _index_tuple(ctx: KernelContext, indices: np.ndarray, shape: Tuple[int, ...],
                 what: str) -> Tuple[np.ndarray, ...]:
    """The index vectors as one array per indexed axis, after a bounds check."""
    if indices.ndim < 1:
        raise _bad(ctx, "indices must have rank >= 1")
    m = indices.shape[-1]
    if m > len(shape):
        raise _bad(ctx, f"index innermost dimension length must be <= {what} rank; saw: "
                        f"{m} vs. {len(shape)}")
    flat = indices.reshape(-1, m)
    if flat.size:
        limits = np.asarray(shape[:m], dtype=np.int64)
        bad = ((flat < 0) | (flat >= limits)).any(axis=1)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise _bad(ctx, f"indices{list(np.unravel_index(row, indices.shape[:-1]))} = "
                            f"{flat[row].tolist()} does not index into {what} shape "
                            f"{list(shape)}")
    return tuple(indices[..., j] for j in range(m))


def _check_updates(ctx: KernelContext, indices: np.ndarray, updates: np.ndarray,
                   shape: Tuple[int, ...]) -> None:
    want = indices.shape[:-1] + tuple(shape[indices.shape[-1]:])
    if updates.shape != want:
        raise _bad(ctx, f"updates has shape {list(updates.shape)} but indices "
                        f"{list(indices.shape)} into shape {list(shape)} need {list(want)}")


@register_kernel("GatherNd")
def _gather_nd(ctx: KernelContext, params: Any, indices: Any) -> np.ndarray:
    p, i = np.asarray(params), np.asarray(indices)
    return np.ascontiguousarray(p[_index_tuple(ctx, i, p.shape, "params")])


@register_kernel("ScatterNd")
def _scatter_nd(ctx: KernelContext, indices: Any, updates: Any, shape: Any) -> np.ndarray:
    i, u = np.asarray(indices), np.asarray(updates)
    dims = tuple(int(d) for d in np.asarray(shape).reshape(-1))
    idx = _index_tuple(ctx, i, dims, "output")
    _check_updates(ctx, i, u, dims)
    out = np.zeros(dims, u.dtype)
    np.add.at(out, idx, u)
    return out


def _tensor_scatter(fn: Callable[[np.ndarray, Tuple[np.ndarray, ...], np.ndarray], None]
                    ) -> Callable[..., np.ndarray]:
    def kernel(ctx: KernelContext, tensor: Any, indices: Any, updates: Any) -> np.ndarray:
        t, i, u = np.asarray(tensor), np.asarray(indices), np.asarray(updates)
        idx = _index_tuple(ctx, i, t.shape, "tensor")
        _check_updates(ctx, i, u, t.shape)
        out = np.array(t, copy=True)
        fn(out, idx, u)
        return out
    return kernel


def _assign_at(v: np.ndarray, idx: Tuple[np.ndarray, ...], u: np.ndarray) -> None:
    v[idx] = u


def _add_at(v: np.ndarray, idx: Tuple[np.ndarray, ...], u: np.ndarray) -> None:
    np.add.at(v, idx, u)


def _sub_at(v: np.ndarray, idx: Tuple[np.ndarray, ...], u: np.ndarray) -> None:
    np.subtract.at(v, idx, u)


def _max_at(v: np.ndarray, idx: Tuple[np.ndarray, ...], u: np.ndarray) -> None:
    np.maximum.at(v, idx, u)


def _min_at(v: np.ndarray, idx: Tuple[np.ndarray, ...], u: np.ndarray) -> None:
    np.minimum.at(v, idx, u)


_FNS = {"Update": _assign_at, "Add": _add_at, "Sub": _sub_at, "Max": _max_at, "Min": _min_at}
for _kind, _fn in _FNS.items():
    register_kernel("TensorScatter" + _kind)(_tensor_scatter(_fn))


def _ref_scatter(fn: Callable[[np.ndarray, Tuple[np.ndarray, ...], np.ndarray], None]
                 ) -> Callable[..., VariableResource]:
    def kernel(ctx: KernelContext, res: VariableResource, indices: Any,
               updates: Any) -> VariableResource:
        v = res.read()
        i, u = np.asarray(indices), np.asarray(updates)
        idx = _index_tuple(ctx, i, v.shape, f"variable {res.name}")
        _check_updates(ctx, i, u, v.shape)
        with _locked(res, ctx.attrs.get("use_locking", False)):
            fn(v, idx, u)
            res.version += 1
        return res
    return kernel


for _kind, _fn in _FNS.items():
    register_kernel("ScatterNd" + _kind)(_ref_scatter(_fn))


def _idx_dtype(ctx: KernelContext) -> Any:
    return np.int64 if ctx.attrs.get("out_idx") == "int64" else np.int32


@register_kernel("UniqueWithCounts")
def _unique_with_counts(ctx: KernelContext, x: Any) -> Tuple[np.ndarray, ...]:
    x = np.asarray(x)
    if x.ndim != 1:
        raise _bad(ctx, f"x must be a vector, got shape {list(x.shape)}")
    _, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                          return_counts=True)
    # np.unique sorts; the op lists values in order of first appearance.
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    dt = _idx_dtype(ctx)
    return x[first[order]], rank[inverse.reshape(-1)].astype(dt), counts[order].astype(dt)


@register_kernel("ListDiff")
def _list_diff(ctx: KernelContext, x: Any, y: Any) -> Tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(x), np.asarray(y)
    if x.ndim != 1 or y.ndim != 1:
        raise _bad(ctx, f"x and y must be vectors, got shapes {list(x.shape)} and "
                        f"{list(y.shape)}")
    keep = np.flatnonzero(~np.isin(x, y))
    return x[keep], keep.astype(_idx_dtype(ctx))


@register_kernel("Bincount")
def _bincount(ctx: KernelContext, arr: Any, size: Any, weights: Any) -> np.ndarray:
    a = np.asarray(arr).reshape(-1)
    n = int(size)
    if n < 0:
        raise _bad(ctx, f"size must be non-negative, got {n}")
    if (a < 0).any():
        raise _bad(ctx, f"arr must be non-negative, got {int(a[a < 0][0])}")
    w = np.asarray(weights).reshape(-1)
    keep = a < n
    if w.size == 0:
        return np.bincount(a[keep], minlength=n)[:n].astype(w.dtype)
    if w.size != a.size:
        raise _bad(ctx, f"weights has {w.size} entries but arr has {a.size}")
    out = np.zeros(n, w.dtype)
    np.add.at(out, a[keep], w[keep])
    return out
