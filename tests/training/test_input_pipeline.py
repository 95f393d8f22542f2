"""Queue-based input pipelines (tf.train.batch and friends) and tf.Print."""

from __future__ import annotations

import collections
import threading
import time
from typing import Any, Callable, List

import numpy as np
import pytest

import tensorfleet as tf

JOIN_SECS = 5.0


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def _drain(fetch: Any, *, limit: int = 1000, deadline_secs: float = 30.0) -> List[Any]:
    """Runs ``fetch`` under a coordinator until OutOfRangeError; returns every value.

    Every session run goes through a watchdog that stops the coordinator (and so
    cancels blocked queue ops) if the pipeline hangs, so a bug fails the test
    instead of blocking the suite.
    """
    out: List[Any] = []
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        watchdog = threading.Timer(deadline_secs, coord.request_stop)
        watchdog.start()
        try:
            for _ in range(limit):
                try:
                    out.append(sess.run(fetch))
                except tf.errors.OutOfRangeError:
                    coord.request_stop()
                    break
            else:
                pytest.fail("pipeline never ran out of input")
            assert coord.should_stop()
        finally:
            watchdog.cancel()
            coord.request_stop()
            start = time.monotonic()
            coord.join(threads, stop_grace_period_secs=JOIN_SECS)
            assert time.monotonic() - start < JOIN_SECS
            assert not any(t.is_alive() for t in threads)
    return out


def _rows(batches: List[Any], pick: Callable[[Any], Any] = lambda b: b) -> List[Any]:
    return [v.decode() if isinstance(v, bytes) else v.tolist() if hasattr(v, "tolist") else v
            for b in batches for v in pick(b)]


def test_slice_producer_and_batch_keep_order_then_out_of_range():
    feats = np.arange(20, dtype=np.float32).reshape(10, 2)
    labels = np.arange(10, dtype=np.int32)
    x, y = tf.train.slice_input_producer([feats, labels], num_epochs=2, shuffle=False)
    bx, by = tf.train.batch([x, y], batch_size=4)
    assert bx.shape.as_list() == [4, 2] and by.shape.as_list() == [4]
    batches = _drain([bx, by])
    # 20 rows in batches of 4: exactly five full batches, nothing dropped.
    assert len(batches) == 5
    assert _rows(batches, lambda b: b[1]) == list(range(10)) * 2
    assert np.array_equal(np.concatenate([b[0] for b in batches]), np.concatenate([feats] * 2))


def test_shuffled_epochs_are_permutations():
    x, = tf.train.slice_input_producer([np.arange(10, dtype=np.int32)], num_epochs=3,
                                       shuffle=True, seed=7)
    got = _rows(_drain(tf.train.batch([x], batch_size=5)), lambda b: b[0])
    assert len(got) == 30
    epochs = [got[i:i + 10] for i in range(0, 30, 10)]
    for e in epochs:
        assert sorted(e) == list(range(10))
    assert any(e != list(range(10)) for e in epochs)


def test_shuffle_batch_sees_every_element_num_epochs_times():
    n, epochs, size = 12, 3, 4
    x, = tf.train.slice_input_producer([np.arange(n, dtype=np.int64)], num_epochs=epochs,
                                       shuffle=False)
    b = tf.train.shuffle_batch([x], batch_size=size, capacity=10, min_after_dequeue=3,
                               num_threads=2, seed=3)
    assert isinstance(b, list) and b[0].shape.as_list() == [size]
    batches = _drain(b)
    assert all(v[0].shape == (size,) for v in batches)
    counts = collections.Counter(_rows(batches, lambda v: v[0]))
    assert counts == {i: epochs for i in range(n)}


def test_string_input_producer():
    names = [b"a.txt", b"b.txt", b"c.txt"]
    q = tf.train.string_input_producer(names, num_epochs=2, shuffle=False)
    got = _rows(_drain(q.dequeue()), lambda v: [v])
    assert got == ["a.txt", "b.txt", "c.txt"] * 2


def test_range_input_producer_shuffled():
    q = tf.train.range_input_producer(6, num_epochs=1, seed=1)
    got = _rows(_drain(q.dequeue()), lambda v: [v])
    assert sorted(got) == list(range(6))


