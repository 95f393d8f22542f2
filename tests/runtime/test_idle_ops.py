"""Ops reached only through control edges, whose running nobody can observe, are
skipped; the order those edges give still holds."""

from __future__ import annotations

import numpy as np

import tensorfleet as tf
from tensorfleet.ops import control_flow_ops
from tensorfleet.runtime.executor import idle_ops, prune


def _step_ops(fetches, targets=()):
    return prune(list(fetches), list(targets), set())


def test_a_stateless_op_named_only_by_a_control_edge_is_skipped():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [None, None])
        b = tf.placeholder(tf.float32, [None, None])
        # Would fail if it ran: the inner sizes differ.
        bad = tf.matmul(a, b)
        with tf.control_dependencies([bad]):
            out = tf.identity(a)
        with tf.Session() as sess:
            got = sess.run(out, {a: np.ones([2, 3]), b: np.ones([4, 5])})
        np.testing.assert_array_equal(got, np.ones([2, 3]))
        assert bad.op in idle_ops(_step_ops([out]), [out])


def test_a_fetched_op_and_a_target_are_never_idle():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [None, None])
        b = tf.placeholder(tf.float32, [None, None])
        bad = tf.matmul(a, b)
        with tf.Session() as sess:
            feeds = {a: np.ones([2, 3]), b: np.ones([4, 5])}
            for fetch in (bad, bad.op):
                try:
                    sess.run(fetch, feeds)
                except tf.errors.InvalidArgumentError:
                    continue
                raise AssertionError(f"running {fetch} should have failed")


def test_ops_with_effects_run_and_keep_their_order():
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        update = tf.assign_add(v, 1.0)
        check = tf.debugging.assert_positive(-tf.ones([]))
        with tf.control_dependencies([update]):
            after = tf.identity(v.read_value())
        with tf.control_dependencies([check]):
            guarded = tf.identity(v.read_value())
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(after) == 2.0
            assert sess.run(after) == 3.0
            try:
                sess.run(guarded)
            except tf.errors.InvalidArgumentError:
                pass
            else:
                raise AssertionError("the assertion under a control edge did not run")


def test_gradient_gating_leaves_the_first_layers_input_gradient_idle():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 8, 8, 1])
        k = tf.Variable(np.ones([3, 3, 1, 2], np.float32))
        loss = tf.reduce_sum(tf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME"))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        idle = idle_ops(_step_ops([], [train]), [])
        assert {op.type for op in idle} >= {"Conv2DBackpropInput"}
        assert "Conv2DBackpropFilter" not in {op.type for op in idle}
        with tf.Session() as sess:
            sess.run(k.initializer)
            sess.run(train, {x: np.ones([2, 8, 8, 1], np.float32)})
            # Each filter tap sums the 2 x 8 x 8 inputs it meets under SAME padding.
            assert sess.run(k)[1, 1, 0, 0] == 1.0 - 0.1 * 128


def test_a_step_with_cond_primitives_runs_every_op():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.bool, [])
        x = tf.constant(1.0)
        _, on_true = control_flow_ops.switch(x, p)
        with tf.control_dependencies([on_true * 2.0]):
            out = tf.identity(x)
        ops = _step_ops([out])
        assert any(op.type == "Switch" for op in ops)
        assert idle_ops(ops, [out]) == set()
