"""Kernel registry: ``(op type, device type) -> kernel``, and the device types.

A kernel is ``fn(ctx, *inputs) -> output`` (or a tuple for multi-output ops, or
None for ops without outputs). ``ctx`` is a ``KernelContext``: the op's attrs,
the task's resource manager and a per-session state dict for the op.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from tensorfleet import errors
from tensorfleet.framework.device import DeviceSpec

Kernel = Callable[..., Any]

_KERNELS: Dict[Tuple[str, str], Kernel] = {}
# Device types that kernels may be registered for. CPU (the numpy reference kernels)
# is always there; an accelerator backend adds its own type next to it.
_DEVICE_TYPES: List[str] = ["CPU"]

_SOFT_HINT = "Set allow_soft_placement=True in the ConfigProto to run it on a CPU."

# Kernel backends: a faster library's kernels plug in beside a device type's reference
# kernels (``_KERNELS``), under a backend name: (op type, device type, backend) -> kernel.
# The backend in use for a device type is chosen once, on the first kernel lookup for
# that type, by the chooser registered for it (``set_backend_chooser``); ops the chosen
# backend has no kernel for run the reference kernel.
_BACKEND_KERNELS: Dict[Tuple[str, str, str], Kernel] = {}
_BACKEND_CHOOSERS: Dict[str, Callable[[], Optional[str]]] = {}
_ACTIVE_BACKENDS: Dict[str, Optional[str]] = {}
# Called with (device type, backend) whenever a device type's backend is chosen.
_BACKEND_LISTENERS: List[Callable[[str, Optional[str]], None]] = []


def register_device_type(device_type: str) -> None:
    """Makes ``device_type`` (e.g. ``"GPU"``) a device type that kernels can be
    registered for and ops placed on (``/device:<TYPE>:<n>``); idempotent.

    This is where an accelerator backend plugs in: it registers its device type, then
    its kernels with ``register_kernel(op_type, device_type)``; ops placed on that
    device type without a kernel of their own run the CPU kernel only under
    ``allow_soft_placement``.
    """
    name = _device_type_name(device_type)
    if name not in _DEVICE_TYPES:
        _DEVICE_TYPES.append(name)


def unregister_device_type(device_type: str) -> None:
    """Removes a device type registered by ``register_device_type`` and its kernels."""
    name = _device_type_name(device_type)
    if name == "CPU":
        raise ValueError("The CPU device type holds the reference kernels and cannot be removed")
    if name in _DEVICE_TYPES:
        _DEVICE_TYPES.remove(name)
    for key in [k for k in _KERNELS if k[1] == name]:
        del _KERNELS[key]
    for bkey in [k for k in _BACKEND_KERNELS if k[1] == name]:
        del _BACKEND_KERNELS[bkey]
    _BACKEND_CHOOSERS.pop(name, None)
    _ACTIVE_BACKENDS.pop(name, None)


def registered_device_types() -> Tuple[str, ...]:
    """The registered device types, CPU first."""
    return tuple(_DEVICE_TYPES)


def _device_type_name(device_type: str) -> str:
    if not isinstance(device_type, str) or not device_type.isidentifier():
        raise ValueError(f"A device type is a name such as 'CPU' or 'GPU', got {device_type!r}")
    return device_type.upper()


def register_kernel(op_type: str, device_type: str = "CPU") -> Callable[[Kernel], Kernel]:
    """Decorator registering ``fn`` as the kernel of ``op_type`` on ``device_type``
    (which ``register_device_type`` must have registered)."""
    name = _device_type_name(device_type)
    if name not in _DEVICE_TYPES:
        raise ValueError(f"Cannot register a kernel for {op_type!r} on device type {name!r}: "
                         f"it is not a registered device type {list(_DEVICE_TYPES)}; call "
                         f"register_device_type({name!r}) first")

    def deco(fn: Kernel) -> Kernel:
        _KERNELS[(op_type, name)] = fn
        return fn

    return deco


def register_backend_kernel(op_type: str, device_type: str,
                            backend: str) -> Callable[[Kernel], Kernel]:
    """Decorator registering ``fn`` as backend ``backend``'s kernel of ``op_type`` on
    ``device_type``; it runs instead of the reference kernel while that backend is the
    one in use for the device type (``active_backend``)."""
    name = _device_type_name(device_type)
    if name not in _DEVICE_TYPES:
        raise ValueError(f"Cannot register a {backend} kernel on device type {name!r}: it is "
                         f"not a registered device type {list(_DEVICE_TYPES)}")

    def deco(fn: Kernel) -> Kernel:
        _BACKEND_KERNELS[(op_type, name, backend)] = fn
        return fn

    return deco


def set_backend_chooser(device_type: str, chooser: Callable[[], Optional[str]]) -> None:
    """Registers the function that picks ``device_type``'s backend (a name, or None for
    the reference kernels) on the first kernel lookup; forgets an earlier choice."""
    name = _device_type_name(device_type)
    _BACKEND_CHOOSERS[name] = chooser
    _ACTIVE_BACKENDS.pop(name, None)


def set_active_backend(device_type: str, backend: Optional[str]) -> None:
    """Makes ``backend`` (None: the reference kernels) the one in use on ``device_type``
    for every kernel looked up from now on (graphs already compiled keep theirs)."""
    name = _device_type_name(device_type)
    _ACTIVE_BACKENDS[name] = backend
    _tell_listeners(name, backend)


def add_backend_listener(fn: Callable[[str, Optional[str]], None]) -> None:
    """Calls ``fn(device_type, backend)`` each time a device type's backend is chosen
    (the thread policy follows it: oneDNN brings its own threads)."""
    _BACKEND_LISTENERS.append(fn)


def _tell_listeners(device_type: str, backend: Optional[str]) -> None:
    for fn in list(_BACKEND_LISTENERS):
        fn(device_type, backend)


def active_backend(device_type: str = "CPU") -> Optional[str]:
    """The backend in use on ``device_type`` (None: its reference kernels), choosing it
    now if no lookup has yet."""
    name = _device_type_name(device_type)
    if name not in _ACTIVE_BACKENDS:
        load_kernel_library()  # the backends register their choosers when imported
        chooser = _BACKEND_CHOOSERS.get(name)
        _ACTIVE_BACKENDS[name] = chooser() if chooser is not None else None
        _tell_listeners(name, _ACTIVE_BACKENDS[name])
    return _ACTIVE_BACKENDS[name]


def reference_kernel(op_type: str, device_type: str = "CPU") -> Optional[Kernel]:
    """The reference kernel of ``op_type`` on ``device_type`` (None when it has none)."""
    load_kernel_library()
    return _KERNELS.get((op_type, _device_type_name(device_type)))


# How the kernel library is imported (set by the ``tensorfleet.kernels`` package, which
# holds the library; the registry below it imports none of it), and whether it was.
_library: Dict[str, Any] = {"loader": None, "started": False, "done": False}
# Another thread's lookup waits while the library loads; the loading thread's own
# lookups (an import that looks a kernel up) go on.
_library_lock = threading.RLock()


def set_library_loader(loader: Callable[[], None]) -> None:
    """How ``load_kernel_library`` imports the kernels (set once, by the package)."""
    _library["loader"] = loader


def load_kernel_library() -> bool:
    """Imports the kernels (which registers them) unless that was done; returns whether
    it imported them now.

    The kernels load on first need: the first lookup of a kernel not registered yet,
    or the first use of a public ``tensorfleet`` name; programs that only ask a
    cluster for its status, or print help, never load them."""
    if _library["done"]:
        return False
    with _library_lock:
        loader = _library["loader"]
        if _library["started"] or loader is None:
            return False
        _library["started"] = True
        try:
            loader()
        finally:
            _library["done"] = True
    return True


# fn(fetches, targets, feeds, resources, op_state, owner) -> plan with .run(values, step):
# how kernels that run sub-graphs (functional control flow, tf.data functions) compile
# one; set by the runtime's executor, the only place kernels run.
_plan_builder: List[Optional[Callable[..., Any]]] = [None]


def set_plan_builder(fn: Callable[..., Any]) -> None:
    """Called by the runtime: how a kernel compiles a sub-graph into a plan."""
    _plan_builder[0] = fn


def plan_builder() -> Callable[..., Any]:
    """How a kernel compiles a sub-graph into a plan.

    Raises:
      InternalError: no runtime is imported (kernels run only under one).
    """
    if _plan_builder[0] is None:
        raise errors.InternalError(None, None, "no plan builder: import tensorfleet.runtime")
    return _plan_builder[0]


def _lookup(op_type: str, device_type: str) -> Optional[Kernel]:
    if (op_type, device_type) not in _KERNELS and load_kernel_library():
        return _lookup(op_type, device_type)
    backend = active_backend(device_type) if device_type.isidentifier() else None
    if backend is not None:
        k = _BACKEND_KERNELS.get((op_type, device_type, backend))
        if k is not None:
            return k
    return _KERNELS.get((op_type, device_type))


def get_kernel(op_type: str, device_type: str = "CPU") -> Kernel:
    """The kernel for an op type, falling back to CPU; NotFoundError when missing."""
    k = _lookup(op_type, (device_type or "CPU").upper()) or _lookup(op_type, "CPU")
    if k is None:
        raise errors.NotFoundError(None, None,
                                   f"No kernel registered for op {op_type!r} on {device_type}")
    return k


def has_kernel(op_type: str, device_type: str = "CPU") -> bool:
    """Whether ``op_type`` has a kernel of its own on ``device_type``."""
    load_kernel_library()
    return (op_type, device_type.upper()) in _KERNELS


def resolve_kernel(op_type: str, op_name: str, device: str,
                   allow_soft_placement: bool) -> Kernel:
    """The kernel that runs op ``op_name`` (of type ``op_type``) placed on ``device``.

    The device type of ``device`` chooses the kernel (no device, or no type, means
    CPU). A device type that is not registered, or that has no kernel for the op,
    falls back to the CPU kernel only under ``allow_soft_placement``; otherwise
    InvalidArgumentError names the op and the device. An op without any kernel
    raises NotFoundError.
    """
    try:
        spec = DeviceSpec.from_string(device)
    except ValueError as e:
        raise errors.InvalidArgumentError(
            op_name, None, f"Operation {op_name} has an invalid device {device!r}: {e}") from None
    dtype = spec.device_type or "CPU"
    k = _lookup(op_type, dtype)
    if k is not None:
        return k
    cpu = _lookup(op_type, "CPU")
    if dtype != "CPU" and not allow_soft_placement:
        if dtype not in _DEVICE_TYPES:
            raise errors.InvalidArgumentError(
                op_name, None, f"Cannot assign a device for operation {op_name}: "
                f"{spec.to_string()} was requested but no {dtype} device type is registered "
                f"(registered device types: {list(_DEVICE_TYPES)}). {_SOFT_HINT}")
        have = [t for t in _DEVICE_TYPES if (op_type, t) in _KERNELS]
        raise errors.InvalidArgumentError(
            op_name, None, f"No OpKernel was registered to support Op {op_type!r} used by node "
            f"{op_name} on device {spec.to_string()}. Registered devices for {op_type}: "
            f"{have}. {_SOFT_HINT}")
    if cpu is None:
        raise errors.NotFoundError(op_name, None,
                                   f"No kernel registered for op {op_type!r} (node {op_name})")
    return cpu


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


__all__ = ["register_kernel", "get_kernel", "has_kernel", "resolve_kernel",
           "register_backend_kernel", "set_backend_chooser", "set_active_backend",
           "active_backend", "reference_kernel",
           "register_device_type", "unregister_device_type", "registered_device_types",
           "KernelContext", "StepState",
           "DeadlineStep", "DEAD", "set_current_step"]


class _Dead:
    """Marks the untaken output of a ``Switch``: ops reading it do not run."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<dead>"


DEAD = _Dead()
# Op types that consume dead inputs themselves instead of being skipped.
DEAD_AWARE_OPS = {"Merge"}
