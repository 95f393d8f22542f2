"""``tf.debugging.assert_shapes``, ``set_log_device_placement`` and the traceback-filtering
switches."""

import pytest

import tensorfleet as tf


def test_assert_shapes_static_and_at_run_time():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.placeholder(tf.float32, [None])
        z = tf.zeros([4, 3])
        check = tf.debugging.assert_shapes([(x, ("N", "D")), (y, ("N",)), (z, (4, "D"))])
        with tf.Session() as sess:
            sess.run(check, {x: [[1, 2, 3]], y: [1.0]})
            with pytest.raises(tf.errors.InvalidArgumentError, match="dimension 'N'"):
                sess.run(check, {x: [[1, 2, 3]], y: [1.0, 2.0]})
        with pytest.raises(ValueError, match="must have size 3"):
            tf.debugging.assert_shapes([(z, ("N", "D")), (tf.zeros([2, 5]), (None, "D"))])
        with pytest.raises(ValueError, match="has rank 2"):
            tf.debugging.assert_shapes({z: ("N",)})
        tf.debugging.assert_shapes([(tf.zeros([2, 7, 3]), ("...", "D"))])
        with pytest.raises(ValueError, match="dimension 0 must have size 5"):
            tf.debugging.assert_shapes([(z, (5, None))], message="batch")


def test_traceback_filtering_switch():
    assert tf.debugging.is_traceback_filtering_enabled()
    with tf.Graph().as_default():
        a = tf.constant(1.0)
        assert not any("/tensorfleet/" in f[0] and "/tests/" not in f[0]
                       for f in a.op.traceback)
        tf.debugging.disable_traceback_filtering()
        try:
            b = tf.constant(2.0)
        finally:
            tf.debugging.enable_traceback_filtering()
        assert any("/tensorfleet/" in f[0] and "/tests/" not in f[0] for f in b.op.traceback)


def test_log_device_placement_for_every_session(capfd):
    workers, _ = tf.test.create_local_cluster(1, 0)
    try:
        assert not tf.debugging.get_log_device_placement()
        tf.debugging.set_log_device_placement(True)
        with tf.Graph().as_default():
            v = tf.add(tf.constant(1.0), 2.0, name="placed_add")
            with tf.Session(workers[0].target) as sess:
                assert sess.run(v) == 3.0
        assert "placed_add: (Add): /job:worker/task:0" in capfd.readouterr().err
    finally:
        tf.debugging.set_log_device_placement(False)
        for w in workers:
            w.stop()
    with pytest.raises(TypeError, match="must be a bool"):
        tf.debugging.set_log_device_placement("yes")
