"""numpy kernels of the TensorArray ops, on ``TensorList`` values.

A ``TensorList`` is never changed once an op has produced it: a write copies the
list of element references (not the elements), so a value recorded by a loop or
read twice stays what it was. Lists of gradients are sparse: a missing or None
element is zero, and adding two lists adds them element by element (which is how
``AddN`` sums the gradients of a list used twice).
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from tensorfleet import errors
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.kernels.registry import KernelContext, register_kernel


class TensorList:
    """The value of a TensorArray: its elements, None where nothing was written."""

    __slots__ = ("items", "dynamic")

    def __init__(self, items: List[Optional[np.ndarray]], dynamic: bool):
        self.items = items
        self.dynamic = dynamic

    def __add__(self, other: Any) -> "TensorList":
        if not isinstance(other, TensorList):
            return NotImplemented
        a, b = self.items, other.items
        out: List[Optional[np.ndarray]] = []
        for i in range(max(len(a), len(b))):
            x = a[i] if i < len(a) else None
            y = b[i] if i < len(b) else None
            out.append(y if x is None else (x if y is None else np.add(x, y)))
        return TensorList(out, True)

    __radd__ = __add__

    def __repr__(self) -> str:
        return f"<TensorList of {len(self.items)} elements>"


def _bad(ctx: KernelContext, msg: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(ctx.op_name, None, f"TensorArray: {msg}")


def _check_element(ctx: KernelContext, value: np.ndarray) -> None:
    es = ctx.attrs.get("element_shape")
    if isinstance(es, TensorShape) and not es.is_compatible_with(value.shape):
        raise _bad(ctx, f"could not write an element of shape {list(value.shape)}: the "
                        f"array's element shape is {es}")


def _as_list(ctx: KernelContext, flow: Any) -> TensorList:
    if not isinstance(flow, TensorList):
        raise _bad(ctx, f"expected a TensorArray value, got {type(flow).__name__}")
    return flow


def _put(ctx: KernelContext, items: List[Any], dynamic: bool, i: int, value: np.ndarray,
         overwrite: bool = False) -> None:
    if i < 0:
        raise _bad(ctx, f"index {i} is negative")
    if i >= len(items):
        if not dynamic:
            raise _bad(ctx, f"could not write to index {i}: the array has size {len(items)} "
                            f"and dynamic_size is false")
        items.extend([None] * (i + 1 - len(items)))
    if items[i] is not None and not overwrite:
        raise _bad(ctx, f"could not write to index {i} because it has already been written to")
    items[i] = value


def _get(ctx: KernelContext, lst: TensorList, i: int) -> np.ndarray:
    if not 0 <= i < len(lst.items):
        raise _bad(ctx, f"tried to read from index {i} but the array has size "
                        f"{len(lst.items)}")
    v = lst.items[i]
    if v is None:
        raise _bad(ctx, f"could not read from index {i} because it has not yet been "
                        f"written to")
    return v


def _stack(ctx: KernelContext, elems: Sequence[np.ndarray]) -> np.ndarray:
    dt = ctx.attrs["dtype"].np
    if not elems:
        es = ctx.attrs.get("element_shape")
        if isinstance(es, TensorShape) and es.is_fully_defined():
            return np.zeros([0] + es.as_list(), dtype=dt)
        raise _bad(ctx, "cannot stack an empty array whose element shape is not fully known")
    first = elems[0].shape
    for j, e in enumerate(elems):
        if e.shape != first:
            raise _bad(ctx, f"could not stack elements: element {j} has shape "
                            f"{list(e.shape)}, element 0 has shape {list(first)}")
    return np.stack(elems).astype(dt, copy=False)


@register_kernel("TensorArrayV3")
def _new(ctx: KernelContext, size: Any) -> TensorList:
    n = int(size)
    if n < 0:
        raise _bad(ctx, f"size must be non-negative, got {n}")
    return TensorList([None] * n, bool(ctx.attrs.get("dynamic_size", False)))


@register_kernel("TensorArrayWriteV3")
def _write(ctx: KernelContext, flow: Any, index: Any, value: Any) -> TensorList:
    lst = _as_list(ctx, flow)
    v = np.asarray(value)
    _check_element(ctx, v)
    items = list(lst.items)
    _put(ctx, items, lst.dynamic, int(index), v)
    return TensorList(items, lst.dynamic)


@register_kernel("TensorArrayReadV3")
def _read(ctx: KernelContext, flow: Any, index: Any) -> np.ndarray:
    return _get(ctx, _as_list(ctx, flow), int(index))


@register_kernel("TensorArrayGatherV3")
def _gather(ctx: KernelContext, flow: Any, indices: Any = None) -> np.ndarray:
    lst = _as_list(ctx, flow)
    if indices is None:
        return _stack(ctx, [_get(ctx, lst, i) for i in range(len(lst.items))])
    return _stack(ctx, [_get(ctx, lst, int(i)) for i in np.reshape(indices, [-1])])


@register_kernel("TensorArrayScatterV3")
def _scatter(ctx: KernelContext, flow: Any, value: Any, indices: Any = None) -> TensorList:
    lst = _as_list(ctx, flow)
    v = np.asarray(value)
    if v.ndim == 0:
        raise _bad(ctx, "the value to unstack or scatter must have rank >= 1")
    idx = np.arange(v.shape[0]) if indices is None else np.reshape(indices, [-1])
    if len(idx) != v.shape[0]:
        raise _bad(ctx, f"{len(idx)} indices for a value with {v.shape[0]} rows")
    if v.shape[0]:
        _check_element(ctx, v[0])
    items = list(lst.items)
    for k, i in enumerate(idx):
        _put(ctx, items, lst.dynamic, int(i), v[k])
    return TensorList(items, lst.dynamic)


@register_kernel("TensorArrayConcatV3")
def _concat(ctx: KernelContext, flow: Any) -> Any:
    lst = _as_list(ctx, flow)
    elems = [_get(ctx, lst, i) for i in range(len(lst.items))]
    lengths = np.array([e.shape[0] if e.ndim else -1 for e in elems], dtype=np.int64)
    if (lengths < 0).any():
        raise _bad(ctx, "concat needs elements of rank >= 1")
    if not elems:
        es = ctx.attrs.get("element_shape")
        tail = es.as_list()[1:] if isinstance(es, TensorShape) and es.is_fully_defined() else []
        return np.zeros([0] + tail, dtype=ctx.attrs["dtype"].np), lengths
    tails = {e.shape[1:] for e in elems}
    if len(tails) > 1:
        raise _bad(ctx, f"concat needs elements that agree past their first axis, got "
                        f"shapes {[list(e.shape) for e in elems]}")
    return np.concatenate(elems).astype(ctx.attrs["dtype"].np, copy=False), lengths


@register_kernel("TensorArraySplitV3")
def _split(ctx: KernelContext, flow: Any, value: Any, lengths: Any) -> TensorList:
    lst = _as_list(ctx, flow)
    v = np.asarray(value)
    ln = np.reshape(np.asarray(lengths, dtype=np.int64), [-1])
    if v.ndim == 0 or (ln < 0).any() or int(ln.sum()) != v.shape[0]:
        raise _bad(ctx, f"split lengths {ln.tolist()} must be non-negative and sum to the "
                        f"first dimension of the value (shape {list(v.shape)})")
    items = list(lst.items)
    pieces = np.split(v, np.cumsum(ln)[:-1])
    for i, p in enumerate(pieces):
        _put(ctx, items, lst.dynamic, i, p)
    return TensorList(items, lst.dynamic)


@register_kernel("TensorArraySizeV3")
def _size(ctx: KernelContext, flow: Any) -> np.ndarray:
    return np.int32(len(_as_list(ctx, flow).items))


@register_kernel("TensorArrayCloseV3")
def _close(ctx: KernelContext, flow: Any) -> None:
    return None


# -- gradient lists ---------------------------------------------------------------------

@register_kernel("TensorArrayGradEmpty")
def _grad_empty(ctx: KernelContext) -> TensorList:
    return TensorList([], True)


def _grad_elem(lst: TensorList, i: int, shape: Any, dt: np.dtype) -> np.ndarray:
    v = lst.items[i] if 0 <= i < len(lst.items) else None
    return np.zeros(shape, dtype=dt) if v is None else v


@register_kernel("TensorArrayGradRead")
def _grad_read(ctx: KernelContext, flow: Any, index: Any, shape: Any) -> np.ndarray:
    """Element ``index`` of a gradient list; zeros of ``shape`` when it has none."""
    return _grad_elem(_as_list(ctx, flow), int(index), np.asarray(shape), ctx.attrs["dtype"].np)


@register_kernel("TensorArrayGradGather")
def _grad_gather(ctx: KernelContext, flow: Any, value_shape: Any,
                 indices: Any = None) -> np.ndarray:
    """Rows of a gradient list stacked to ``value_shape`` (rows ``indices`` if given)."""
    lst = _as_list(ctx, flow)
    shape = [int(d) for d in np.reshape(value_shape, [-1])]
    idx = range(shape[0]) if indices is None else [int(i) for i in np.reshape(indices, [-1])]
    dt = ctx.attrs["dtype"].np
    out = np.zeros([len(idx)] + shape[1:], dtype=dt)
    for k, i in enumerate(idx):
        v = lst.items[i] if 0 <= i < len(lst.items) else None
        if v is not None:
            out[k] = v
    return out


@register_kernel("TensorArrayGradConcat")
def _grad_concat(ctx: KernelContext, flow: Any, lengths: Any, value_shape: Any) -> np.ndarray:
    """A gradient list concatenated to ``value_shape``, element i being ``lengths[i]`` rows."""
    lst = _as_list(ctx, flow)
    shape = [int(d) for d in np.reshape(value_shape, [-1])]
    out = np.zeros(shape, dtype=ctx.attrs["dtype"].np)
    start = 0
    for i, n in enumerate(np.reshape(lengths, [-1]).tolist()):
        v = lst.items[i] if i < len(lst.items) else None
        if v is not None:
            out[start:start + int(n)] = v
        start += int(n)
    return out


@register_kernel("TensorArrayGradClear")
def _grad_clear(ctx: KernelContext, flow: Any, indices: Any = None) -> TensorList:
    """A gradient list with ``indices`` (all when not given) set to zero."""
    lst = _as_list(ctx, flow)
    if indices is None:
        return TensorList([], True)
    items = list(lst.items)
    for i in np.reshape(indices, [-1]).tolist():
        if 0 <= i < len(items):
            items[i] = None
    return TensorList(items, True)


__all__ = ["TensorList"]
