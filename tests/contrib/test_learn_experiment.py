"""tf.contrib.learn.Experiment and learn_runner.run on a local estimator."""

from __future__ import annotations

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.estimator import inputs

fc = tf.feature_column


def _data():
    rng = np.random.RandomState(0)
    x = rng.randn(200, 2).astype(np.float32)
    y = (2 * x[:, 0] - x[:, 1] + 0.5).astype(np.float32)
    return x, y


def _experiment_fn(output_dir, **kw):
    x, y = _data()
    est = tf.estimator.LinearRegressor([fc.numeric_column("x", shape=(2,))],
                                       model_dir=output_dir,
                                       optimizer=tf.train.GradientDescentOptimizer(0.002))
    return tf.contrib.learn.Experiment(
        est, train_input_fn=inputs.numpy_input_fn({"x": x}, y, batch_size=50, num_epochs=None,
                                                  shuffle=False),
        eval_input_fn=inputs.numpy_input_fn({"x": x}, y, batch_size=200, shuffle=False),
        train_steps=120, eval_steps=1, **kw)


def test_learn_runner_trains_and_evaluates_locally(tmp_path):
    metrics = tf.contrib.learn.learn_runner.run(_experiment_fn, output_dir=str(tmp_path))
    assert metrics["global_step"] == 120
    assert metrics["average_loss"] < 0.05, metrics


class _CountEvals(tf.train.SessionRunHook):
    def __init__(self):
        self.steps = []

    def end(self, session):
        self.steps.append(int(session.run(tf.train.get_global_step())))


def test_min_eval_frequency_evaluates_along_the_way(tmp_path):
    evals = _CountEvals()
    exp = _experiment_fn(str(tmp_path), min_eval_frequency=50, eval_hooks=[evals])
    metrics = tf.contrib.learn.learn_runner.run(lambda d: exp, output_dir=str(tmp_path))
    assert metrics["global_step"] == 120
    assert evals.steps == [50, 100, 120]


def test_schedules_and_bad_arguments(tmp_path):
    exp = _experiment_fn(str(tmp_path))
    with pytest.raises(ValueError, match="Schedule"):
        tf.contrib.learn.learn_runner.run(lambda d: exp, output_dir=str(tmp_path),
                                          schedule="no_such_schedule")
    metrics = tf.contrib.learn.learn_runner.run(
        lambda config, hparams: exp, run_config=tf.contrib.learn.RunConfig(), schedule="test")
    assert metrics["global_step"] == 1
    with pytest.raises(ValueError, match="exactly one"):
        tf.contrib.learn.learn_runner.run(_experiment_fn)
    with pytest.raises(ValueError, match="export_strategies"):
        _experiment_fn(str(tmp_path / "b"), export_strategies=[object()])
    with pytest.raises(TypeError, match="Experiment"):
        tf.contrib.learn.learn_runner.run(lambda d: object(), output_dir=str(tmp_path))
