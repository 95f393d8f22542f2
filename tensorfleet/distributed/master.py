"""The master service: sessions whose steps run across the cluster.

For each distinct (feeds, fetches, targets) of a session the master prunes the
graph, places every op on a task, partitions it with send/recv pairs and
registers each partition with its worker once. A step then only sends RunGraph
to the workers involved, concurrently, and gathers the fetches. If any
partition fails, the others are told to abort the step, so no task waits for a
tensor that will never come. A step run for a caller over the network ends at
that caller's deadline (or ``limits.MAX_STEP_SECS``), and when it hangs up.

When a step completes or fails is decided by its ``step_state.StepLifecycle``,
which does no I/O; this module only turns what happens (a RunGraph future
finishing, a watchdog tick, a ping's answer, a session closing) into its events
and carries out the actions it returns (abort the step on its tasks, ping them,
report a slow step).
"""

from __future__ import annotations

import itertools
import os
import time
import logging
import random
import sys
import threading
import weakref
from concurrent.futures import FIRST_EXCEPTION, wait
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from tensorfleet import errors
from tensorfleet.distributed import direct_fetch
from tensorfleet.distributed.cluster import ClusterSpec, ConfigProto
from tensorfleet.distributed.partition import partition
from tensorfleet.distributed.placement import get_log_device_placement, log_placement, place
from tensorfleet.distributed.step_state import (
    AbortRequested, AbortTasks, Action, CallerGone, Event, PartitionFailed, PartitionReplied,
    PingsAnswered, PingTasks, ReportSlow, StepLifecycle, TaskUnresponsive, Tick)
from tensorfleet.distributed.transfers import plan_transfers
from tensorfleet.framework.graph import Graph
from tensorfleet.framework.serialization import import_graph_def
from tensorfleet.runtime.executor import prune
from tensorfleet.runtime.threads import DaemonPool
from tensorfleet.transport import limits

logger = logging.getLogger(__name__)

WorkerClientFn = Callable[[str], Any]

HEARTBEAT_SECS = float(os.environ.get("TENSORFLEET_HEARTBEAT_SECS", "2"))
PING_TIMEOUT_SECS = float(os.environ.get("TENSORFLEET_PING_TIMEOUT_SECS", "3"))
ABORT_GRACE_SECS = 2.0
# The deadline of RegisterGraph (remote.CONTROL_TIMEOUT), for log lines.
CONTROL_TIMEOUT_SECS = 60.0
# How long closing a session waits for the tasks to drop its graphs.
CLEANUP_WAIT_SECS = 2.0
# A step that runs this long with every task answering pings is reported (then at
# doubling intervals): it waits for something that may never come.
SLOW_STEP_REPORT_SECS = float(os.environ.get("TENSORFLEET_SLOW_STEP_REPORT_SECS", "10"))


def _as_op_error(exc: BaseException, task: Optional[str]) -> errors.OpError:
    """What a failed RunGraph of ``task`` reports to the client."""
    if getattr(exc, "unreachable", False) and isinstance(exc, errors.UnavailableError):
        # Said the way a failed ping says it: the transport's own words (a stream
        # removed, a connection timed out) do not tell the user what happened.
        return errors.UnavailableError(
            None, None, f"Task {task} stopped responding during the step "
            f"(UnavailableError: {exc.message})", task=task)
    if isinstance(exc, errors.OpError):
        return exc
    return errors.InternalError(None, None, f"{type(exc).__name__}: {exc}", task=task)


def _incarnation_of(handle: Any) -> Optional[str]:
    """The incarnation in a worker's graph handle (``TASK/INCARNATION/graph/N``), or
    None for a handle of another form."""
    if not isinstance(handle, str):
        return None
    parts = handle.rsplit("/", 3)
    return parts[1] if len(parts) == 4 and parts[2] == "graph" else None


