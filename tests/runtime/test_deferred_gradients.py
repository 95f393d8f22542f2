"""Weight gradients (products no heavy kernel depends on) run on the update thread
beside the input gradients after them; every op reading one waits for it, and the
values are those of the one-by-one order."""

from __future__ import annotations

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.runtime import executor


def _conv_net(opt):
    rng = np.random.default_rng(2)
    x = tf.placeholder(tf.float32, [None, 12, 12, 3])
    k1 = tf.Variable(rng.standard_normal([3, 3, 3, 8]).astype(np.float32) / 4)
    k2 = tf.Variable(rng.standard_normal([3, 3, 8, 8]).astype(np.float32) / 8)
    w = tf.Variable(rng.standard_normal([6 * 6 * 8, 10]).astype(np.float32) / 16)
    h = tf.nn.relu(tf.nn.conv2d(x, k1, [1, 1, 1, 1], "SAME"))
    h = tf.nn.max_pool(tf.nn.relu(tf.nn.conv2d(h, k2, [1, 1, 1, 1], "SAME")),
                       [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    logits = tf.matmul(tf.reshape(h, [-1, 6 * 6 * 8]), w)
    loss = tf.reduce_mean(tf.square(logits))
    return x, [k1, k2, w], opt.minimize(loss)


def _chosen(train):
    ops = executor.prune([], [train], set())
    return executor.deferrable_gradients(ops, [])


def test_the_weight_gradients_are_chosen_and_nothing_on_the_backward_path():
    with tf.Graph().as_default():
        _, _, train = _conv_net(tf.train.GradientDescentOptimizer(0.1))
        chosen = _chosen(train)
        assert sorted(op.type for op in chosen) == ["Conv2DBackpropFilter",
                                                    "Conv2DBackpropFilter", "MatMul"]
        ops = executor.prune([], [train], set())
        # The input gradients feed further convolutions' gradients: not chosen.
        inputs = [op for op in ops if op.type == "Conv2DBackpropInput"]
        assert inputs and not set(inputs) & chosen


@pytest.mark.parametrize("opt", [lambda: tf.train.AdamOptimizer(0.01),
                                 lambda: tf.train.GradientDescentOptimizer(0.1)])
def test_deferred_gradients_give_the_values_of_the_one_by_one_order(opt, monkeypatch):
    # Every chosen product is deferred, however small, to exercise the waits.
    monkeypatch.setattr(executor, "DEFER_MIN_MULTIPLY_ADDS", 0)
    feed = np.random.default_rng(3).standard_normal([4, 12, 12, 3]).astype(np.float32)
    results = []
    for deferrable in (executor.DEFERRABLE_GRADIENTS, set()):
        monkeypatch.setattr(executor, "DEFERRABLE_GRADIENTS", deferrable)
        with tf.Graph().as_default():
            x, variables, train = _conv_net(opt())
            assert len(_chosen(train)) == (3 if deferrable else 0)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(3):
                    sess.run(train, {x: feed})
                results.append(sess.run(variables))
    for a, b in zip(*results):
        # A kernel run on another thread may sum in another order (its own oneDNN
        # plan): the same values up to float32 rounding.
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


def test_a_fetched_gradient_or_one_with_no_heavy_op_beside_it_stays_in_line():
    with tf.Graph().as_default():
        x, _, train = _conv_net(tf.train.GradientDescentOptimizer(0.1))
        chosen = _chosen(train)
        fetched = next(op for op in chosen if op.type == "MatMul").outputs[0]
        ops = executor.prune([fetched], [train], set())
        assert fetched.op not in executor.deferrable_gradients(ops, [fetched])
    with tf.Graph().as_default():
        # A product after a convolution, nothing else: the main thread would only wait.
        x = tf.placeholder(tf.float32, [None, 6, 6, 3])
        h = tf.reshape(tf.nn.conv2d(x, tf.ones([3, 3, 3, 4]), [1, 1, 1, 1], "SAME"),
                       [-1, 144])
        out = tf.reduce_sum(tf.matmul(h, tf.ones([144, 5])))
        ops = executor.prune([out], [], set())
        assert not executor.deferrable_gradients(ops, [out])
    with tf.Graph().as_default():
        # A product of a variable's own buffer: a step's update could change it while
        # the product still reads it on the other thread.
        x, (k1, _, w), train = _conv_net(tf.train.GradientDescentOptimizer(0.1))
        norm = tf.reduce_sum(tf.matmul(w, tf.ones([10, 4096])))
        ops = executor.prune([norm], [train], set())
        product = norm.op.inputs[0].op
        assert product.type == "MatMul"
        assert product not in executor.deferrable_gradients(ops, [norm])


def test_the_size_of_a_product_is_counted_from_its_arguments():
    a, b = np.ones([64, 200]), np.ones([200, 300])
    assert executor.multiply_adds("MatMul", {}, [a, b]) == 64 * 200 * 300
    assert executor.multiply_adds("MatMul", {"transpose_a": True}, [a.T, b]) == 64 * 200 * 300
    dy = np.ones([8, 10, 10, 16])
    assert executor.multiply_adds("Conv2DBackpropFilter", {},
                                  [np.ones([8, 10, 10, 3]), np.array([5, 5, 3, 16]), dy]) \
        == dy.size * 5 * 5 * 3
    assert executor.multiply_adds("MatMul", {}, [np.ones(3), b]) == 0
