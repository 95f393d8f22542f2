"""The worker service: runs registered graph partitions on this task's state.

RegisterGraph imports a partition (plain data, validated) and compiles it once;
RunGraph runs it for one step with its feeds; RecvTensor hands a tensor that a
``_Send`` of this task produced to the task that receives it. Variables, queues
and other resources live in the task's resource manager and outlive sessions.

Served for a caller over the network (``transport.limits.CallScope``), a wait
here is bounded: RecvTensor by its timeout, ``max_wait`` and the caller's
deadline (the receiver asks again when the server's limit ended it), with at
most ``max_waiting`` such waits at once; RunGraph by the caller's deadline and
``limits.MAX_STEP_SECS``, and it is cancelled when its caller hangs up.
"""

from __future__ import annotations

import itertools
import random
import logging
import threading
import time
from typing import Any, Callable, Dict, List, Optional

from tensorfleet import errors
from tensorfleet.framework.graph import Graph
from tensorfleet.framework.serialization import import_graph_def
from tensorfleet.kernels.registry import StepState
from tensorfleet.distributed.rendezvous import Rendezvous, StepRendezvous
from tensorfleet.runtime.executor import Plan, prune
from tensorfleet.runtime.resource_mgr import ResourceManager
from tensorfleet.runtime.threads import adapt_blas
from tensorfleet.transport import limits

logger = logging.getLogger(__name__)

MAX_GRAPH_NODES = 1_000_000
DEFAULT_RECV_TIMEOUT = 3600.0
_RECV_SLICE_SECS = 1.0
# How often running steps are checked against their callers' deadlines.
_STEP_WATCH_SECS = 0.5


class _Registered:
    __slots__ = ("session", "graph", "plan", "feed_names", "fetch_names", "op_states",
                 "feed_specs")

    def __init__(self, session: str, graph: Graph, plan: Plan, feed_names: List[str],
                 fetch_names: List[str], op_states: Dict[str, Dict[str, Any]]):
        self.session = session
        self.graph = graph
        self.plan = plan
        self.feed_names = feed_names
        self.fetch_names = fetch_names
        self.op_states = op_states
        self.feed_specs = [(t.name, t.dtype, t.shape) for t in plan_feeds(graph, plan)]


def plan_feeds(graph: Graph, plan: Plan) -> List[Any]:
    """The feed tensors of a compiled plan, in feed order."""
    return list(getattr(plan, "feed_tensors", []))


def _bad(msg: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, msg)


