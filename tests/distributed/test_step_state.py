"""The step lifecycle without I/O: timeouts, dead tasks, aborts and late replies, driven
directly with a fake clock (no sockets, no threads, no sleeping)."""

from __future__ import annotations

import time

import pytest

from tensorfleet import errors
from tensorfleet.distributed import step_state as ss

MASTER = "/job:worker/task:0"
PS = "/job:ps/task:0"
W1 = "/job:worker/task:1"


def _step(tasks=(MASTER, PS, W1), timeout=None, heartbeat=2.0, slow=10.0, now=100.0):
    return ss.StepLifecycle(7, tasks, MASTER, now, timeout_secs=timeout,
                            heartbeat_secs=heartbeat, slow_report_secs=slow)


def _unavailable(task: str) -> errors.UnavailableError:
    return errors.UnavailableError(None, None, f"Task {task} stopped responding", task=task)


def test_completes_when_every_partition_replied():
    st = _step()
    assert st.handle(ss.PartitionReplied(PS), 100.1) == []
    assert st.handle(ss.PartitionReplied(MASTER), 100.2) == []
    assert st.handle(ss.PartitionReplied(W1), 100.3) == [ss.Complete()]
    assert st.status == ss.COMPLETED and st.done and st.error is None


def test_a_failed_partition_aborts_every_task_and_fails_the_step():
    st = _step()
    err = errors.InvalidArgumentError(None, None, "bad shape", task=PS)
    actions = st.handle(ss.PartitionFailed(PS, err), 100.5)
    assert actions == [ss.AbortTasks(err), ss.FailStep(err)]
    assert st.status == ss.FAILED and st.error is err


def test_the_first_failure_wins_and_late_events_change_nothing():
    st = _step()
    first = errors.InvalidArgumentError(None, None, "first", task=PS)
    st.handle(ss.PartitionFailed(PS, first), 100.5)
    # The aborted partitions fail in their turn; replies that were in flight arrive.
    aborted = errors.AbortedError(None, None, "Step aborted because ...", task=W1)
    assert st.handle(ss.PartitionFailed(W1, aborted), 100.6) == []
    assert st.handle(ss.PartitionReplied(MASTER), 100.7) == []
    assert st.handle(ss.Tick(), 500.0) == []
    assert st.handle(ss.AbortRequested(errors.CancelledError(None, None, "closed")), 501) == []
    assert st.error is first


def test_late_failure_after_completion_is_ignored():
    st = _step(tasks=(PS,))
    assert st.handle(ss.PartitionReplied(PS), 100.1) == [ss.Complete()]
    assert st.handle(ss.PartitionFailed(PS, _unavailable(PS)), 100.2) == []
    assert st.status == ss.COMPLETED and st.error is None


def test_deadline_fails_the_step_with_deadline_exceeded():
    st = _step(timeout=0.25)
    assert st.handle(ss.Tick(), 100.2) == []
    assert st.next_wakeup(100.2) == pytest.approx(0.05)
    actions = st.handle(ss.Tick(), 100.25)
    assert [type(a) for a in actions] == [ss.AbortTasks, ss.FailStep]
    err = actions[1].error
    assert isinstance(err, errors.DeadlineExceededError)
    assert "250 ms" in err.message and "operation_timeout_in_ms" in err.message
    assert err.task == MASTER


def test_bound_takes_the_sooner_deadline_and_names_it():
    st = _step(timeout=10.0)
    st.bound(3.0, "its caller's deadline")
    assert st.deadline == pytest.approx(103.0)
    st.bound(5.0, "the server's maximum step time")  # later: ignored
    actions = st.handle(ss.Tick(), 103.0)
    assert "its caller's deadline (3000 ms)" in actions[-1].error.message


def test_heartbeat_pings_the_remote_tasks_waited_for():
    st = _step()
    assert st.handle(ss.Tick(), 101.0) == []  # not due yet
    actions = st.handle(ss.Tick(), 102.0)
    assert actions == [ss.PingTasks(frozenset({PS, W1}))]  # never the master's own task
    assert st.handle(ss.Tick(), 102.5) == []  # one ping at a time
    assert st.handle(ss.PingsAnswered(), 102.6) == []
    st.handle(ss.PartitionReplied(PS), 103.0)
    assert st.handle(ss.Tick(), 104.6) == [ss.PingTasks(frozenset({W1}))]


def test_a_dead_task_found_by_a_ping_fails_the_step():
    st = _step()
    st.handle(ss.Tick(), 102.0)
    err = _unavailable(W1)
    assert st.handle(ss.TaskUnresponsive(W1, err), 105.0) == [ss.AbortTasks(err),
                                                                ss.FailStep(err)]
    assert st.error is err


def test_a_blocked_step_is_reported_at_doubling_intervals():
    st = _step(tasks=(MASTER, PS), slow=10.0)
    reports = []
    t = 100.0
    while t < 170.0:
        t += 1.0
        for action in st.handle(ss.Tick(), t):
            if isinstance(action, ss.PingTasks):
                reports += st.handle(ss.PingsAnswered(), t)
    assert [round(r.waited) for r in reports] == [10, 20, 40]
    assert all(r.tasks == frozenset({PS}) for r in reports)


def test_only_the_local_partition_left_reports_without_pinging():
    st = _step(tasks=(MASTER,), slow=4.0)
    assert st.handle(ss.Tick(), 102.0) == []
    actions = st.handle(ss.Tick(), 104.0)
    assert actions == [ss.ReportSlow(4.0, frozenset({MASTER}))]


def test_caller_gone_and_abort_requested_cancel_the_step():
    st = _step()
    actions = st.handle(ss.CallerGone(), 100.1)
    assert isinstance(actions[-1].error, errors.CancelledError)
    assert "caller of the step went away" in actions[-1].error.message
    st2 = _step()
    closed = errors.CancelledError(None, None, "The session was closed", task=MASTER)
    assert st2.handle(ss.AbortRequested(closed), 100.1) == [ss.AbortTasks(closed),
                                                              ss.FailStep(closed)]


def test_next_wakeup_follows_the_heartbeat_and_the_deadline():
    st = _step(heartbeat=2.0)
    assert st.next_wakeup(100.0) == pytest.approx(2.0)
    assert st.next_wakeup(101.5) == pytest.approx(0.5)
    assert st.next_wakeup(109.0) == 0.0
    assert _step(timeout=0.5).next_wakeup(100.0) == pytest.approx(0.5)


def test_a_step_without_partitions_is_complete_and_bad_input_is_refused():
    assert _step(tasks=()).done
    with pytest.raises(TypeError, match="not a step event"):
        _step().handle("tick", 100.0)
    with pytest.raises(ValueError, match="heartbeat"):
        _step(heartbeat=0)


def test_many_steps_run_through_in_milliseconds():
    start = time.perf_counter()
    for i in range(2000):
        st = _step()
        st.handle(ss.Tick(), 102.0)
        st.handle(ss.PingsAnswered(), 102.1)
        st.handle(ss.PartitionReplied(PS), 102.2)
        st.handle(ss.PartitionFailed(W1, _unavailable(W1)), 102.3)
        st.handle(ss.PartitionReplied(MASTER), 102.4)
    assert time.perf_counter() - start < 2.0
