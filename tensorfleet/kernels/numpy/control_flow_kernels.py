"""numpy kernels of the control-flow ops: NoOp, Switch, Merge, RefGate, Assert, Print.

The executor never calls a kernel with a dead input except for ``Merge``, so
Switch and RefGate only ever see live values.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.registry import DEAD, KernelContext, register_kernel


@register_kernel("NoOp")
def _no_op(ctx: KernelContext) -> None:
    return None


def _truth(ctx: KernelContext, pred: Any) -> bool:
    if np.ndim(pred) != 0:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"The second input must be a scalar, but it has shape "
            f"{list(np.shape(pred))}")
    return bool(pred)


@register_kernel("Switch")
def _switch(ctx: KernelContext, data: Any, pred: Any) -> Tuple[Any, Any]:
    return (DEAD, data) if _truth(ctx, pred) else (data, DEAD)


@register_kernel("Merge")
def _merge(ctx: KernelContext, *inputs: Any) -> Tuple[Any, Any]:
    for i, x in enumerate(inputs):
        if x is not DEAD:
            return x, np.array(i, dtype=np.int32)
    return DEAD, DEAD


@register_kernel("RefGate")
def _ref_gate(ctx: KernelContext, ref: Any, gate: Any) -> Any:
    return ref


def _format(x: Any, summarize: int) -> str:
    arr = np.asarray(x)
    flat = arr.reshape(-1)
    items = [v.decode(errors="replace") if isinstance(v, bytes)
             else (f"{v:g}" if isinstance(v, float) else str(v))
             for v in flat[:summarize].tolist()]
    if arr.ndim == 0:
        return items[0]
    more = "..." if flat.size > summarize else ""
    return "[" + " ".join(items) + more + "]"


@register_kernel("Assert")
def _assert(ctx: KernelContext, condition: Any, *data: Any) -> None:
    if np.all(condition):
        return None
    summarize = ctx.attrs.get("summarize", 3)
    msg = " ".join(_format(d, summarize) for d in data)
    raise errors.InvalidArgumentError(ctx.op_name, None, f"assertion failed: {msg}")


_PRINT_LOCK = threading.Lock()


def _render(x: Any, summarize: int) -> str:
    """One tensor as ``[a b c...]`` showing at most ``summarize`` elements (a scalar bare)."""
    arr = np.asarray(x)
    flat = arr.reshape(-1)
    limit = flat.size if summarize < 0 else summarize
    items = [v.decode(errors="replace") if isinstance(v, bytes)
             else (f"{v:g}" if isinstance(v, float) else str(v))
             for v in flat[:limit].tolist()]
    if arr.ndim == 0:
        return items[0] if items else ""
    more = "..." if flat.size > limit else ""
    return "[" + " ".join(items) + more + "]"


@register_kernel("Print")
def _print_kernel(ctx: KernelContext, value: Any, *data: Any) -> Any:
    first_n = int(ctx.attrs.get("first_n", -1))
    if first_n >= 0:
        # The count is per op and session, shared by concurrent steps.
        with _PRINT_LOCK:
            seen = ctx.state.get("printed", 0)
            if seen >= first_n:
                return value
            ctx.state["printed"] = seen + 1
    summarize = int(ctx.attrs.get("summarize", 3))
    line = str(ctx.attrs.get("message", "")) + "".join(
        f"[{_render(d, summarize)}]" if np.ndim(d) == 0 else _render(d, summarize)
        for d in data)
    with _PRINT_LOCK:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    return value
