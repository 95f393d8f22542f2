"""numpy kernels of the session tensor ops (``ops/session_ops.py``): values kept in the
task's resource manager under their handle."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.ops.session_ops import SESSION_TENSORS, new_handle


class _Kept:
    """One kept value (a box, so a kept None-like value is still found)."""

    def __init__(self, value: Any):
        self.value = value


def _handle_of(ctx: KernelContext, handle: Any) -> str:
    raw = np.asarray(handle, dtype=object)
    if raw.shape != ():
        raise errors.InvalidArgumentError(ctx.op_name, None, f"{ctx.op_type}: the handle "
                                          f"must be a string scalar, got shape "
                                          f"{list(raw.shape)}")
    h = raw.item()
    return h.decode("utf-8") if isinstance(h, bytes) else str(h)


def _kept(ctx: KernelContext, handle: str) -> _Kept:
    kept = ctx.resources.find(SESSION_TENSORS, handle)
    if kept is None:
        raise errors.InvalidArgumentError(ctx.op_name, None, f"{ctx.op_type}: no tensor is kept "
                                   f"under handle {handle!r} in this task (deleted, or made "
                                   f"on another task)")
    return kept


@register_kernel("GetSessionHandle")
def _get_session_handle(ctx: KernelContext, value: Any) -> np.ndarray:
    handle = new_handle(ctx.op_name, ctx.device)
    kept = np.array(value, copy=True) if isinstance(value, np.ndarray) else value
    ctx.resources.lookup_or_create(SESSION_TENSORS, handle, lambda: _Kept(kept))
    return np.array(handle.encode("utf-8"), dtype=object)


@register_kernel("GetSessionTensor")
def _get_session_tensor(ctx: KernelContext, handle: Any) -> Any:
    value = _kept(ctx, _handle_of(ctx, handle)).value
    want = ctx.attrs["dtype"]
    got = np.asarray(value).dtype
    if want.np is not None and got != want.np and not (got == object and want.np == object):
        raise errors.InvalidArgumentError(ctx.op_name, None, f"GetSessionTensor: the kept "
                                          f"tensor is {got}, not {want.name}")
    return value


@register_kernel("DeleteSessionTensor")
def _delete_session_tensor(ctx: KernelContext, handle: Any) -> None:
    h = _handle_of(ctx, handle)
    _kept(ctx, h)
    ctx.resources.delete(SESSION_TENSORS, h)
