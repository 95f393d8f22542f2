"""``tf.errors``' code helpers, ``tf.logging.TaskLevelStatusMessage`` and
``tf.initializers``."""

import logging

import numpy as np
import pytest

import tensorfleet as tf


def test_error_codes_and_status():
    assert tf.errors.error_code_from_exception_type(tf.errors.NotFoundError) == \
        tf.errors.NOT_FOUND
    assert tf.errors.error_code_from_exception_type(tf.errors.OutOfRangeError) == \
        tf.errors.OUT_OF_RANGE
    with pytest.raises(TypeError, match="OpError subclass"):
        tf.errors.error_code_from_exception_type(ValueError)
    with tf.errors.raise_exception_on_not_ok_status() as status:
        pass
    with pytest.raises(tf.errors.NotFoundError, match="no such file"):
        with tf.errors.raise_exception_on_not_ok_status() as status:
            status.set(tf.errors.NOT_FOUND, "no such file")


def test_task_level_status_message_logs(caplog):
    with caplog.at_level(logging.INFO):
        tf.logging.TaskLevelStatusMessage("task 3 is up")
    assert "task 3 is up" in caplog.text


def test_initializers_namespace_runs_tables_and_variables():
    with tf.Graph().as_default():
        table = tf.contrib.lookup.index_table_from_tensor(tf.constant(["a", "b"]))
        v = tf.Variable(tf.initializers.ones()([2]))
        w = tf.Variable(tf.initializers.constant(3.0)([1]), collections=[
            tf.GraphKeys.LOCAL_VARIABLES])
        with tf.Session() as sess:
            sess.run([tf.initializers.global_variables(), tf.initializers.local_variables(),
                      tf.initializers.tables_initializer()])
            assert sess.run(table.lookup(tf.constant(["b"]))).tolist() == [1]
            np.testing.assert_array_equal(sess.run(v), [1.0, 1.0])
            assert sess.run(w).tolist() == [3.0]
