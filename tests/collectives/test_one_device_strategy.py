"""OneDeviceStrategy, the Strategy base (TensorFlow's default strategy), RunOptions,
experimental_set_strategy and get_loss_reduction, against what TensorFlow 2.21 does in
graph mode."""

import numpy as np
import pytest

import tensorfleet as tf


def test_one_device_strategy_places_variables_and_replica_ops():
    with tf.Graph().as_default():
        s = tf.distribute.OneDeviceStrategy("/cpu:0")
        assert isinstance(s, tf.distribute.Strategy)
        assert isinstance(s.extended, tf.distribute.StrategyExtended)
        # TensorFlow 2.21: ('/replica:0/task:0/device:CPU:0',) for both.
        assert s.extended.worker_devices == ("/replica:0/task:0/device:CPU:0",)
        assert s.extended.parameter_devices == ("/replica:0/task:0/device:CPU:0",)
        assert s.num_replicas_in_sync == 1 and s.extended.should_checkpoint
        assert s.extended.experimental_between_graph is False
        with s.scope():
            assert tf.distribute.get_strategy() is s
            assert tf.distribute.in_cross_replica_context()
            v = tf.get_variable("v", [2], initializer=tf.ones_initializer())
            c = tf.constant(1.0)
            r = s.run(lambda x: x * 2 + v, args=(tf.constant([1.0, 2.0]),),
                      options=tf.distribute.RunOptions())
            mean = s.reduce(tf.distribute.ReduceOp.MEAN, r, axis=0)
            total = s.reduce("SUM", r, axis=None)
            summed = s.extended.batch_reduce_to(tf.distribute.ReduceOp.SUM,
                                                [(r, None), (c, None)])
        assert "CPU:0" in v.device and c.op.device == ""
        assert "CPU:0" in r.op.device
        assert s.experimental_local_results(r) == (r,)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([r, mean, total] + summed)
    # TensorFlow 2.21: [3, 5], 4.0, [3, 5]
    np.testing.assert_allclose(got[0], [3.0, 5.0])
    assert got[1] == pytest.approx(4.0)
    np.testing.assert_allclose(got[2], [3.0, 5.0])
    np.testing.assert_allclose(got[3], [3.0, 5.0])
    assert got[4] == 1.0


def test_replica_context_inside_run():
    with tf.Graph().as_default():
        s = tf.distribute.OneDeviceStrategy("/cpu:0")

        def step():
            ctx = tf.distribute.get_replica_context()
            assert ctx.num_replicas_in_sync == 1 and ctx.replica_id_in_sync_group == 0
            assert not tf.distribute.in_cross_replica_context()
            return ctx.all_reduce(tf.distribute.ReduceOp.SUM, tf.constant([2.0]))

        with s.scope():
            out = s.run(step)
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(out), [2.0])


def test_bad_arguments():
    with pytest.raises(TypeError, match="device must be a string"):
        tf.distribute.OneDeviceStrategy(0)
    with pytest.raises(ValueError):
        tf.distribute.OneDeviceStrategy("/cpu:zero")
    with pytest.raises(ValueError, match="TPU"):
        tf.distribute.RunOptions(experimental_bucketizing_dynamic_shape=True)
    with pytest.raises(ValueError, match="XLA"):
        tf.distribute.RunOptions(experimental_xla_options=object())
    s = tf.distribute.OneDeviceStrategy("/cpu:0")
    with pytest.raises(TypeError, match="RunOptions"):
        s.run(lambda: None, options={"x": 1})
    with pytest.raises(ValueError, match="reduce_op"):
        s.reduce("PRODUCT", tf.constant(1.0))


def test_experimental_set_strategy():
    s = tf.distribute.OneDeviceStrategy("/cpu:0")
    tf.distribute.experimental_set_strategy(s)
    try:
        assert tf.distribute.get_strategy() is s and tf.distribute.has_strategy()
        with s.scope():
            with pytest.raises(RuntimeError, match="inside a `tf.distribute.Strategy` scope"):
                tf.distribute.experimental_set_strategy(None)
        with pytest.raises(TypeError, match="Strategy or None"):
            tf.distribute.experimental_set_strategy("/cpu:0")
    finally:
        tf.distribute.experimental_set_strategy(None)
    assert not tf.distribute.has_strategy()


def test_get_loss_reduction_outside_an_estimator_is_sum():
    # TensorFlow 2.21 (tf.compat.v1.distribute.get_loss_reduction()): ReduceOp.SUM.
    with tf.Graph().as_default():
        tf.losses.mean_squared_error([1.0], [2.0])
        assert tf.distribute.get_loss_reduction() == tf.distribute.ReduceOp.SUM
