"""``tf.Session``: runs fetches of a graph, locally or against a cluster's master.

The client-side work (resolving nested fetches, validating feeds, rebuilding the
result structure) is shared; where the step runs is a backend chosen by target:
``""`` runs in this process, ``grpc://host:port`` talks to a server's master
(registered by ``tensorfleet.distributed``).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.framework import value_range
from tensorfleet.framework.graph import (Graph, Operation, Tensor, get_default_graph,
                                         register_default_session_fn)
from tensorfleet.kernels.registry import DeadlineStep, StepState
from tensorfleet.runtime import process
from tensorfleet.runtime.executor import Plan, prune
from tensorfleet.runtime.fetch_structure import FetchStructure
from tensorfleet.runtime.partial_run import PartialRun
from tensorfleet.runtime.resource_mgr import ResourceManager
from tensorfleet.runtime.step_stats import step_stats_from, traced_plan
from tensorfleet.runtime.threads import adapt_blas, apply_config

def register_session_factory(prefix: str, factory: Callable[..., Any],
                             reset: Optional[Callable[..., None]] = None) -> None:
    """Makes ``Session(target)`` with ``target.startswith(prefix)`` use ``factory``
    (in the current ``ProcessRuntime`` and every runtime made from it)."""
    rt = process.current()
    rt.session_factories[prefix] = factory
    if reset is not None:
        rt.session_resetters[prefix] = reset


def _session_factory(target: str) -> Any:
    """The backend factory registered for ``target``'s scheme, or None (the ``grpc://``
    backend registers itself when ``tensorfleet.distributed.remote`` is imported, as the
    first use of a public ``tensorfleet`` name does)."""
    return next((f for p, f in process.current().session_factories.items()
                 if target.startswith(p)), None)


class LocalBackend:
    """Runs steps in this process, with its own resource manager and plan cache.

    Closing it cancels the steps still running (a queue runner's enqueue blocked
    on a full queue, say): they fail with CancelledError and their threads end.
    """

    def __init__(self, graph: Graph, config: Any = None,
                 resources: Optional[ResourceManager] = None):
        self.graph = graph
        self.resources = resources if resources is not None else ResourceManager()
        self._plans: Dict[tuple, Plan] = {}
        self._op_states: Dict[str, Dict[str, Any]] = {}
        self._lock = threading.Lock()
        self.config = config
        self._running: Set[StepState] = set()
        self._running_lock = threading.Lock()
        self._closed = False

    def op_state(self, op: Operation) -> Dict[str, Any]:
        return self._op_states.setdefault(op.name, {})

    def plan_for(self, fetches: Tuple[Tensor, ...], targets: Tuple[Operation, ...],
                 feeds: Tuple[Tensor, ...]) -> Plan:
        key = (fetches, targets, feeds)
        plan = self._plans.get(key)
        if plan is None:
            with self._lock:
                ops = prune(fetches, targets, set(feeds))
                plan = Plan(ops, feeds, fetches, self.resources, self.op_state, self)
                self._plans[key] = plan
        return plan

    def run(self, fetches: Tuple[Tensor, ...], targets: Tuple[Operation, ...],
            feeds: Tuple[Tensor, ...], feed_values: Sequence[Any],
            timeout_ms: int = 0, trace: Optional[List[Any]] = None) -> List[Any]:
        adapt_blas()
        plan = self.plan_for(fetches, targets, feeds)
        if trace is not None:
            plan = traced_plan(plan, trace)
        ms, what = timeout_ms, "RunOptions.timeout_in_ms"
        if ms <= 0:
            ms = getattr(self.config, "operation_timeout_in_ms", 0) or 0
            what = "the session's operation_timeout_in_ms"
        step = DeadlineStep(0, ms / 1000.0) if ms > 0 else StepState(0)
        with self._running_lock:
            self._running.add(step)
        try:
            return plan.run(feed_values, step)
        except errors.CancelledError as e:
            if isinstance(step, DeadlineStep) and step.expired:
                raise errors.DeadlineExceededError(
                    e.node_def, e.op, f"The step did not finish within {what} ({ms} ms): "
                    f"{e.message}") from None
            if self._closed:
                raise errors.CancelledError(
                    e.node_def, e.op, f"The session was closed while the step was running: "
                    f"{e.message}") from None
            raise
        finally:
            with self._running_lock:
                self._running.discard(step)

    def close(self) -> None:
        with self._running_lock:
            self._closed = True
            for step in self._running:
                step.cancelled = True
        self._plans.clear()


_PRIVATE_CHECKS: List[Callable[[np.ndarray], bool]] = []


def register_private_value_check(check: Callable[[np.ndarray], bool]) -> None:
    """Adds ``check(array)``: True when a fetched view refers to memory nothing else
    uses (a tensor received from another task), so it needs no defensive copy."""
    if check not in _PRIVATE_CHECKS:
        _PRIVATE_CHECKS.append(check)


def stable_value(v: Any, copy: Callable[[np.ndarray], np.ndarray] = np.copy) -> Any:
    """``v`` itself when nothing else will change it, else ``copy(v)``.

    A view may alias a variable that a later step updates in place; an array that
    owns its memory, or a view of a received tensor's own message buffer, does not.
    """
    if isinstance(v, np.ndarray) and not v.flags.owndata and not (
            v.flags.writeable and any(check(v) for check in _PRIVATE_CHECKS)):
        return copy(v)
    return v


logger = logging.getLogger(__name__)
_warned_targets: Set[str] = set()


def _warn_no_trace(target: str) -> None:
    if target not in _warned_targets:
        _warned_targets.add(target)
        logger.warning("RunOptions.trace_level: steps of the session on %s are not traced "
                       "(only in-process sessions record step_stats)", target)


def _check_fetchable(graph: Any, st: Any) -> None:
    """Raises ValueError for a fetch that ``graph.prevent_fetching`` marked."""
    for el in list(st.tensors) + list(st.targets):
        if not graph.is_fetchable(el):
            name = el.op.name if isinstance(el, Tensor) else el.name
            raise ValueError(f"Operation {name!r} has been marked as not fetchable.")


def _timeout_of(options: Any) -> int:
    """``options.timeout_in_ms`` (``tf.RunOptions``) as a positive int, or 0 for none."""
    ms = getattr(options, "timeout_in_ms", 0) or 0
    if isinstance(ms, bool) or not isinstance(ms, (int, np.integer)):
        raise TypeError(f"RunOptions.timeout_in_ms must be an integer, got {ms!r}")
    return max(0, int(ms))


def _to_user_value(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        if v.ndim == 0:
            return v[()]
        v = stable_value(v)
        if not v.flags.writeable:
            return v.copy()
    return v


def _string_feed(t: Tensor, value: Any) -> np.ndarray:
    """A string feed as TensorFlow holds it: an object array of bytes, ``str`` elements
    encoded as UTF-8 (so a fed ``'a'`` equals the constant ``'a'``)."""
    arr = np.array(value, dtype=object)  # a copy: the caller's array stays as it was
    flat = arr.reshape(-1)
    for i, v in enumerate(flat):
        if isinstance(v, str):
            flat[i] = v.encode("utf-8")
        elif not isinstance(v, bytes):
            raise TypeError(f"Cannot feed {type(v).__name__} value {v!r} to Tensor "
                            f"{t.name!r} of dtype string: its elements must be str or bytes")
    return arr


def convert_feed_value(t: Tensor, value: Any) -> np.ndarray:
    """Checks and converts one feed; ValueError/TypeError naming the tensor and shapes."""
    if isinstance(value, (Tensor, Operation)):
        raise TypeError(f"The value of a feed cannot be a tf.Tensor object. Acceptable feed "
                        f"values include Python scalars, strings, lists, numpy ndarrays. "
                        f"(feeding {t.name})")
    dt = t.dtype
    if dt is _dtypes.string:
        arr = _string_feed(t, value)
    else:
        src = np.asarray(value)
        if src.dtype.kind in "OSU":
            raise TypeError(f"Cannot feed {value_range.describe_source(src)} to Tensor "
                            f"{t.name!r} of dtype {dt.name}")
        if src.dtype != dt.np:
            if dt.np.kind in "iub" and src.dtype.kind == "f" and src.size and not np.all(
                    np.isfinite(src) & (np.floor(src) == src)):
                raise TypeError(f"Cannot feed non-integer values of dtype {src.dtype} to "
                                f"Tensor {t.name!r} of dtype {dt.name}")
            if dt.np.kind in "iu" and src.dtype.kind in "iuf":
                value_range.check_fits(t.name, dt.name, src, dt.np)
            arr = src.astype(dt.np)
        else:
            arr = src
    if not t.shape.is_compatible_with(arr.shape):
        raise ValueError(f"Cannot feed value of shape {arr.shape!r} for Tensor {t.name!r}, "
                         f"which has shape {str(t.shape)!r}")
    return arr


# The placement error's wording, TensorFlow's: "Cannot assign a device for operation X".
_PLACEMENT_ERROR = "Cannot assign a device for operation"


def _point_at_user_code(e: errors.OpError, graph: Graph) -> None:
    """Attaches to ``e`` the op of ``graph`` it names (an error from another task or the
    master names the op; this graph knows where the user defined it), and for a
    placement error, the ``tf.device`` scope that set the device."""
    if e.op is None and e.node_def:
        name = getattr(e.node_def, "name", e.node_def)
        if isinstance(name, str):
            e.op = graph._ops_by_name.get(name)
    site = getattr(e.op, "device_defined_at", None)
    if site and e.message.startswith(_PLACEMENT_ERROR) and "tf.device scope at" not in e.message:
        e.message += f"; the device comes from the tf.device scope at {site}"
        e.args = (e.message,)


class BaseSession:
    """Shared implementation of ``Session`` and ``InteractiveSession``."""

    def __init__(self, target: str = "", graph: Optional[Graph] = None, config: Any = None):
        self._graph = graph if graph is not None else get_default_graph()
        self._target = target or ""
        self._config = config
        self._closed = False
        self._structs: Dict[Any, FetchStructure] = {}
        self._partial_runs: Dict[str, PartialRun] = {}
        if isinstance(self._target, bytes):
            self._target = self._target.decode()
        apply_config(config)
        if not self._target:
            self._backend: Any = LocalBackend(self._graph, config)
        else:
            factory = _session_factory(self._target)
            if factory is None:
                raise errors.InvalidArgumentError(
                    None, None, f"No session factory registered for the given session target "
                    f"{self._target!r}; expected '' or 'grpc://host:port'")
            self._backend = factory(self._target, self._graph, config)
        self._default_ctx: List[Any] = []

    @property
    def graph(self) -> Graph:
        return self._graph

    @property
    def graph_def(self) -> Dict[str, Any]:
        return self._graph.as_graph_def()

    @property
    def sess_str(self) -> str:
        return self._target

    @property
    def closed(self) -> bool:
        """True once ``close()`` was called."""
        return self._closed

    def run(self, fetches: Any, feed_dict: Optional[dict] = None, options: Any = None,
            run_metadata: Any = None) -> Any:
        """Runs the ops needed for ``fetches`` and returns their values, in the same
        nested structure (lists, tuples, dicts, namedtuples)."""
        try:
            return self._run_step(fetches, feed_dict, options, run_metadata)
        except errors.OpError as e:
            _point_at_user_code(e, self._graph)
            if isinstance(e, (errors.InternalError, errors.UnknownError)):
                raise  # tensorfleet's own failure: its frames are the useful part
            # The error names the op and the user's line that built it; the framework
            # frames between this call and the kernel would only hide that.
            e.__cause__ = None
            e.__suppress_context__ = True
            raise e.with_traceback(None)

    def _run_step(self, fetches: Any, feed_dict: Optional[dict], options: Any,
                  run_metadata: Any) -> Any:
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if feed_dict:
            feeds, vals = self._feeds(feed_dict)
        else:
            feeds, vals = (), ()
        if self._graph._unfetchable:
            _check_fetchable(self._graph, FetchStructure(self._graph, fetches))
        timeout_ms = _timeout_of(options) if options is not None else 0
        if run_metadata is not None and getattr(options, "trace_level", 0):
            return self._run_traced(fetches, feeds, vals, timeout_ms, run_metadata)
        if timeout_ms:
            st = FetchStructure(self._graph, fetches)
            out = self._backend.run(tuple(st.tensors), tuple(st.targets), feeds, vals,
                                    timeout_ms=timeout_ms)
            return st.build([_to_user_value(v) for v in out])
        if type(fetches) is Tensor and fetches.graph is self._graph:
            out = self._backend.run((fetches,), (), feeds, vals)
            return _to_user_value(out[0])
        if type(fetches) is Operation and fetches.graph is self._graph:
            self._backend.run((), (fetches,), feeds, vals)
            return None
        st = FetchStructure(self._graph, fetches)
        out = self._backend.run(tuple(st.tensors), tuple(st.targets), feeds, vals)
        return st.build([_to_user_value(v) for v in out])

    def partial_run_setup(self, fetches: Any, feeds: Any = None) -> str:
        """Starts a partial run that may fetch ``fetches`` and feed ``feeds`` (lists of
        graph elements) over several ``partial_run`` calls; returns its handle."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        fetch_list = fetches if isinstance(fetches, (list, tuple)) else [fetches]
        pr = PartialRun(self._graph, fetch_list, list(feeds or []))
        self._partial_runs[pr.handle] = pr
        return pr.handle

    def partial_run(self, handle: str, fetches: Any, feed_dict: Optional[dict] = None) -> Any:
        """Continues the partial run ``handle``: feeds ``feed_dict`` and returns
        ``fetches``; ops that earlier calls ran are not run again.

        Raises:
          InvalidArgumentError: an unknown handle, or a feed or fetch not named in
            ``partial_run_setup`` or already fed or fetched.
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        pr = self._partial_runs.get(handle)
        if pr is None:
            raise errors.InvalidArgumentError(None, None, f"Must run 'setup' before performing "
                                                          f"partial runs! (handle {handle!r})")
        return pr.run(self, fetches, feed_dict or {})

    def _run_traced(self, fetches: Any, feeds: tuple, vals: Any, timeout_ms: int,
                    run_metadata: Any) -> Any:
        """A step whose ops are timed into ``run_metadata.step_stats`` (in-process
        sessions only: a cluster's master does not time ops, and says so once)."""
        st = FetchStructure(self._graph, fetches)
        if not isinstance(self._backend, LocalBackend):
            _warn_no_trace(self._target)
            out = self._backend.run(tuple(st.tensors), tuple(st.targets), feeds, vals,
                                    timeout_ms=timeout_ms)
            return st.build([_to_user_value(v) for v in out])
        sink: List[Any] = []
        try:
            out = self._backend.run(tuple(st.tensors), tuple(st.targets), feeds, vals,
                                    timeout_ms=timeout_ms, trace=sink)
        finally:
            run_metadata.step_stats = step_stats_from(sink)
        return st.build([_to_user_value(v) for v in out])

    def _feeds(self, feed_dict: dict) -> Tuple[tuple, list]:
        feeds, vals = [], []
        for k, v in feed_dict.items():
            keys = getattr(k, "_feed_components", None)
            if keys is not None:
                for kk, vv in zip(keys(), v_components(k, v)):
                    feeds.append(self._feed_tensor(kk))
                    vals.append(convert_feed_value(feeds[-1], vv))
                continue
            t = self._feed_tensor(k)
            feeds.append(t)
            vals.append(convert_feed_value(t, v))
        return tuple(feeds), vals

    def _feed_tensor(self, k: Any) -> Tensor:
        try:
            el = self._graph.as_graph_element(k, allow_operation=False)
        except (KeyError, ValueError, TypeError) as e:
            raise TypeError(f"Cannot interpret feed_dict key {k!r} as a Tensor: {e}") from None
        if self._graph._unfeedable and not self._graph.is_feedable(el):
            raise ValueError(f"Tensor {el.name} may not be fed.")
        return el  # type: ignore[return-value]

    def close(self) -> None:
        """Releases the session; later ``run`` calls raise RuntimeError."""
        if not self._closed:
            self._closed = True
            self._backend.close()

    def as_default(self) -> Any:
        return _default_session(self)

    def __enter__(self) -> "BaseSession":
        ctx = _default_session(self)
        ctx.__enter__()
        self._default_ctx.append(ctx)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._default_ctx:
            self._default_ctx.pop().__exit__(*exc)
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - best effort at interpreter exit
            pass

    def list_devices(self) -> List[str]:
        lister = getattr(self._backend, "list_devices", None)
        return lister() if lister else ["/job:localhost/replica:0/task:0/device:CPU:0"]

    def make_callable(self, fetches: Any, feed_list: Optional[Sequence[Any]] = None) -> Callable:
        """A function that runs ``fetches`` with positional feeds, skipping re-analysis."""
        st = FetchStructure(self._graph, fetches)
        feeds = tuple(self._feed_tensor(f) for f in (feed_list or ()))
        ft, tg = tuple(st.tensors), tuple(st.targets)

        def call(*args: Any) -> Any:
            vals = [convert_feed_value(t, a) for t, a in zip(feeds, args)]
            out = self._backend.run(ft, tg, feeds, vals)
            return st.build([_to_user_value(v) for v in out])
        return call


def v_components(key: Any, v: Any) -> Sequence[Any]:
    """The per-component values fed to a composite key (e.g. a ``SparseTensor``)."""
    comps = getattr(v, "_feed_values", None)
    if comps is not None:
        return comps()
    n = len(key._feed_components())
    # A dense array would be split into rows and fed to the wrong components.
    if not isinstance(v, (tuple, list)) or len(v) != n:
        raise TypeError(f"Cannot feed a {type(v).__name__} to a {type(key).__name__}: feed a "
                        f"{type(key).__name__}Value or a tuple of its {n} components")
    return tuple(v)


class Session(BaseSession):
    """``tf.Session(target='', graph=None, config=None)``."""

    @staticmethod
    def reset(target: str, containers: Optional[List[str]] = None, config: Any = None) -> None:
        """Clears resource containers (all when None) on every task of ``target``'s cluster."""
        fn = next((f for p, f in process.current().session_resetters.items()
                   if target.startswith(p)), None)
        if fn is None:
            raise errors.InvalidArgumentError(None, None, f"Cannot reset target {target!r}")
        fn(target, containers, config)


class InteractiveSession(BaseSession):
    """A session that installs itself as the default session on creation."""

    def __init__(self, target: str = "", graph: Optional[Graph] = None, config: Any = None):
        super().__init__(target, graph, config)
        self._ictx = _default_session(self)
        self._ictx.__enter__()

    def close(self) -> None:
        if not self._closed and getattr(self, "_ictx", None) is not None:
            try:
                self._ictx.__exit__(None, None, None)
            except (IndexError, ValueError):
                pass
            self._ictx = None
        super().close()


_session_local = threading.local()


def _session_stack() -> List[BaseSession]:
    st = getattr(_session_local, "stack", None)
    if st is None:
        st = _session_local.stack = []
    return st


@contextlib.contextmanager
def _default_session(sess: BaseSession) -> Iterator[BaseSession]:
    st = _session_stack()
    st.append(sess)
    g = sess.graph.as_default()
    g.__enter__()
    try:
        yield sess
    finally:
        g.__exit__(None, None, None)
        if sess in st:
            st.remove(sess)


def get_default_session() -> Optional[BaseSession]:
    st = _session_stack()
    return st[-1] if st else None


def get_default_session_or_raise() -> BaseSession:
    s = get_default_session()
    if s is None:
        raise ValueError("Cannot evaluate tensor using `eval()`: No default session is "
                         "registered. Use `with sess.as_default()` or pass an explicit session "
                         "to `eval(session=sess)`")
    return s


register_default_session_fn(get_default_session_or_raise)

__all__ = ["Session", "InteractiveSession", "get_default_session", "LocalBackend",
           "register_session_factory", "register_private_value_check", "convert_feed_value",
           "stable_value"]
