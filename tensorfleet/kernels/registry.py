"""Kernel registry: ``(op type, device type) -> kernel``.

A kernel is ``fn(ctx, *inputs) -> output`` (or a tuple for multi-output ops, or
None for ops without outputs). ``ctx`` is a ``KernelContext``: the op's attrs,
the task's resource manager and a per-session state dict for the op.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Dict, Optional, Tuple

from tensorfleet import errors

Kernel = Callable[..., Any]

_KERNELS: Dict[Tuple[str, str], Kernel] = {}


def register_kernel(op_type: str, device_type: str = "CPU") -> Callable[[Kernel], Kernel]:
    """Decorator registering ``fn`` as the kernel of ``op_type`` on ``device_type``."""

    def deco(fn: Kernel) -> Kernel:
        _KERNELS[(op_type, device_type.upper())] = fn
        return fn

    return deco


def get_kernel(op_type: str, device_type: str = "CPU") -> Kernel:
    """The kernel for an op type, falling back to CPU; NotFoundError when missing."""
    k = _KERNELS.get((op_type, (device_type or "CPU").upper())) or _KERNELS.get((op_type, "CPU"))
    if k is None:
        raise errors.NotFoundError(None, None,
                                   f"No kernel registered for op {op_type!r} on {device_type}")
    return k


def has_kernel(op_type: str) -> bool:
    return (op_type, "CPU") in _KERNELS


class KernelContext:
    """What a kernel may see of its op and task (static for a compiled plan)."""

    __slots__ = ("op_name", "op_type", "attrs", "resources", "state", "device", "owner")

    def __init__(self, op_name: str, op_type: str, attrs: Dict[str, Any], resources: Any,
                 state: Dict[str, Any], device: str = "", owner: Any = None):
        self.op_name = op_name
        self.op_type = op_type
        self.attrs = attrs
        self.resources = resources
        self.state = state
        self.device = device
        self.owner = owner

    def step(self) -> Optional["StepState"]:
        """The state of the step running on this thread (rendezvous, step id)."""
        return getattr(_STEP, "value", None)

    def cancel_check(self) -> Optional[Callable[[], bool]]:
        """A predicate a blocked kernel asks whether its step was cancelled (aborted
        elsewhere in the cluster, or past its deadline); None outside a step."""
        step = self.step()
        if step is None:
            return None
        return lambda: bool(step.cancelled)


class StepState:
    """Per-step information visible to kernels that need it (send/recv, collectives)."""

    __slots__ = ("step_id", "rendezvous", "extra", "cancelled")

    def __init__(self, step_id: int, rendezvous: Any = None, extra: Any = None):
        self.step_id = step_id
        self.rendezvous = rendezvous
        self.extra = extra
        self.cancelled = False


class DeadlineStep(StepState):
    """A step of a session with ``operation_timeout_in_ms``: it counts as cancelled
    once ``timeout`` seconds have passed, which ends the kernels blocked in it."""

    __slots__ = ("deadline", "_cancelled")

    def __init__(self, step_id: int, timeout: float):
        self.deadline = time.monotonic() + timeout
        super().__init__(step_id)

    @property
    def expired(self) -> bool:
        return time.monotonic() >= self.deadline

    @property  # type: ignore[override]
    def cancelled(self) -> bool:
        return self._cancelled or self.expired

    @cancelled.setter
    def cancelled(self, value: bool) -> None:
        self._cancelled = bool(value)


_STEP = threading.local()


def set_current_step(step: Optional[StepState]) -> Optional[StepState]:
    prev = getattr(_STEP, "value", None)
    _STEP.value = step
    return prev


__all__ = ["register_kernel", "get_kernel", "has_kernel", "KernelContext", "StepState",
           "DeadlineStep", "DEAD", "set_current_step"]


class _Dead:
    """Marks the untaken output of a ``Switch``: ops reading it do not run."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<dead>"


DEAD = _Dead()
# Op types that consume dead inputs themselves instead of being skipped.
DEAD_AWARE_OPS = {"Merge"}
