"""The lifecycle of one distributed step, as a state machine without I/O.

A step runs one partition on each of its tasks. Whether it completes or fails,
and when, depends only on what happens to those partitions and on time:

    running --(every partition replied)---------------------------> completed
    running --(a partition failed | a ping found a task gone |
               the deadline passed | the caller hung up |
               the session closed)--------------------------------> failed
    completed / failed --(anything)----------------------------------> (ignored)

``StepLifecycle.handle(event, now)`` takes one event and the time, updates the
state and returns the actions the master must carry out (abort the step on its
tasks, ping tasks, log a slow step). It never sleeps, sends or reads a clock, so
tests drive a step through timeouts, dead tasks, aborts and late replies in
microseconds; ``master`` feeds it events from futures, pings and its watchdog
and performs its actions.

The first failure wins: a step that failed reports that error, and what arrives
afterwards (the aborted partitions' own errors, replies of partitions that had
already finished) changes nothing.
"""

from __future__ import annotations

import dataclasses
from typing import FrozenSet, Iterable, List, Optional, Set, Union

from tensorfleet import errors

# How often the tasks a step waits for are pinged.
DEFAULT_HEARTBEAT_SECS = 2.0
# A step blocked this long with every task answering is reported (then at doubling intervals).
DEFAULT_SLOW_REPORT_SECS = 10.0


# ---------------------------------------------------------------------------- events
@dataclasses.dataclass(frozen=True)
class PartitionReplied:
    """The partition of ``task`` finished successfully."""

    task: str


@dataclasses.dataclass(frozen=True)
class PartitionFailed:
    """The partition of ``task`` failed with ``error``."""

    task: str
    error: errors.OpError


@dataclasses.dataclass(frozen=True)
class Tick:
    """Time passed (the master looks at the step at ``next_wakeup``)."""


@dataclasses.dataclass(frozen=True)
class PingsAnswered:
    """Every task of the last ``PingTasks`` answered."""


@dataclasses.dataclass(frozen=True)
class TaskUnresponsive:
    """A ping found ``task`` gone or frozen; ``error`` says so."""

    task: str
    error: errors.OpError


@dataclasses.dataclass(frozen=True)
class CallerGone:
    """The network call the step runs for was abandoned by its caller."""


@dataclasses.dataclass(frozen=True)
class AbortRequested:
    """The step must end with ``error`` (its session closed, say)."""

    error: errors.OpError


Event = Union[PartitionReplied, PartitionFailed, Tick, PingsAnswered, TaskUnresponsive,
              CallerGone, AbortRequested]


# --------------------------------------------------------------------------- actions
@dataclasses.dataclass(frozen=True)
class AbortTasks:
    """Tell every task of the step (this one included) to abort it with ``error``."""

    error: errors.OpError


@dataclasses.dataclass(frozen=True)
class FailStep:
    """The step is over: raise ``error`` to its caller."""

    error: errors.OpError


@dataclasses.dataclass(frozen=True)
class Complete:
    """The step is over: every partition replied."""


@dataclasses.dataclass(frozen=True)
class PingTasks:
    """Ping ``tasks``; answer with ``PingsAnswered`` or ``TaskUnresponsive``."""

    tasks: FrozenSet[str]


@dataclasses.dataclass(frozen=True)
class ReportSlow:
    """The step has run ``waited`` seconds with every task answering, still waiting for
    ``tasks``: it is blocked in a kernel (a queue, synchronous replicas)."""

    waited: float
    tasks: FrozenSet[str]


Action = Union[AbortTasks, FailStep, Complete, PingTasks, ReportSlow]

RUNNING, COMPLETED, FAILED = "running", "completed", "failed"


