"""A job restored at or past its last step says so in one line instead of silently
training nothing."""

import logging

import numpy as np
import pytest

import tensorfleet as tf


def _train(directory, last_step):
    g = tf.Graph()
    with g.as_default():
        step = tf.train.get_or_create_global_step()
        w = tf.get_variable("w", [2], initializer=tf.zeros_initializer())
        train_op = tf.group(tf.assign_add(w, tf.ones([2])), tf.assign_add(step, 1))
        hooks = [tf.train.StopAtStepHook(last_step=last_step)]
        runs = 0
        with tf.train.MonitoredTrainingSession(checkpoint_dir=str(directory), hooks=hooks,
                                               save_checkpoint_steps=1,
                                               save_summaries_steps=None,
                                               log_step_count_steps=0) as sess:
            while not sess.should_stop():
                sess.run(train_op)
                runs += 1
    return runs


def test_a_rerun_into_a_finished_directory_says_nothing_to_train(tmp_path, caplog):
    assert _train(tmp_path, 3) == 3
    with caplog.at_level(logging.WARNING, logger="tensorfleet"):
        assert _train(tmp_path, 3) == 0
    lines = [r.getMessage() for r in caplog.records if "nothing to train" in r.getMessage()]
    assert len(lines) == 1, caplog.text
    assert "already at global step 3" in lines[0]
    assert "the last step is 3" in lines[0]
    assert str(tmp_path) in lines[0]


def test_a_rerun_with_a_higher_last_step_trains_quietly(tmp_path, caplog):
    assert _train(tmp_path, 2) == 2
    with caplog.at_level(logging.WARNING, logger="tensorfleet"):
        assert _train(tmp_path, 4) == 2
    assert "nothing to train" not in caplog.text


def _model_fn(features, labels, mode):
    w = tf.get_variable("w", [1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(features["x"] * w - labels))
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def test_an_estimator_past_max_steps_says_nothing_to_train(tmp_path, caplog):
    def input_fn():
        x = np.ones((8, 1), np.float32)
        return tf.data.Dataset.from_tensor_slices(({"x": x}, x)).repeat().batch(4)

    est = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path))
    est.train(input_fn, max_steps=2)
    with caplog.at_level(logging.WARNING, logger="tensorfleet"):
        est.train(input_fn, max_steps=2)
    lines = [r.getMessage() for r in caplog.records if "nothing to train" in r.getMessage()]
    assert len(lines) == 1, caplog.text
    assert "already at global step 2" in lines[0] and str(tmp_path) in lines[0]


@pytest.mark.parametrize("with_directory", [True, False])
def test_a_job_the_other_workers_finished_is_not_called_a_rerun(tmp_path, caplog,
                                                                 with_directory):
    """The global step is at the last step when the session starts, but the checkpoint
    directory never held it (or there is none): the other workers trained it meanwhile,
    so no warning."""
    g = tf.Graph()
    with g.as_default():
        step = tf.train.get_or_create_global_step()
        hook = tf.train.StopAtStepHook(last_step=5)
        if with_directory:
            hook.checkpoint_dir = str(tmp_path)  # empty: no checkpoint at the last step
        hook.begin()
        coord = tf.train.Coordinator()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(tf.assign(step, 5))
            with caplog.at_level(logging.INFO, logger="tensorfleet"):
                hook.after_create_session(sess, coord)
    assert coord.should_stop()
    assert not [r for r in caplog.records if "nothing to train" in r.getMessage()], caplog.text
    assert any("the other workers trained the rest" in r.getMessage()
               for r in caplog.records), caplog.text
