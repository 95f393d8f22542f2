"""tf.estimator.BaselineClassifier / BaselineRegressor: one bias per output, learnt to
the label prior or mean whatever the features; variable names as TensorFlow's."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.estimator.canned.baseline import baseline_logits

inputs = tf.estimator.inputs


def test_baseline_regressor_learns_the_mean(tmp_path):
    rng = np.random.RandomState(0)
    x = rng.randn(200).astype(np.float32)
    y = (3.0 + 0.5 * rng.randn(200)).astype(np.float32)
    # Whole-batch steps: the bias converges to the mean itself, not to a running
    # average of shuffled batch means that wanders by about the tolerance.
    est = tf.estimator.BaselineRegressor(model_dir=str(tmp_path),
                                         optimizer=tf.train.GradientDescentOptimizer(0.001))
    est.train(inputs.numpy_input_fn({"x": x}, y, batch_size=200, num_epochs=30, shuffle=False))
    names = [n for n, _ in tf.train.list_variables(str(tmp_path))]
    assert "baseline/bias" in names
    bias = tf.train.load_variable(str(tmp_path), "baseline/bias")
    assert bias.shape == (1,) and bias[0] == pytest.approx(y.mean(), abs=1e-3)
    preds = list(est.predict(inputs.numpy_input_fn({"x": x[:3]}, shuffle=False)))
    for p in preds:
        assert p["predictions"][0] == pytest.approx(bias[0], rel=1e-6)
    metrics = est.evaluate(inputs.numpy_input_fn({"x": x}, y, batch_size=200, shuffle=False))
    assert metrics["average_loss"] == pytest.approx(np.mean((y - bias[0]) ** 2), rel=1e-4)


def test_baseline_classifier_learns_the_prior(tmp_path):
    rng = np.random.RandomState(1)
    y = rng.choice(3, size=300, p=[0.2, 0.5, 0.3]).astype(np.int64)
    feats = {"f": rng.randn(300, 2).astype(np.float32)}
    est = tf.estimator.BaselineClassifier(model_dir=str(tmp_path), n_classes=3,
                                          optimizer=tf.train.GradientDescentOptimizer(0.002))
    est.train(inputs.numpy_input_fn(feats, y, batch_size=300, num_epochs=100, shuffle=False))
    pred = next(iter(est.predict(inputs.numpy_input_fn({"f": feats["f"][:1]}, shuffle=False))))
    freq = np.bincount(y, minlength=3) / len(y)
    np.testing.assert_allclose(pred["probabilities"], freq, atol=1e-3)
    assert pred["class_ids"][0] == 1
    bias = tf.train.load_variable(str(tmp_path), "baseline/bias")
    assert bias.shape == (3,)


def test_baseline_logits_check_batch_sizes():
    logits = baseline_logits({"a": tf.zeros([4, 2]), "b": tf.zeros([3]),
                              "w": tf.zeros([9])}, 2, weight_column="w")
    assert tf.global_variables()[0].op.name == "baseline/bias"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(logits)
    tf.reset_default_graph()
    ok = baseline_logits({"a": tf.zeros([4, 2]), "w": tf.zeros([9])}, 2, weight_column="w")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(ok).shape == (4, 2)
    with pytest.raises(ValueError, match="at least one feature"):
        baseline_logits({}, 1)
    with pytest.raises(ValueError, match="loss_reduction"):
        tf.estimator.BaselineRegressor(loss_reduction="mean")