class _Step:
    """One running step: its lifecycle (``step_state``), its remote partitions' futures
    and the network call it runs for."""

    __slots__ = ("id", "plan", "futures", "session", "caller", "state", "_lock", "__weakref__")

    def __init__(self, step_id: int, plan: "_StepPlan", master_task: str, timeout_ms: int = 0,
                 limit_name: str = "the session's operation_timeout_in_ms"):
        self.id = step_id
        self.plan = plan
        self.futures: Dict[Any, str] = {}  # remote RunGraph future -> task
        self.caller: Optional[limits.CallScope] = None
        self.session: Optional["MasterSession"] = None
        # operation_timeout_in_ms: past it the master cancels the step everywhere.
        self.state = StepLifecycle(
            step_id, [part[0] for part in plan.parts], master_task, time.monotonic(),
            timeout_secs=timeout_ms / 1000.0 if timeout_ms > 0 else None,
            limit_name=limit_name, heartbeat_secs=HEARTBEAT_SECS,
            slow_report_secs=SLOW_STEP_REPORT_SECS)
        self._lock = threading.Lock()

    @property
    def error(self) -> Optional[errors.OpError]:
        """The error the step failed with (the first one), or None."""
        return self.state.error

    @property
    def deadline(self) -> Optional[float]:
        """When the step is cancelled (``time.monotonic()``), or None."""
        return self.state.deadline

    def handle(self, event: Event) -> List[Action]:
        """Feeds ``event`` to the lifecycle now; the actions to carry out."""
        with self._lock:
            return self.state.handle(event, time.monotonic())

    def bound_by_caller(self) -> None:
        """Ends the step at the deadline of the network call it runs for (and
        ``limits.MAX_STEP_SECS``), if sooner than its own, or when that caller
        hangs up; a step run in-process has no such call."""
        call = limits.current()
        if call is None:
            return
        self.caller = call
        seconds, bound = limits.bound(limits.MAX_STEP_SECS, limits.MAX_STEP_SECS)
        self.state.bound(seconds, "its caller's deadline" if bound == "caller" else
                         "the server's maximum step time")

    def wait_slice(self) -> float:
        """How long to wait before looking at the step again."""
        with self._lock:
            return self.state.next_wakeup(time.monotonic())


class _StepPlan:
    __slots__ = ("parts", "fed_fetches", "fetch_names", "relays")

    def __init__(self, parts: List[Tuple[str, Any, str, List[str], List[str]]],
                 fed_fetches: Dict[str, int], fetch_names: List[str],
                 relays: Dict[str, Dict[str, str]]):
        self.parts = parts  # (task, client, graph handle, feed names, fetch names)
        self.fed_fetches = fed_fetches
        self.fetch_names = fetch_names
        self.relays = relays  # task -> {tensor it returns: key on the master's task}


