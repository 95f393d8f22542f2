"""Pieces of a kernel's work on the calling thread and the kernel helpers: every task
runs once, two tasks run at the same time, a task's exception reaches the caller, and
spans cover a range exactly."""

from __future__ import annotations

import threading

import pytest

from tensorfleet.kernels.numpy import parallel_tasks
from tensorfleet.kernels.onednn import threads


@pytest.fixture
def two_threads(monkeypatch):
    monkeypatch.setattr(threads, "limit", lambda: 2)
    assert parallel_tasks.thread_count() == 2


def test_every_task_runs_once_and_two_run_at_once(two_threads):
    # Each of the first two tasks waits for the other: they can only both pass the
    # barrier when they run on two threads at the same time.
    barrier = threading.Barrier(2, timeout=20)
    seen = []
    lock = threading.Lock()

    def task(i):
        if i < 2:
            barrier.wait()
        with lock:
            seen.append((i, threading.get_ident()))

    parallel_tasks.run([lambda i=i: task(i) for i in range(7)])
    assert sorted(i for i, _ in seen) == list(range(7))
    assert len({ident for i, ident in seen if i < 2}) == 2


def test_a_task_error_reaches_the_caller(two_threads):
    ran = []

    def bad():
        raise ValueError("task failed")

    with pytest.raises(ValueError, match="task failed"):
        parallel_tasks.run([bad, lambda: ran.append(1)])
    with pytest.raises(ValueError, match="task failed"):
        parallel_tasks.run([lambda: ran.append(1), bad])


def test_one_thread_runs_the_tasks_in_order(monkeypatch):
    monkeypatch.setattr(threads, "limit", lambda: 1)
    order = []
    parallel_tasks.run([lambda i=i: order.append((i, threading.get_ident()))
                        for i in range(4)])
    assert order == [(i, threading.get_ident()) for i in range(4)]


@pytest.mark.parametrize("size,pieces", [(10, 3), (128, 4), (3, 8), (1, 1), (7, 7)])
def test_spans_cover_the_range(size, pieces):
    spans = parallel_tasks.spans(size, pieces)
    assert len(spans) == min(pieces, size)
    assert [i for s in spans for i in s] == list(range(size))
    assert max(map(len, spans)) - min(map(len, spans)) <= 1
