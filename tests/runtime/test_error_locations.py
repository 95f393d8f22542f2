"""Run-time errors point at the user's code: each op records the line that built it
(skipping tensorfleet's frames), errors add "defined at file:line", and a variable
placed on a task that does not exist is reported for the variable and its tf.device
line."""

import traceback

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.cluster import local_cluster

HERE = __file__


def _line_of(text):
    with open(HERE) as f:
        return next(i for i, line in enumerate(f, 1) if text in line and "_line_of" not in line)


def _helper_building_logits(x, w):
    return tf.matmul(x, w, name="logits")  # logits-line


def test_an_op_records_the_users_line_not_tensorfleets():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        logits = _helper_building_logits(x, tf.ones([3, 2]))
        dense = tf.layers.dense(x, 4)  # dense-line
    assert logits.op.defined_at == f"{HERE}:{_line_of('# logits-line')}"
    frames = logits.op.traceback
    assert frames[-1][2] == "_helper_building_logits"
    assert frames[-1][3] == 'return tf.matmul(x, w, name="logits")  # logits-line'
    assert frames[-2][2] == "test_an_op_records_the_users_line_not_tensorfleets"
    assert all("/tensorfleet/" not in f[0] or "/tests/" in f[0] for f in frames)
    # Ops a library layer builds point at the line that called the layer.
    assert dense.op.defined_at == f"{HERE}:{_line_of('# dense-line')}"


def test_a_run_time_error_names_the_op_and_where_it_was_defined():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, None])
        logits = _helper_building_logits(x, tf.ones([3, 2]))
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(logits, {x: np.ones((2, 4), np.float32)})
    where = f"{HERE}:{_line_of('# logits-line')}"
    assert f"[[op: logits (defined at {where})]]" in str(e.value)
    # The traceback goes from this test to session.run, not through the executor.
    shown = traceback.extract_tb(e.value.__traceback__)
    inside = [f for f in shown if "/tensorfleet/" in f.filename]
    assert len(inside) <= 1, shown
    assert e.value.__cause__ is None


def test_a_variable_on_a_missing_ps_task_is_named_with_its_device_line():
    with local_cluster(ps=1, worker=1) as cluster:
        g = tf.Graph()
        with g.as_default():
            with tf.device("/job:ps/task:1"):  # device-line
                w = tf.Variable(tf.zeros([3]), name="weights")  # variable-line
            init = tf.global_variables_initializer()
            with tf.Session(cluster.target("worker"), graph=g) as sess:
                with pytest.raises(tf.errors.InvalidArgumentError) as e:
                    sess.run(init)
    msg = str(e.value)
    assert "Cannot assign a device for operation weights: /job:ps has no task 1" in msg, msg
    assert f"tf.device scope at {HERE}:{_line_of('# device-line')}" in msg
    assert f"[[op: weights (defined at {HERE}:{_line_of('# variable-line')})]]" in msg
    assert w.op.device_defined_at == f"{HERE}:{_line_of('# device-line')}"