class MasterSession:
    """One client session: its graph, config and compiled step plans."""

    def __init__(self, handle: str, graph: Graph, config: ConfigProto, master: "MasterService"):
        self.handle = handle
        self.graph = graph
        self.config = config
        self.master = master
        self._plans: Dict[tuple, _StepPlan] = {}
        self._lock = threading.Lock()
        self._tasks_used: set = set()
        # The incarnation of every task this session has registered graphs with. A
        # task that restarted lost the state the session's steps were built on
        # (variables, queues, accumulators): the session must fail there, not go on
        # acting on the new task's fresh state as if nothing had happened.
        self._incarnations: Dict[str, str] = {}
        # The steps running now, for close() to cancel (weak: a step that ended
        # without unregistering, through an unexpected error, is not kept).
        self._running: "weakref.WeakValueDictionary[int, _Step]" = weakref.WeakValueDictionary()

    def extend(self, graph_def: Any) -> None:
        with self._lock:
            import_graph_def(graph_def, graph=self.graph)

    def _plan(self, feeds: Tuple[str, ...], fetches: Tuple[str, ...],
              targets: Tuple[str, ...]) -> _StepPlan:
        key = (feeds, fetches, targets)
        plan = self._plans.get(key)
        if plan is not None:
            return plan
        with self._lock:
            g = self.graph
            try:
                feed_ts = [g.get_tensor_by_name(n) for n in feeds]
                fetch_ts = [g.get_tensor_by_name(n) for n in fetches]
                target_ops = [g.get_operation_by_name(n) for n in targets]
            except (KeyError, ValueError) as e:
                raise errors.InvalidArgumentError(None, None, f"RunStep: {e}") from None
            ops = prune(fetch_ts, target_ops, set(feed_ts))
            placement = place(ops, self.master.cluster, self.master.task,
                              self.config.allow_soft_placement, self.config.device_filters)
            if self.config.log_device_placement or get_log_device_placement():
                for line in log_placement(placement):
                    sys.stderr.write(line + "\n")
            parts = partition(ops, placement, feed_ts, fetch_ts, target_ops)
            plan_transfers(parts, self.master.task)
            # Registered with every task at once; a task that froze or was cut off
            # fails the registration within seconds (as it would fail a step) instead
            # of holding it for the whole control-call deadline.
            futures: Dict[Any, str] = {}
            for task, p in parts.items():
                plain = p.to_plain()
                plain["cluster"] = self.master.cluster.to_plain()
                self._tasks_used.add(task)
                futures[self.master.pool.submit(self.master.worker(task).register_graph,
                                                self.handle, plain)] = task
            handles = self._await_registration(futures)
            self._check_incarnations(handles)
            compiled = [(task, self.master.worker(task), handles[task], list(p.feeds),
                         list(p.fetches)) for task, p in parts.items()]
            fed = set(feeds)
            plan = _StepPlan(compiled, {n: feeds.index(n) for n in fetches if n in fed},
                             list(fetches), {t: p.relays for t, p in parts.items() if p.relays})
            self._plans[key] = plan
            return plan

    def _check_incarnations(self, handles: Dict[str, str]) -> None:
        """Pins each task's incarnation at the session's first registration with it;
        raises ``AbortedError`` naming a task that restarted since."""
        for task, handle in handles.items():
            incarnation = _incarnation_of(handle)
            if incarnation is None:
                continue
            known = self._incarnations.setdefault(task, incarnation)
            if known != incarnation:
                raise errors.AbortedError(
                    None, None, f"Task {task} restarted since this session began (its "
                    f"incarnation changed); the state this session used there is gone. "
                    f"Create a new session.", task=task)

    def run(self, feed_names: Sequence[str], feed_values: Sequence[Any],
            fetch_names: Sequence[str], target_names: Sequence[str],
            timeout_ms: int = 0, park_min_bytes: int = 0) -> List[Any]:
        """Runs one step; ``timeout_ms`` (``RunOptions.timeout_in_ms``), when positive,
        replaces the session's ``operation_timeout_in_ms`` for it. With
        ``park_min_bytes``, a fetch of at least that size that another task computes
        stays parked there and is returned as a ``direct_fetch.ParkedTensor``, for
        the client to pull from that task (``direct_fetch``)."""
        if len(feed_names) != len(feed_values):
            raise errors.InvalidArgumentError(None, None, "RunStep: feed names and values differ "
                                              "in number")
        plan = self._plan(tuple(feed_names), tuple(fetch_names), tuple(target_names))
        feeds = dict(zip(feed_names, feed_values))
        if timeout_ms > 0:
            step = _Step(random.getrandbits(62), plan, self.master.task, timeout_ms,
                         "RunOptions.timeout_in_ms")
        else:
            step = _Step(random.getrandbits(62), plan, self.master.task,
                         int(getattr(self.config, "operation_timeout_in_ms", 0) or 0))
        step.bound_by_caller()
        self._running[step.id] = step
        results: Dict[str, Any] = {}
        local = None
        for part in plan.parts:
            task, client, handle, fnames, _ = part
            if task == self.master.task and local is None:
                local = part
                continue
            part_feeds = {n: feeds[n] for n in fnames}
            send = getattr(client, "run_graph_async", None)
            park = None
            if park_min_bytes and send is not None:
                relayed = plan.relays.get(task, {})
                names = [n for n in part[4] if n in fetch_names and n not in relayed]
                park = direct_fetch.park_request(names, park_min_bytes) if names else None
            # Sent from this thread when the client can (no pool thread wakes up
            # just to send it); otherwise on the master's pool.
            fut = send(handle, step.id, part_feeds, park) if send is not None else \
                self.master.pool.submit(client.run_graph, handle, step.id, part_feeds)
            step.futures[fut] = task  # before the callbacks: a done future runs them at once
            if task in plan.relays:
                fut.add_done_callback(self._relay(plan.relays[task], step.id))
            fut.add_done_callback(self._on_remote_done(step))
        if local is not None:
            # The master's own partition runs on this thread: no hand-off to a pool
            # thread and back. While it runs, the master's watchdog pings the other
            # tasks, as ``_collect`` does while it waits.
            task, client, handle, fnames, _ = local
            watched = bool(step.futures) or step.deadline is not None
            if watched:
                step.session = self
                self.master.watch(step)
            try:
                results.update(client.run_graph(handle, step.id, {n: feeds[n] for n in fnames}))
            except errors.OpError as e:
                # As raised: it already names the task it is about.
                self.drive(step, PartitionFailed(task, e))
            except Exception as e:  # noqa: BLE001 - the step fails; the others are aborted
                self.drive(step, PartitionFailed(task, errors.InternalError(
                    None, None, f"{type(e).__name__}: {e}", task=self.master.task)))
            else:
                self.drive(step, PartitionReplied(task))
            finally:
                if watched:
                    self.master.unwatch(step)
        try:
            self._collect(step, results)
        finally:
            # Each future's callback refers to the step, which refers to the future:
            # without this the step's tensors would wait for the garbage collector.
            step.futures.clear()
            self._running.pop(step.id, None)
        out = []
        for n in plan.fetch_names:
            if n in plan.fed_fetches:
                out.append(feed_values[plan.fed_fetches[n]])
            else:
                out.append(results[n])
        return out

    def _on_remote_done(self, step: "_Step") -> Callable[[Any], None]:
        def done(fut: Any) -> None:
            task = step.futures.get(fut, "")
            exc = fut.exception()
            self.drive(step, PartitionReplied(task) if exc is None
                       else PartitionFailed(task, _as_op_error(exc, task)))
        return done

    def drive(self, step: "_Step", event: Event) -> None:
        """Feeds ``event`` to the step's lifecycle and carries out the actions it returns.

        ``FailStep`` and ``Complete`` need nothing here: the thread collecting the
        step sees them in ``step.state``.
        """
        for action in step.handle(event):
            if isinstance(action, AbortTasks):
                # This task's partition first: it may be waiting for a tensor that
                # will never come. The others are told in parallel, not awaited.
                self.master.abort_local(step)
                try:
                    self._abort(step.plan, step.id, action.error)
                except RuntimeError:
                    pass  # the server stopped, which ended the step's waits already
            elif isinstance(action, PingTasks):
                err = self._find_unresponsive(set(action.tasks))
                self.drive(step, PingsAnswered() if err is None
                           else TaskUnresponsive(err.task or "", err))
            elif isinstance(action, ReportSlow):
                # Every task answers, yet the step does not finish: it is blocked in a
                # kernel by design (a queue, synchronous replicas waiting for a peer).
                # Say so, so that a wait for a task that died is never silent.
                logger.warning(
                    "Step %d has been running for %.0f s; still waiting for %s. Every "
                    "task answers pings, so the step is blocked in a kernel: a queue, "
                    "or SyncReplicasOptimizer waiting for the gradients or tokens of "
                    "replicas that are not running.", step.id, action.waited,
                    ", ".join(sorted(action.tasks)))

    def tick(self, step: "_Step") -> None:
        """Looks at a running step: its caller, its deadline, and (every
        ``HEARTBEAT_SECS``) whether the tasks it waits for still answer pings."""
        if step.error is None and step.caller is not None and not step.caller.alive():
            self.drive(step, CallerGone())
        self.drive(step, Tick())

    def _collect(self, step: "_Step", results: Dict[str, Any]) -> None:
        """Waits for every remote partition of a step. While waiting it pings the
        remote tasks now and then, so a task that died or froze fails the step
        within seconds, named, instead of hanging it; the first failure aborts the
        step everywhere."""
        pending = set(step.futures)
        while pending and step.error is None:
            done, pending = wait(pending, timeout=step.wait_slice(),
                                 return_when=FIRST_EXCEPTION)
            for fut in done:
                exc = fut.exception()
                if exc is None:
                    results.update(fut.result())
                else:
                    # Also done by the future's callback, which may not have run yet.
                    task = step.futures[fut]
                    self.drive(step, PartitionFailed(task, _as_op_error(exc, task)))
            if step.error is None and pending:
                self.tick(step)
        if step.error is not None:
            first = step.error
            # Healthy tasks wind down quickly; a task that stopped answering will not.
            wait([f for f in pending if step.futures[f] != first.task], timeout=ABORT_GRACE_SECS)
            raise first

    def _await_registration(self, futures: Dict[Any, str]) -> Dict[str, str]:
        """Graph handles by task, pinging the tasks that take long to answer.

        RegisterGraph waits for a task that is not up yet (tasks start in any order,
        and a restarted parameter server takes a moment); a task that is up but does
        not answer (frozen, or cut off by the network) fails the registration within
        seconds, as it would fail a step.
        """
        pending = set(futures)
        handles: Dict[str, str] = {}
        reported: set = set()
        while pending:
            done, pending = wait(pending, timeout=HEARTBEAT_SECS, return_when=FIRST_EXCEPTION)
            for fut in done:
                exc = fut.exception()
                task = futures[fut]
                if isinstance(exc, errors.DeadlineExceededError):
                    # Not up within the control deadline: unreachable, which a
                    # MonitoredSession answers by trying again.
                    raise errors.UnavailableError(
                        None, None, f"Task {task} could not be reached to register a graph "
                        f"with it ({exc.message})", task=task)
                if isinstance(exc, errors.OpError):
                    raise exc
                if exc is not None:
                    raise errors.InternalError(None, None, f"{type(exc).__name__}: {exc}",
                                               task=task)
                handles[task] = fut.result()
            if pending:
                waiting = {futures[f] for f in pending}
                err = self._find_unresponsive(waiting, "while a graph was registered with it",
                                              gone_is_failure=False)
                if err is not None:
                    raise err
                for task in sorted(waiting - reported - {self.master.task}):
                    reported.add(task)
                    logger.info("Registering a graph is waiting for %s to come up (at most "
                                "%.0f s).", task, CONTROL_TIMEOUT_SECS)
        return handles

    def _find_unresponsive(self, tasks: set, when: str = "during the step",
                           gone_is_failure: bool = True) -> Optional[errors.OpError]:
        """An UnavailableError naming the first of ``tasks`` that does not answer a ping.

        A ping that times out means the task is there but does not answer (frozen,
        or cut off by the network). A refused connection means it is gone: a failure
        during a step, but while registering a graph only "not up yet"
        (``gone_is_failure=False``).
        """
        remote = [t for t in tasks if t != self.master.task]
        pings = {t: self.master.pool.submit(self.master.worker(t).ping, PING_TIMEOUT_SECS)
                 for t in remote}
        for t, fut in pings.items():
            try:
                fut.result()
            except errors.OpError as e:
                if not gone_is_failure and not isinstance(e, errors.DeadlineExceededError):
                    continue
                return errors.UnavailableError(
                    None, None, f"Task {t} stopped responding {when} "
                    f"({type(e).__name__}: {e.message})", task=t)
        return None

    def _relay(self, relays: Dict[str, str], step_id: int) -> Callable[[Any], None]:
        local = self.master.worker(self.master.task).rendezvous

        def deliver(fut: Any) -> None:
            if fut.exception() is None:
                out = fut.result()
                for name, key in relays.items():
                    local.send(step_id, key, out[name])
        return deliver

    def _abort(self, plan: _StepPlan, step_id: int, err: errors.OpError) -> None:
        msg = f"Step aborted because {err.task or 'a task'} failed: {err.message}"

        def abort(task: str, client: Any) -> None:
            try:
                client.abort_step(step_id, err.error_code, msg)
            except errors.OpError as e:
                logger.info("Could not abort step %d on %s: %s", step_id, task, e)
        # Aborts go out in parallel and are not awaited: a dead task must not delay
        # the error reaching the client.
        for task, client, _, _, _ in plan.parts:
            self.master.pool.submit(abort, task, client)

    def close(self) -> None:
        # As in TensorFlow, closing a session cancels its running steps (a queue
        # runner's, say) on every task, so the threads waiting in them end.
        for step in list(self._running.values()):
            self.drive(step, AbortRequested(errors.CancelledError(
                None, None, "The session was closed while the step was running",
                task=self.master.task)))

        def cleanup(task: str) -> None:
            try:
                self.master.worker(task).cleanup_session(self.handle)
            except errors.OpError as e:
                logger.info("cleanup of session %s on %s failed: %s", self.handle, task, e)
        # In parallel, and not awaited for long: closing the session of a step that
        # failed because a task froze must not wait for that task's deadline.
        futures = []
        for task in list(self._tasks_used):
            try:
                futures.append(self.master.pool.submit(cleanup, task))
            except RuntimeError:  # the server stopped: its pool is gone
                cleanup(task)
        wait(futures, timeout=CLEANUP_WAIT_SECS)
        self._plans.clear()