class StepLifecycle:
    """One step's state; see the module docstring.

    Args:
      step_id: the step's id (for messages).
      tasks: every task that runs a partition of the step.
      master_task: the task of the master driving it (named in the errors it
        makes, and never pinged).
      now: the time the step starts (any monotonic clock; the same clock as the
        ``now`` given to ``handle``).
      timeout_secs: the step's deadline, relative to ``now`` (None: none).
      limit_name: what set the deadline, for the error message.
      heartbeat_secs: how often the tasks waited for are pinged.
      slow_report_secs: when a step blocked with every task answering is reported.
    """

    def __init__(self, step_id: int, tasks: Iterable[str], master_task: str, now: float, *,
                 timeout_secs: Optional[float] = None,
                 limit_name: str = "the session's operation_timeout_in_ms",
                 heartbeat_secs: float = DEFAULT_HEARTBEAT_SECS,
                 slow_report_secs: float = DEFAULT_SLOW_REPORT_SECS):
        if heartbeat_secs <= 0:
            raise ValueError(f"heartbeat_secs must be positive, got {heartbeat_secs}")
        self.step_id = step_id
        self.master_task = master_task
        self.start = now
        self.deadline: Optional[float] = now + timeout_secs if timeout_secs is not None \
            and timeout_secs > 0 else None
        self.limit_name = limit_name
        self.heartbeat_secs = heartbeat_secs
        self.pending: Set[str] = set(tasks)
        self.status = RUNNING if self.pending else COMPLETED
        self.error: Optional[errors.OpError] = None
        self.last_ping = now
        self.next_report = slow_report_secs
        self._ping_in_flight = False

    # ------------------------------------------------------------------ queries
    @property
    def done(self) -> bool:
        """Whether the step completed or failed."""
        return self.status != RUNNING

    def next_wakeup(self, now: float) -> float:
        """How long (from ``now``) until the step should get a ``Tick``."""
        due = self.last_ping + self.heartbeat_secs
        if self.deadline is not None:
            due = min(due, self.deadline)
        return max(0.0, min(self.heartbeat_secs, due - now))

    def bound(self, seconds: float, limit_name: str) -> None:
        """Moves the deadline to ``seconds`` after the start if that is sooner."""
        if self.deadline is None or self.start + seconds < self.deadline:
            self.deadline = self.start + seconds
            self.limit_name = limit_name

    # ------------------------------------------------------------------ transitions
    def handle(self, event: Event, now: float) -> List[Action]:
        """Applies ``event`` at time ``now``; returns the actions to carry out, in order.

        Raises:
          TypeError: ``event`` is not one of this module's events.
        """
        if isinstance(event, PartitionReplied):
            return self._replied(event.task)
        if isinstance(event, PartitionFailed):
            return self._fail(event.error)
        if isinstance(event, TaskUnresponsive):
            self._ping_in_flight = False
            self.last_ping = now
            return self._fail(event.error)
        if isinstance(event, AbortRequested):
            return self._fail(event.error)
        if isinstance(event, CallerGone):
            return self._fail(errors.CancelledError(
                None, None, "The caller of the step went away; the step was cancelled on "
                "every task", task=self.master_task))
        if isinstance(event, Tick):
            return self._tick(now)
        if isinstance(event, PingsAnswered):
            return self._pings_answered(now)
        raise TypeError(f"not a step event: {event!r}")

    def _replied(self, task: str) -> List[Action]:
        if self.done:
            return []  # a late reply: the step already failed (or it is a duplicate)
        self.pending.discard(task)
        if self.pending:
            return []
        self.status = COMPLETED
        return [Complete()]

    def _fail(self, error: errors.OpError) -> List[Action]:
        if self.done:
            return []  # the first failure (or the completion) stands
        self.status = FAILED
        self.error = error
        return [AbortTasks(error), FailStep(error)]

    def _tick(self, now: float) -> List[Action]:
        if self.done:
            return []
        if self.deadline is not None and now >= self.deadline:
            ms = round((self.deadline - self.start) * 1000)
            return self._fail(errors.DeadlineExceededError(
                None, None, f"The step did not finish within {self.limit_name} ({ms} ms) "
                "and was cancelled on every task", task=self.master_task))
        if self._ping_in_flight or now - self.last_ping < self.heartbeat_secs:
            return []
        remote = frozenset(self.pending - {self.master_task})
        if not remote:
            return self._pings_answered(now)
        self._ping_in_flight = True
        return [PingTasks(remote)]

    def _pings_answered(self, now: float) -> List[Action]:
        self._ping_in_flight = False
        self.last_ping = now
        if self.done:
            return []
        waited = now - self.start
        if waited < self.next_report:
            return []
        self.next_report = min(waited * 2, waited + 60.0)
        # As the pings: the other tasks waited for, or this one when only its own is left.
        remote = self.pending - {self.master_task}
        return [ReportSlow(waited, frozenset(remote or {self.master_task}))]


__all__ = [
    "AbortRequested", "AbortTasks", "Action", "CallerGone", "Complete", "Event", "FailStep",
    "PartitionFailed", "PartitionReplied", "PingTasks", "PingsAnswered", "ReportSlow",
    "StepLifecycle", "TaskUnresponsive", "Tick", "RUNNING", "COMPLETED", "FAILED",
]
