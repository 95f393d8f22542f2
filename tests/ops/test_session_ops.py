"""tf.get_session_handle / get_session_tensor / delete_session_tensor: a value kept in
the task between steps, as TensorFlow 2.21's tf.compat.v1 sessions keep it."""

import numpy as np
import pytest

import tensorfleet as tf


def test_kept_value_is_read_in_later_steps_and_deleted():
    with tf.Graph().as_default():
        c = tf.multiply(tf.constant(10.0), tf.constant(5.0))
        h = tf.get_session_handle(c)
        with pytest.raises(TypeError, match="Tensor"):
            tf.get_session_handle(3.0)
        with tf.Session() as sess:
            handle = sess.run(h)
            assert isinstance(handle.handle, str)
            p, x = tf.get_session_tensor(handle.handle, tf.float32)
            y = x * 10
            assert sess.run(y, feed_dict={p: handle.handle}) == 500.0
            assert handle.eval() == 50.0
            # Feeding the handle itself feeds the value it keeps.
            q = tf.placeholder(tf.float32)
            assert sess.run(q * 2, feed_dict={q: handle}) == 100.0
            both = sess.run([h, tf.get_session_handle(tf.constant([1, 2]))])
            assert both[0].handle != handle.handle
            np.testing.assert_array_equal(both[1].eval(), [1, 2])
            holder, deleter = tf.delete_session_tensor(handle.handle)
            sess.run(deleter, feed_dict={holder: handle.handle})
            with pytest.raises(tf.errors.InvalidArgumentError, match="no tensor is kept"):
                sess.run(y, feed_dict={p: handle.handle})
            both[1].delete()
            with pytest.raises(tf.errors.InvalidArgumentError):
                both[1].eval()
            with pytest.raises(tf.errors.InvalidArgumentError, match="is float32, not int32"):
                p2, wrong = tf.get_session_tensor(both[0].handle, tf.int32)
                sess.run(wrong, feed_dict={p2: both[0].handle})
