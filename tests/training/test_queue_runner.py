"""Coordinator and QueueRunner: threads that fill queues and stop together."""

import threading
import time

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.training.coordinator import Coordinator, LooperThread
from tensorfleet.training.queue_runner import (QueueRunner, add_queue_runner,
                                               start_queue_runners)


def test_queue_runner_fills_queue_and_stops_cleanly():
    counter = tf.Variable(0)
    q = tf.FIFOQueue(4, tf.int32)
    enq = q.enqueue(tf.assign_add(counter, 1))
    deq = q.dequeue()
    qr = QueueRunner(q, [enq])
    assert qr.name == q.name and qr.enqueue_ops == [enq]
    coord = Coordinator()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        threads = qr.create_threads(sess, coord=coord, start=True)
        assert len(threads) == 2  # the enqueue thread and the one that cancels on stop
        assert qr.create_threads(sess, coord=coord) == []  # already running
        got = [sess.run(deq) for _ in range(10)]
        assert got == list(range(1, 11))
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5)
        assert not any(t.is_alive() for t in threads)
        assert sess.run(q.is_closed())
    assert qr.exceptions_raised == []


def test_pipeline_ends_when_the_source_queue_runs_dry():
    source = tf.FIFOQueue(10, tf.float32, name="source")
    fill = source.enqueue_many([[1.0, 2.0, 3.0, 4.0, 5.0]])
    dest = tf.FIFOQueue(2, tf.float32, name="dest")
    add_queue_runner(QueueRunner(dest, [dest.enqueue(source.dequeue() * 10.0)] * 2))
    out = dest.dequeue()
    coord = Coordinator()
    got = []
    with tf.Session() as sess:
        sess.run(fill)
        sess.run(source.close())
        threads = start_queue_runners(sess, coord=coord)
        assert len(threads) == 3
        try:
            while not coord.should_stop():
                got.append(sess.run(out))
        except tf.errors.OutOfRangeError:
            pass  # the runner closed dest once the source was exhausted
        finally:
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=5)
    assert sorted(got) == [10.0, 20.0, 30.0, 40.0, 50.0]


def test_runner_without_coordinator_ends_when_queue_is_closed():
    q = tf.FIFOQueue(2, tf.int32)
    qr = QueueRunner(q, [q.enqueue(1), q.enqueue(2)])
    with tf.Session() as sess:
        threads = qr.create_threads(sess, start=True)
        assert len(threads) == 2
        deadline = time.monotonic() + 5
        while sess.run(q.size()) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        sess.run(q.close(cancel_pending_enqueues=True))
        for t in threads:
            t.join(5)
        assert not any(t.is_alive() for t in threads)
    assert qr.exceptions_raised == []


def test_runner_error_reaches_the_coordinator():
    q = tf.FIFOQueue(2, tf.float32)
    x = tf.placeholder(tf.float32, [])
    qr = QueueRunner(q, [q.enqueue(x)])  # x is never fed: every run fails
    coord = Coordinator()
    with tf.Session() as sess:
        threads = qr.create_threads(sess, coord=coord, start=True)
        assert coord.wait_for_stop(5)
        with pytest.raises(tf.errors.InvalidArgumentError):
            coord.join(threads, stop_grace_period_secs=5)
    assert not any(t.is_alive() for t in threads)


def test_start_queue_runners_needs_a_session():
    with pytest.raises(ValueError, match="default session"):
        start_queue_runners()
    with pytest.raises(ValueError, match="enqueue op"):
        QueueRunner(tf.FIFOQueue(1, tf.int32), [])


def test_coordinator_join_reraises_the_first_thread_exception():
    coord = Coordinator()

    def failing():
        with coord.stop_on_exception():
            raise ValueError("boom in thread")

    def waiting():
        while not coord.should_stop():
            coord.wait_for_stop(0.01)

    threads = [threading.Thread(target=waiting) for _ in range(2)]
    threads.append(threading.Thread(target=failing))
    for t in threads:
        t.start()
    with pytest.raises(ValueError, match="boom in thread"):
        coord.join(threads, stop_grace_period_secs=5)
    assert not any(t.is_alive() for t in threads)
    with pytest.raises(ValueError, match="boom in thread"):
        coord.raise_requested_exception()
    with pytest.raises(RuntimeError, match="after join"):
        coord.request_stop(RuntimeError("late error after join"))


def test_clean_stop_exceptions_are_not_reraised_and_clear_stop():
    coord = Coordinator()
    assert not coord.should_stop()
    coord.request_stop(tf.errors.OutOfRangeError(None, None, "input exhausted"))
    assert coord.should_stop() and coord.wait_for_stop(0)
    coord.join([])
    coord.clear_stop()
    assert not coord.should_stop() and not coord.wait_for_stop(0.01)
    strict = Coordinator(clean_stop_exception_types=())
    strict.request_stop(tf.errors.OutOfRangeError(None, None, "input exhausted"))
    with pytest.raises(tf.errors.OutOfRangeError):
        strict.join([])


def test_join_reports_threads_that_outlive_the_grace_period():
    coord = Coordinator()
    release = threading.Event()
    t = threading.Thread(target=release.wait, args=(10,), name="stubborn")
    coord.register_thread(t)
    t.start()
    coord.request_stop()
    with pytest.raises(RuntimeError, match="stubborn"):
        coord.join(stop_grace_period_secs=0.1)
    coord.clear_stop()
    coord.register_thread(t)
    coord.request_stop()
    coord.join(stop_grace_period_secs=0.1, ignore_live_threads=True)
    release.set()
    t.join(5)
    assert not t.is_alive()


def test_looper_thread_runs_until_stop():
    coord = Coordinator()
    calls = []
    looper = coord.looper(0.01, calls.append, args=(1,))
    assert isinstance(looper, LooperThread)
    deadline = time.monotonic() + 5
    while len(calls) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    coord.request_stop()
    coord.join(stop_grace_period_secs=5)
    looper.join(5)
    assert not looper.is_alive() and len(calls) >= 3


def test_threads_keep_order_of_a_single_producer_and_batch_consumer():
    q = tf.FIFOQueue(3, tf.int64, shapes=[[]])
    counter = tf.Variable(np.int64(0))
    qr = QueueRunner(q, [q.enqueue(tf.assign_add(counter, np.int64(1)))])
    batch = q.dequeue_many(4)
    coord = Coordinator()
    with tf.Session() as sess:
        sess.run(counter.initializer)
        threads = qr.create_threads(sess, coord=coord, daemon=True, start=True)
        try:
            first, second = sess.run(batch), sess.run(batch)
        finally:
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=5)
    np.testing.assert_array_equal(np.concatenate([first, second]), np.arange(1, 9))