class WorkerService:
    """One task's worker: graph registry, rendezvous and resource manager."""

    def __init__(self, task: str, resources: Optional[ResourceManager] = None,
                 peer: Optional[Callable[[str], Any]] = None,
                 recv_timeout: float = DEFAULT_RECV_TIMEOUT,
                 max_waiting: int = limits.MAX_WAITING_CALLS):
        self.task = task
        self.resources = resources if resources is not None else ResourceManager()
        self.cluster_def: Optional[Dict[str, Any]] = None
        self.rendezvous = Rendezvous(task)
        self._peer = peer
        self.recv_timeout = recv_timeout
        self._graphs: Dict[str, _Registered] = {}
        self._session_states: Dict[str, Dict[str, Dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        # A restarted task is a new incarnation: graph handles from before the restart
        # can never name a graph registered after it.
        self.incarnation = random.getrandbits(63)
        self.steps_run = 0
        self.started = time.time()
        # Steps running here, so an abort can also wake kernels blocked outside the
        # rendezvous (a queue dequeue on a parameter server).
        self._active: Dict[int, List[StepState]] = {}
        self.stopped = False  # set by Server.stop: waits for tensors end
        # The longest one RecvTensor call waits here (its receiver asks again).
        self.max_wait = limits.MAX_WAIT_SECS
        self._waits = limits.WaitSlots(max_waiting)
        # Steps run for a caller over the network: step -> (id, deadline, bound, caller).
        self._bounded: Dict[StepState, Any] = {}
        self._step_watcher: Optional[threading.Thread] = None
        # Set by ``stop_watching`` so the watcher ends with the server, not a tick later.
        self._watch_wake = threading.Event()

    # -- RegisterGraph -------------------------------------------------------------------
    def register_graph(self, session: str, plain: Any) -> str:
        """Imports and compiles a partition; returns its graph handle."""
        if not isinstance(plain, dict):
            raise _bad("RegisterGraph needs a dict with graph, feeds, fetches and targets")
        theirs = plain.get("cluster")
        if theirs is not None and self.cluster_def is not None and theirs != self.cluster_def:
            raise errors.FailedPreconditionError(
                None, None, f"Cluster spec mismatch: {self.task} was started with cluster "
                f"{self.cluster_def}, but the master that contacted it uses {theirs}. Start "
                f"every task with the same ClusterSpec.", task=self.task)
        gd = plain.get("graph")
        feeds, fetches, targets = plain.get("feeds"), plain.get("fetches"), plain.get("targets")
        if not isinstance(feeds, dict) or not isinstance(fetches, list) or \
                not isinstance(targets, list):
            raise _bad("RegisterGraph: feeds must be a dict, fetches and targets lists")
        if isinstance(gd, dict) and len(gd.get("node") or []) > MAX_GRAPH_NODES:
            raise _bad(f"graph has more than {MAX_GRAPH_NODES} nodes")
        graph = import_graph_def(gd)
        try:
            feed_ts = [graph.get_tensor_by_name(n) for n in feeds.values()]
            fetch_ts = [graph.get_tensor_by_name(n) for n in fetches]
            target_ops = [graph.get_operation_by_name(n) for n in targets]
        except (KeyError, ValueError, TypeError) as e:
            raise _bad(f"RegisterGraph names an unknown tensor or op: {e}") from None
        # Kernel state (random generators, dropout masks' RNG) belongs to the session,
        # not to one registered partition: a session registers a new partition for
        # every distinct fetch list, and a random op must not restart its sequence.
        with self._lock:
            op_states = self._session_states.setdefault(str(session), {})
        ops = prune(fetch_ts, target_ops, set(feed_ts))
        plan = Plan(ops, feed_ts, fetch_ts, self.resources,
                    lambda op: op_states.setdefault(op.name, {}), self)
        handle = f"{self.task}/{self.incarnation:016x}/graph/{next(self._ids)}"
        with self._lock:
            self._graphs[handle] = _Registered(str(session), graph, plan, list(feeds), fetches,
                                               op_states)
        return handle

    # -- RunGraph ------------------------------------------------------------------------
    def run_graph(self, handle: str, step_id: int, feeds: Dict[str, Any]) -> Dict[str, Any]:
        """Runs a registered partition for step ``step_id``; returns its fetches by name."""
        adapt_blas()
        reg = self._graphs.get(handle)
        if reg is None:
            raise errors.AbortedError(None, None, f"Graph handle {handle!r} is not registered on "
                                      f"{self.task} (the task may have restarted)", task=self.task)
        try:
            vals = [feeds[n] for n in reg.feed_names]
        except KeyError as e:
            raise _bad(f"RunGraph is missing the feed {e.args[0]!r}") from None
        # Feeds arrive from the network: check them against the graph before any
        # kernel sees them.
        for name, (_, dtype, shape), v in zip(reg.feed_names, reg.feed_specs, vals):
            if getattr(v, "dtype", None) != dtype.np or not shape.is_compatible_with(
                    getattr(v, "shape", ())):
                raise _bad(f"Feed {name!r} has dtype {getattr(v, 'dtype', type(v).__name__)} "
                           f"and shape {getattr(v, 'shape', None)}, but the graph expects "
                           f"{dtype.name} {shape}")
        step = StepState(step_id, StepRendezvous(step_id, self.rendezvous, self._peer_of,
                                                 self.recv_timeout))
        with self._lock:
            self._active.setdefault(step_id, []).append(step)
        self._bound_step(step_id, step)
        try:
            out = reg.plan.run(vals, step)
        except errors.OpError as e:
            if e.task is None:
                e.task = self.task
            # This partition will send nothing more in this step: fail the receives
            # other tasks are waiting on here now, even when no master is left to
            # abort the step (its client died with it).
            self.rendezvous.abort(step_id, e)
            raise
        finally:
            with self._lock:
                self._bounded.pop(step, None)
                steps = self._active.get(step_id, [])
                if step in steps:
                    steps.remove(step)
                if not steps:
                    self._active.pop(step_id, None)
        self.steps_run += 1
        return dict(zip(reg.fetch_names, out))

    def _bound_step(self, step_id: int, step: StepState) -> None:
        """Has the step watcher cancel ``step`` at its caller's deadline (or the
        server's maximum), or when its caller hangs up; only for network callers."""
        call = limits.current()
        if call is None:
            return
        seconds, bound = limits.bound(limits.MAX_STEP_SECS, limits.MAX_STEP_SECS)
        with self._lock:
            self._bounded[step] = (step_id, time.monotonic() + seconds, bound, call)
            if self._step_watcher is None:
                self._watch_wake.clear()
                self._step_watcher = threading.Thread(target=self._watch_steps, daemon=True,
                                                      name="tf-worker-deadlines")
                self._step_watcher.start()

    def stop_watching(self) -> None:
        """Ends the step watcher thread, if one runs, and waits for it (server stop)."""
        with self._lock:
            watcher = self._step_watcher
            self._watch_wake.set()
        if watcher is not None and watcher is not threading.current_thread():
            watcher.join(_STEP_WATCH_SECS * 4)

    def _watch_steps(self) -> None:
        while True:
            woken = self._watch_wake.wait(_STEP_WATCH_SECS)
            now = time.monotonic()
            with self._lock:
                if woken or self.stopped or not self._bounded:
                    self._step_watcher = None
                    return
                watched = list(self._bounded.items())
            for step, (step_id, deadline, bound, call) in watched:
                if now >= deadline:
                    why = ("its caller's deadline passed" if bound == "caller" else
                           f"it ran past the server's limit of {limits.MAX_STEP_SECS:.0f} s")
                    code, message = errors.DEADLINE_EXCEEDED, f"Step {step_id} was " \
                        f"cancelled on {self.task}: {why}"
                elif not call.alive():
                    code, message = errors.CANCELLED, f"Step {step_id} was cancelled on " \
                        f"{self.task}: its caller went away"
                else:
                    continue
                with self._lock:
                    if self._bounded.pop(step, None) is None:
                        continue  # it ended meanwhile
                logger.warning("%s", message)
                self.abort_step(step_id, code, message)

    def _peer_of(self, task: str) -> Any:
        if self._peer is None:
            raise errors.InternalError(None, None, f"{self.task} cannot reach {task}")
        return self._peer(task)

    # -- RecvTensor / AbortStep ------------------------------------------------------------
    def recv_tensor(self, step_id: int, key: str, timeout: float) -> Any:
        """Blocks until this task's ``_Send`` for ``key`` in ``step_id`` has run."""
        return self.recv_tensors(step_id, [key], timeout)[0]

    def recv_tensors(self, step_id: int, keys: List[str], timeout: float) -> List[Any]:
        """``recv_tensor`` for several keys of one step, answered together.

        The wait lasts at most ``timeout``, ``max_wait`` and the caller's own
        deadline; a wait that a server limit ended raises a DeadlineExceededError
        that ``limits.wait_was_cut`` recognises, and its receiver asks again. Past
        ``max_waiting`` waiting calls, a call whose tensors are not here is
        answered that way at once instead of holding a thread.
        """
        timeout = limits.check_wait(timeout, "the receive timeout")
        ready, missing = self.rendezvous.take_ready(step_id, keys)
        if ready is not None:
            return ready
        seconds, bound = limits.bound(timeout, self.max_wait)
        if seconds <= 0:
            raise self._late(step_id, missing, timeout, seconds, bound)
        if not self._waits.try_acquire():
            raise errors.DeadlineExceededError(
                None, None, f"{self._waits.limit} calls already wait on {self.task} for "
                f"tensors; tensor {missing.split(';')[0]!r} of step {step_id} is not there "
                f"yet {limits.WAIT_CUT_NOTE}", task=self.task)
        try:
            return self._wait(step_id, keys, timeout, seconds, bound)
        finally:
            self._waits.release()

    def _wait(self, step_id: int, keys: List[str], timeout: float, seconds: float,
              bound: str) -> List[Any]:
        deadline = time.monotonic() + seconds
        call = limits.current()
        # Waits in slices so that a server that stops, or a caller that hangs up,
        # ends the wait: the handler's thread is needed by other calls.
        while True:
            left = deadline - time.monotonic()
            if self.stopped:
                raise errors.CancelledError(None, None, f"{self.task} is shutting down",
                                            task=self.task)
            if call is not None and not call.alive():
                raise errors.CancelledError(None, None, f"the caller waiting on {self.task} "
                                            f"for tensors of step {step_id} went away",
                                            task=self.task)
            try:
                return self.rendezvous.take_many(step_id, keys,
                                                 max(0.0, min(left, _RECV_SLICE_SECS)))
            except errors.DeadlineExceededError as e:
                if left <= _RECV_SLICE_SECS and hasattr(e, "missing_key"):
                    raise self._late(step_id, e.missing_key, timeout, seconds, bound) from None
                if not hasattr(e, "missing_key"):
                    raise

    def _late(self, step_id: int, key: str, timeout: float, waited: float,
              bound: str) -> errors.DeadlineExceededError:
        """The error of a wait for ``key`` that ended after ``waited`` seconds."""
        name = key.split(";")[0]
        if bound == "server":
            message = (f"tensor {name!r} of step {step_id} did not come to {self.task} within "
                       f"{waited:.0f}s, the longest one call waits there "
                       f"{limits.WAIT_CUT_NOTE}")
        elif bound == "caller":
            message = (f"the caller's deadline passed while waiting on {self.task} for tensor "
                       f"{name!r} of step {step_id}")
        else:
            message = (f"Timed out after {timeout:.0f}s waiting on {self.task} for tensor "
                       f"{name!r} of step {step_id}")
        return errors.DeadlineExceededError(None, None, message, task=self.task)

    def abort_step(self, step_id: int, code: int, message: str) -> None:
        with self._lock:
            for st in self._active.get(step_id, []):
                st.cancelled = True
        self.rendezvous.abort(step_id, errors.make_error(code, message))

    # -- cleanup -----------------------------------------------------------------------------
    def cleanup_graph(self, handle: str) -> None:
        with self._lock:
            self._graphs.pop(handle, None)

    def cleanup_session(self, session: str) -> None:
        with self._lock:
            self._session_states.pop(session, None)
            for h in [h for h, r in self._graphs.items() if r.session == session]:
                del self._graphs[h]

    def reset(self, containers: Optional[List[str]]) -> None:
        """Clears resource containers (all when None/empty) and forgets graphs."""
        self.resources.clear(containers or None)
        with self._lock:
            self._graphs.clear()
            self._session_states.clear()

    def ping(self, timeout: float) -> Dict[str, Any]:
        return {"task": self.task}

    def status(self) -> Dict[str, Any]:
        """What ``tensorfleet status`` shows of this task."""
        variables = [{"name": v.name, "dtype": v.dtype.name,
                      "shape": list(v.value.shape) if v.value is not None else None,
                      "bytes": v.nbytes()} for v in self.resources.variables()]
        return {"task": self.task, "steps": self.steps_run, "graphs": len(self._graphs),
                "uptime": time.time() - self.started, "variables": variables}


__all__ = ["WorkerService"]
