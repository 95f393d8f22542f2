"""Dense updates of large variables run beside the kernels after them; every step that
must see one finished waits for it, and the step returns only once all are done."""

from __future__ import annotations

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.runtime import executor

SIZE = executor.DEFER_MIN_ELEMENTS


def _model(opt):
    x = tf.placeholder(tf.float32, [None, 64])
    w = tf.Variable(np.full([64, SIZE // 64], 0.01, np.float32))
    small = tf.Variable(np.ones([4], np.float32))
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w))) + tf.reduce_sum(small * small)
    return x, w, loss, opt.minimize(loss)


@pytest.mark.parametrize("opt", [lambda: tf.train.AdamOptimizer(0.1),
                                 lambda: tf.train.MomentumOptimizer(0.1, 0.9),
                                 lambda: tf.train.GradientDescentOptimizer(0.1)])
def test_deferred_updates_leave_the_values_of_updates_in_line(opt, monkeypatch):
    feed = np.random.default_rng(0).standard_normal([8, 64]).astype(np.float32)
    results = []
    for deferrable in (executor.DEFERRABLE_UPDATES, set()):
        monkeypatch.setattr(executor, "DEFERRABLE_UPDATES", deferrable)
        with tf.Graph().as_default():
            x, w, loss, train = _model(opt())
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(3):
                    sess.run(train, {x: feed})
                results.append(sess.run(w))
                ops = executor.prune([], [train], set())
                chosen = executor.deferrable_updates(ops, [])
                assert len(chosen) == (1 if deferrable else 0)
    np.testing.assert_array_equal(results[0], results[1])


def test_a_read_ordered_after_the_update_sees_it_done():
    with tf.Graph().as_default():
        x, w, loss, train = _model(tf.train.GradientDescentOptimizer(1.0))
        with tf.control_dependencies([train]):
            after = tf.identity(w.read_value())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            before = sess.run(w)
            got = sess.run(after, {x: np.ones([2, 64], np.float32)})
            assert not np.array_equal(got, before)
            np.testing.assert_array_equal(got, sess.run(w))


def test_a_failing_deferred_update_is_an_error_naming_it():
    with tf.Graph().as_default():
        w = tf.Variable(np.zeros([SIZE], np.float32))
        g = tf.placeholder(tf.float32, [None])
        train = tf.train.GradientDescentOptimizer(0.1).apply_gradients([(g, w)])
        ops = executor.prune([], [train], set())
        assert executor.deferrable_updates(ops, [])
        with tf.Session() as sess:
            sess.run(w.initializer)
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(train, {g: np.ones([3], np.float32)})
            assert "update_Variable/ApplyGradientDescent" in str(info.value)
            # The session still runs steps after the error.
            sess.run(train, {g: np.ones([SIZE], np.float32)})
            assert sess.run(w)[0] == pytest.approx(-0.1)


def test_the_update_runs_before_the_ops_that_do_not_need_it():
    with tf.Graph().as_default():
        x, w, loss, train = _model(tf.train.AdamOptimizer(0.1))
        ops = executor.prune([], [train], set())
        chosen = executor.deferrable_updates(ops, [])
        order = executor.hoist(ops, chosen)
        update = next(iter(chosen))
        # Everything the update waits for comes first, then the update itself.
        position = order.index(update)
        waited = {t.op for t in update.inputs} | set(update.control_inputs)
        assert max(order.index(op) for op in waited) < position < len(order) - 1