def test_dict_batch_with_smaller_final_batch():
    x, y = tf.train.slice_input_producer(
        [np.arange(7, dtype=np.int32), np.arange(7, dtype=np.float32) * 10], num_epochs=1,
        shuffle=False)
    b = tf.train.batch({"x": x, "y": y}, batch_size=3, allow_smaller_final_batch=True)
    assert set(b) == {"x", "y"} and b["x"].shape.as_list() == [None]
    batches = _drain(b)
    assert [len(v["x"]) for v in batches] == [3, 3, 1]
    assert _rows(batches, lambda v: v["x"]) == list(range(7))
    assert _rows(batches, lambda v: v["y"]) == [10.0 * i for i in range(7)]


def test_batch_enqueue_many_and_single_tensor():
    t = tf.constant(np.arange(8, dtype=np.int32).reshape(4, 2))
    limited = tf.train.limit_epochs(t, num_epochs=1)
    b = tf.train.batch(limited, batch_size=2, enqueue_many=True)
    assert isinstance(b, tf.Tensor) and b.shape.as_list() == [2, 2]
    got = _drain(b)
    assert np.array_equal(np.concatenate(got), np.arange(8).reshape(4, 2))


def test_monitored_training_session_stops_on_out_of_range():
    x, = tf.train.slice_input_producer([np.arange(9, dtype=np.int32)], num_epochs=2,
                                       shuffle=False)
    b = tf.train.batch([x], batch_size=3)
    tf.train.get_or_create_global_step()
    seen: List[int] = []
    result: dict = {}

    def consume() -> None:
        try:
            with tf.train.MonitoredTrainingSession() as sess:
                while not sess.should_stop():
                    seen.extend(sess.run(b)[0].tolist())
            result["ok"] = True
        except BaseException as e:  # noqa: BLE001 - reported below
            result["error"] = e

    worker = threading.Thread(target=consume, daemon=True)
    worker.start()
    worker.join(30)
    assert not worker.is_alive(), "MonitoredTrainingSession did not stop"
    assert result.get("ok"), result.get("error")
    assert seen == list(range(9)) * 2


def test_print_passes_value_and_writes_stderr(capfd):
    x = tf.constant([1.0, 2.0, 3.0, 4.0])
    n = tf.constant(5)
    y = tf.Print(x, [x, n], message="values: ", first_n=2)
    with tf.Session() as sess:
        for _ in range(3):
            assert np.array_equal(sess.run(y), [1.0, 2.0, 3.0, 4.0])
    err = capfd.readouterr().err
    assert err.count("values: [1 2 3...][5]") == 2


def test_print_summarize_and_gradient(capfd):
    x = tf.constant([1.0, 2.0, 3.0])
    y = tf.Print(x, [x], message="all", summarize=-1)
    grad, = tf.gradients(tf.reduce_sum(y * y), x)
    with tf.Session() as sess:
        g = sess.run(grad)
    assert np.allclose(g, [2.0, 4.0, 6.0])
    assert "all[1 2 3]" in capfd.readouterr().err


def test_bad_arguments_raise_clear_errors():
    x = tf.constant(1.0)
    with pytest.raises(ValueError, match="batch_size"):
        tf.train.batch([x], batch_size=0)
    with pytest.raises(ValueError, match="min_after_dequeue"):
        tf.train.shuffle_batch([x], batch_size=2, capacity=10, min_after_dequeue=10)
    with pytest.raises(ValueError, match="empty"):
        tf.train.batch([], batch_size=2)
    with pytest.raises(ValueError, match="non-empty"):
        tf.train.slice_input_producer([])
    with pytest.raises(ValueError, match="same size"):
        tf.train.slice_input_producer([np.zeros(3), np.zeros(4)])
    with pytest.raises(ValueError, match="num_epochs"):
        tf.train.string_input_producer(["a"], num_epochs=0)
    with pytest.raises(ValueError, match="fully defined"):
        tf.train.batch([tf.placeholder(tf.float32, [None])], batch_size=2)
    with pytest.raises(ValueError, match="non-empty"):
        tf.train.string_input_producer(np.array([], dtype=object))


def test_random_shuffle_queue_respects_min_after_dequeue():
    q = tf.RandomShuffleQueue(capacity=10, min_after_dequeue=3, dtypes=[tf.int32],
                              shapes=[[]], seed=5)
    enq = q.enqueue_many([list(range(5))])
    deq = q.dequeue_many(2)
    blocked = q.dequeue_many(1)
    with tf.Session() as sess:
        sess.run(enq)
        got = sess.run(deq).tolist()
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(blocked, options=tf.RunOptions(timeout_in_ms=300))
        sess.run(q.close())
        rest = sess.run(q.dequeue_up_to(10)).tolist()
    assert sorted(got + rest) == list(range(5))
