"""An op made under ``control_dependencies`` reads a variable after what the scope waits
for, as a TensorFlow 1.x op reading a reference variable does (values as TensorFlow 2.21
``compat.v1`` with reference variables gives them)."""

import numpy as np

import tensorfleet as tf


def test_reads_made_in_the_scope_see_the_update():
    v = tf.Variable(1.0)
    up = tf.assign_add(v, 1.0)
    with tf.control_dependencies([up]):
        reads = [tf.identity(v), v + 0.0, v.read_value(), tf.reduce_sum(v)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for want in (2.0, 3.0, 4.0):
            assert sess.run(reads) == [want] * 4


def test_reads_outside_a_scope_share_one_snapshot():
    v = tf.Variable(np.ones(3, np.float32))
    a, b = v + 1.0, v * 2.0
    assert a.op.inputs[0] is b.op.inputs[0] is v.value()
    with tf.control_dependencies(None):
        assert tf.identity(v).op.inputs[0] is v.value()