class MasterService:
    """The master of one task: creates sessions and drives their steps."""

    def __init__(self, task: str, cluster: ClusterSpec, worker_client_fn: WorkerClientFn):
        self.task = task
        self.cluster = cluster
        self._worker_fn = worker_client_fn
        self._sessions: Dict[str, MasterSession] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self.pool = DaemonPool(32, "tf-master")
        # Steps whose own partition runs on the caller's thread, checked by the watchdog.
        self._watched: Dict[int, _Step] = {}
        self._watch_lock = threading.Lock()
        self._watchdog: Optional[threading.Thread] = None
        self._stopping = threading.Event()
        self._watch_wake = threading.Event()

    def worker(self, task: str) -> Any:
        return self._worker_fn(task)

    def create_session(self, graph_def: Any, config: Any = None) -> str:
        graph = import_graph_def(graph_def) if graph_def else Graph()
        handle = f"{self.task}/session/{next(self._ids)}/{random.getrandbits(32):08x}"
        sess = MasterSession(handle, graph, ConfigProto.from_plain(config), self)
        with self._lock:
            self._sessions[handle] = sess
        return handle

    def session(self, handle: str) -> MasterSession:
        s = self._sessions.get(handle)
        if s is None:
            raise errors.AbortedError(None, None, f"Session {handle!r} is not found on "
                                      f"{self.task}; the master may have restarted",
                                      task=self.task)
        return s

    def extend_session(self, handle: str, graph_def: Any) -> None:
        self.session(handle).extend(graph_def)

    def run_step(self, handle: str, feed_names: Sequence[str], feed_values: Sequence[Any],
                 fetch_names: Sequence[str], target_names: Sequence[str],
                 timeout_ms: int = 0, park_min_bytes: int = 0) -> List[Any]:
        return self.session(handle).run(feed_names, feed_values, fetch_names, target_names,
                                        timeout_ms, park_min_bytes)

    def close_session(self, handle: str) -> None:
        with self._lock:
            s = self._sessions.pop(handle, None)
        if s is not None:
            s.close()

    def reset(self, containers: Optional[List[str]]) -> None:
        """Clears ``containers`` on every task of the cluster (``Session.reset``)."""
        for task in self.cluster.all_tasks():
            self.worker(task).reset(containers)

    def watch(self, step: _Step) -> None:
        """Has the watchdog ping ``step``'s other tasks, and cancel it at its deadline,
        while this task's partition runs."""
        with self._watch_lock:
            self._watched[step.id] = step
            if self._watchdog is None:
                self._watchdog = threading.Thread(target=self._watch_loop, daemon=True,
                                                  name="tf-master-watchdog")
                self._watchdog.start()
        if step.deadline is not None and step.deadline - time.monotonic() < HEARTBEAT_SECS:
            self._watch_wake.set()  # the watchdog may sleep past this step's deadline

    def unwatch(self, step: _Step) -> None:
        with self._watch_lock:
            self._watched.pop(step.id, None)

    def abort_local(self, step: _Step) -> None:
        """Ends this task's partition of a failed step: it may be waiting for a tensor
        that will never come. The other tasks are told when the step is collected."""
        err = step.error
        if err is not None:
            self.worker(self.task).abort_step(
                step.id, err.error_code,
                f"Step aborted because {err.task or 'a task'} failed: {err.message}")

    def _watch_loop(self) -> None:
        pause = HEARTBEAT_SECS / 2
        while True:
            self._watch_wake.wait(pause)
            self._watch_wake.clear()
            if self._stopping.is_set():
                return
            with self._watch_lock:
                steps = list(self._watched.values())
            pause = min([HEARTBEAT_SECS / 2] + [s.wait_slice() for s in steps
                                                 if s.deadline is not None and s.error is None])
            for step in steps:
                if step.error is not None or step.session is None:
                    continue
                try:
                    step.session.tick(step)
                except Exception:  # noqa: BLE001 - the watchdog must outlive any one step
                    logger.exception("checking step %d failed", step.id)

    def shutdown(self) -> None:
        self._stopping.set()
        self._watch_wake.set()
        self.pool.shutdown(wait=False)


__all__ = ["MasterService", "MasterSession"]
