"""Loss scaling: ``tf.mixed_precision.experimental`` loss scales and
``tf.train.experimental.MixedPrecisionLossScaleOptimizer``."""

import logging

import numpy as np
import pytest

import tensorfleet as tf

mp = tf.mixed_precision


def test_dynamic_loss_scale_shrinks_on_overflow_and_grows_after_a_run():
    with tf.Graph().as_default():
        scale = mp.experimental.DynamicLossScale(initial_loss_scale=8, increment_period=2,
                                                 multiplier=2)
        g = tf.placeholder(tf.float32, [2])
        update, finite = scale.update([g, None])
        current = scale()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(current) == 8
            assert not sess.run([update, finite], {g: [1.0, np.inf]})[1]
            assert sess.run(current) == 4
            sess.run(update, {g: [1.0, 2.0]})
            assert sess.run(current) == 4
            sess.run(update, {g: [1.0, 2.0]})
            assert sess.run(current) == 8  # two finite steps: doubled
            for _ in range(5):
                sess.run(update, {g: [np.nan, 0.0]})
            assert sess.run(current) == 1  # never below 1
    assert mp.experimental.DynamicLossScale.from_config(scale.get_config()).multiplier == 2
    with pytest.raises(ValueError, match="increment_period"):
        mp.experimental.DynamicLossScale(increment_period=0)
    with pytest.raises(ValueError, match="at least 1"):
        mp.experimental.FixedLossScale(0.5)


def _train(opt_fn, grad_scale_feed):
    with tf.Graph().as_default():
        w = tf.Variable([1.0, -2.0])
        k = tf.placeholder(tf.float32, [])
        loss = tf.reduce_sum(tf.square(w)) * k
        opt = opt_fn()
        grads = opt.compute_gradients(loss)
        step = opt.apply_gradients(grads)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            g = sess.run(grads[0][0], {k: 1.0})
            out = []
            for feed in grad_scale_feed:
                sess.run(step, {k: feed})
                out.append(sess.run(w))
            return g, out, opt


def test_optimizer_unscales_gradients_and_skips_non_finite_steps():
    g, ws, opt = _train(lambda: tf.train.experimental.MixedPrecisionLossScaleOptimizer(
        tf.train.GradientDescentOptimizer(0.25), "dynamic"), [1.0, np.inf, 1.0])
    np.testing.assert_allclose(g, [2.0, -4.0])  # d/dw of sum(w^2), not scaled by 2**15
    np.testing.assert_allclose(ws[0], [0.5, -1.0])
    np.testing.assert_allclose(ws[1], ws[0])  # the inf step is skipped
    np.testing.assert_allclose(ws[2], [0.25, -0.5])
    assert isinstance(opt.loss_scale, mp.DynamicLossScale)
    _, fixed, _ = _train(lambda: tf.train.experimental.MixedPrecisionLossScaleOptimizer(
        tf.train.GradientDescentOptimizer(0.25), 128), [1.0])
    np.testing.assert_allclose(fixed[0], [0.5, -1.0])


def test_enable_graph_rewrite_wraps_and_says_so(caplog):
    with caplog.at_level(logging.WARNING):
        opt = tf.train.experimental.enable_mixed_precision_graph_rewrite(
            tf.train.AdamOptimizer(0.1), loss_scale=mp.experimental.FixedLossScale(4))
    assert isinstance(opt, mp.MixedPrecisionLossScaleOptimizer)
    assert "only loss scaling" in caplog.text
    from tensorfleet.training.loss_scale_optimizer import mixed_precision_graph_rewrite_enabled
    assert mixed_precision_graph_rewrite_enabled()
    mp.disable_mixed_precision_graph_rewrite()
    assert not mixed_precision_graph_rewrite_enabled()
    with pytest.raises(ValueError, match="already scales"):
        mp.MixedPrecisionLossScaleOptimizer(opt, "dynamic")
    with pytest.raises(ValueError, match="loss_scale must be"):
        mp.MixedPrecisionLossScaleOptimizer(tf.train.AdamOptimizer(0.1), "static")
