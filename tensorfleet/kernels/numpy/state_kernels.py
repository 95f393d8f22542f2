"""numpy kernels of the state ops: variable storage and in-place updates.

Ops taking a variable receive its ``VariableResource`` (their input 0 is a ref
input). ``Assign`` replaces the stored buffer; every other update writes into
it in place, under the variable's lock when ``use_locking`` asks for it, so that
concurrent steps from several workers see whole updates.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.kernels.variable_resource import VariableResource


@register_kernel("VariableV2")
def _variable(ctx: KernelContext) -> VariableResource:
    a = ctx.attrs
    name = a.get("shared_name") or ctx.op_name
    res = ctx.resources.lookup_or_create(
        a.get("container", ""), name, lambda: VariableResource(name, a["dtype"], a["shape"]))
    if not isinstance(res, VariableResource):
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"Resource {name!r} exists and is not a variable "
            f"({type(res).__name__})")
    if res.dtype is not a["dtype"]:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"Variable {name!r} already exists with dtype {res.dtype.name}; "
            f"cannot use it as {a['dtype'].name}")
    return res


def _locked(res: VariableResource, use_locking: bool) -> Any:
    return res.lock if use_locking else contextlib.nullcontext()


@register_kernel("Assign")
def _assign(ctx: KernelContext, res: VariableResource, value: Any) -> VariableResource:
    value = np.asarray(value)
    if ctx.attrs.get("validate_shape", True):
        cur = res.value
        if cur is not None:
            ok = cur.shape == value.shape
            want = list(cur.shape)
        else:
            ok = res.shape is None or res.shape.is_compatible_with(value.shape)
            want = str(res.shape)
        if not ok:
            raise errors.InvalidArgumentError(
                ctx.op_name, None, f"Assign requires shapes of both tensors to match. "
                f"lhs shape= {want} rhs shape= {list(value.shape)} (variable {res.name})")
    with _locked(res, ctx.attrs.get("use_locking", True)):
        res.set(value)
    return res


def _check_same_shape(ctx: KernelContext, res: VariableResource, v: np.ndarray,
                      delta: Any) -> None:
    if v.shape != np.shape(delta):
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"{ctx.op_type} requires shapes of both tensors to match. "
            f"lhs shape= {list(v.shape)} rhs shape= {list(np.shape(delta))} "
            f"(variable {res.name})")


@register_kernel("AssignAdd")
def _assign_add(ctx: KernelContext, res: VariableResource, delta: Any) -> VariableResource:
    v = res.read()
    _check_same_shape(ctx, res, v, delta)
    with _locked(res, ctx.attrs.get("use_locking", False)):
        np.add(v, delta, out=v, casting="unsafe")
        res.version += 1
    return res


@register_kernel("AssignSub")
def _assign_sub(ctx: KernelContext, res: VariableResource, delta: Any) -> VariableResource:
    v = res.read()
    _check_same_shape(ctx, res, v, delta)
    with _locked(res, ctx.attrs.get("use_locking", False)):
        np.subtract(v, delta, out=v, casting="unsafe")
        res.version += 1
    return res


def _scatter_update(v: np.ndarray, idx: np.ndarray, upd: np.ndarray) -> None:
    v[idx] = upd


def _accumulate(ufunc: np.ufunc) -> Callable[[np.ndarray, np.ndarray, np.ndarray], None]:
    """``ufunc.at(v, idx, upd)``, but fast when few indices repeat.

    ``ufunc.at`` handles repeated rows one element at a time; sparse gradients
    (embedding rows, scatter_sub of SGD) mostly name distinct rows, which a
    single fancy-indexed update covers, leaving only the repeats to ``at``.
    """

    def apply(v: np.ndarray, idx: np.ndarray, upd: np.ndarray) -> None:
        flat = idx.reshape(-1)
        if upd.ndim == 0 or flat.size < 32:
            ufunc.at(v, idx, upd)
            return
        rows = upd.reshape((flat.size,) + v.shape[1:])
        order = np.argsort(flat, kind="stable")
        srt = flat[order]
        first = np.empty(srt.size, dtype=bool)
        first[0] = True
        np.not_equal(srt[1:], srt[:-1], out=first[1:])
        if first.all():
            lead, rest = flat, None
            part = v[flat]
            ufunc(part, rows, out=part, casting="unsafe")
        else:
            sel = order[first]
            lead, rest = flat[sel], order[~first]
            part = v[lead]
            ufunc(part, rows[sel], out=part, casting="unsafe")
        v[lead] = part
        if rest is None:
            return
        ufunc.at(v, flat[rest], rows[rest])

    return apply


def _scatter_div(v: np.ndarray, idx: np.ndarray, upd: np.ndarray) -> None:
    (np.floor_divide if v.dtype.kind in "iu" else np.true_divide).at(v, idx, upd)


_SCATTER_FNS = {
    # ufunc.at applies every repeated index, which is what ScatterAdd promises.
    "ScatterAdd": _accumulate(np.add),
    "ScatterSub": _accumulate(np.subtract),
    "ScatterMul": _accumulate(np.multiply),
    "ScatterMax": _accumulate(np.maximum),
    "ScatterMin": _accumulate(np.minimum),
    "ScatterDiv": _scatter_div,
    "ScatterUpdate": _scatter_update,
}


def _make_scatter(fn: Callable[[np.ndarray, np.ndarray, np.ndarray], None]) -> Callable[..., Any]:
    def kernel(ctx: KernelContext, res: VariableResource, indices: Any,
               updates: Any) -> VariableResource:
        v = res.read()
        if v.ndim == 0:
            raise errors.InvalidArgumentError(
                ctx.op_name, None, f"{ctx.op_type} needs a variable of rank >= 1; "
                f"{res.name} is a scalar")
        idx = np.asarray(indices)
        upd = np.asarray(updates)
        n = v.shape[0]
        if idx.size:
            bad = (idx < 0) | (idx >= n)
            if bad.any():
                pos = int(np.flatnonzero(bad.reshape(-1))[0])
                raise errors.InvalidArgumentError(
                    ctx.op_name, None, f"indices[{pos}] = {int(idx.reshape(-1)[pos])} is not in "
                    f"[0, {n}) (variable {res.name})")
        if upd.ndim and upd.shape != idx.shape + v.shape[1:]:
            raise errors.InvalidArgumentError(
                ctx.op_name, None, f"{ctx.op_type}: updates has shape {list(upd.shape)} but "
                f"indices {list(idx.shape)} and variable {list(v.shape)} need "
                f"{list(idx.shape + v.shape[1:])} (variable {res.name})")
        with _locked(res, ctx.attrs.get("use_locking", False)):
            fn(v, idx, upd)
            res.version += 1
        return res

    return kernel


for _op_type, _fn in _SCATTER_FNS.items():
    register_kernel(_op_type)(_make_scatter(_fn))


@register_kernel("IsVariableInitialized")
def _is_initialized(ctx: KernelContext, res: VariableResource) -> np.ndarray:
    return np.array(res.value is not None)


@register_kernel("CountUpTo")
def _count_up_to(ctx: KernelContext, res: VariableResource) -> np.ndarray:
    limit = ctx.attrs["limit"]
    with res.lock:
        v = res.read()
        old = np.array(v, copy=True)
        if old >= limit:
            raise errors.OutOfRangeError(ctx.op_name, None, f"Reached limit of {limit}")
        v += 1
        res.version += 1
    return old
