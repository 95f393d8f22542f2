"""Canned estimators learn separable synthetic tasks; heads give TensorFlow's
predictions, metrics and variable names."""

import glob
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.protos import saved_model_pb2
from tests.framework.tensorflow_op_set import assert_tensorflow_graph

fc = tf.feature_column
inputs = tf.estimator.inputs


def _binary_data(n=400, seed=0):
    rng = np.random.RandomState(seed)
    x1 = rng.randn(n).astype(np.float32)
    x2 = rng.randn(n).astype(np.float32)
    cat = np.array(["a", "b", "c", "d"])[rng.randint(0, 4, n)]
    y = ((x1 - x2 + 2.0 * (cat == "a") - 0.5) > 0).astype(np.int64)
    return {"x1": x1, "x2": x2, "cat": cat}, y


def _train_eval(est, feats, y, epochs, batch=32):
    est.train(inputs.numpy_input_fn(feats, y, batch_size=batch, num_epochs=epochs,
                                    shuffle=True))
    return est.evaluate(inputs.numpy_input_fn(feats, y, batch_size=len(y), shuffle=False))


def _var_names(est):
    return [name for name, _ in tf.train.list_variables(est.model_dir)]


def test_linear_classifier_learns_and_names_variables(tmp_path):
    feats, y = _binary_data()
    cols = [fc.numeric_column("x1"), fc.numeric_column("x2"),
            fc.categorical_column_with_vocabulary_list("cat", ["a", "b", "c", "d"])]
    est = tf.estimator.LinearClassifier(cols, model_dir=str(tmp_path),
                                        optimizer=tf.train.GradientDescentOptimizer(0.05))
    m = _train_eval(est, feats, y, epochs=8)
    assert m["accuracy"] > 0.93, m
    assert m["auc"] > 0.97, m
    assert set(m) == {"accuracy", "accuracy_baseline", "auc", "auc_precision_recall",
                      "precision", "recall", "average_loss", "label/mean", "prediction/mean",
                      "loss", "global_step"}
    assert abs(m["label/mean"] - y.mean()) < 1e-6
    assert abs(m["accuracy_baseline"] - max(y.mean(), 1 - y.mean())) < 1e-6
    assert m["auc_precision_recall"] > 0.9
    names = _var_names(est)
    for col in ("x1", "x2", "cat"):
        assert any(n.startswith(f"linear/linear_model/{col}/weights") for n in names), names
    assert any(n.startswith("linear/linear_model/bias_weights") for n in names)


def test_linear_classifier_default_optimizer_is_ftrl(tmp_path):
    feats, y = _binary_data(200)
    cols = [fc.numeric_column("x1")]
    if not hasattr(tf.train, "FtrlOptimizer"):
        with pytest.raises(ValueError, match="FtrlOptimizer"):
            tf.estimator.LinearClassifier(cols, model_dir=str(tmp_path))
        return
    est = tf.estimator.LinearClassifier(cols, model_dir=str(tmp_path))
    est.train(inputs.numpy_input_fn(feats, y, batch_size=50, num_epochs=1, shuffle=False))
    assert any("Ftrl" in n for n in _var_names(est))


def test_binary_predictions_are_consistent(tmp_path):
    feats, y = _binary_data(200)
    est = tf.estimator.LinearClassifier([fc.numeric_column("x1"), fc.numeric_column("x2")],
                                        model_dir=str(tmp_path), optimizer="SGD")
    est.train(inputs.numpy_input_fn(feats, y, batch_size=50, num_epochs=2, shuffle=True))
    preds = list(est.predict(inputs.numpy_input_fn({"x1": feats["x1"][:5],
                                                    "x2": feats["x2"][:5]}, shuffle=False)))
    assert len(preds) == 5
    for p in preds:
        assert set(p) == {"logits", "logistic", "probabilities", "class_ids", "classes"}
        np.testing.assert_allclose(p["logistic"], 1 / (1 + np.exp(-p["logits"])), rtol=1e-5)
        # 1 - logistic in float32 carries an absolute error of one ulp of 1 (6e-8),
        # which is a large relative error when the probability is small.
        np.testing.assert_allclose(p["probabilities"], [1 - p["logistic"][0],
                                                        p["logistic"][0]], rtol=1e-5, atol=1e-6)
        assert p["class_ids"].tolist() == [int(p["logistic"][0] > 0.5)]
        assert p["classes"].tolist() == [str(p["class_ids"][0]).encode()]


def test_linear_regressor_learns_weights(tmp_path):
    rng = np.random.RandomState(1)
    x = rng.randn(300, 2).astype(np.float32)
    y = (2 * x[:, 0] - 3 * x[:, 1] + 1).astype(np.float32)
    est = tf.estimator.LinearRegressor([fc.numeric_column("x", shape=(2,))],
                                       model_dir=str(tmp_path),
                                       optimizer=tf.train.GradientDescentOptimizer(0.01))
    m = _train_eval(est, {"x": x}, y, epochs=10)
    assert m["average_loss"] < 0.01, m
    assert set(m) >= {"average_loss", "label/mean", "prediction/mean", "loss"}
    weights = [n for n in _var_names(est) if n.startswith("linear/linear_model/x/weights")]
    w = est.get_variable_value(weights[0])
    np.testing.assert_allclose(w.reshape(-1), [2, -3], atol=0.05)
    pred = next(est.predict(inputs.numpy_input_fn({"x": x[:1]}, shuffle=False)))
    np.testing.assert_allclose(pred["predictions"], y[:1], atol=0.1)


def test_dnn_classifier_multiclass_with_vocabulary_and_weights(tmp_path):
    rng = np.random.RandomState(2)
    x = rng.randn(450, 2).astype(np.float32)
    label_id = np.argmax(np.stack([x[:, 0], x[:, 1], -x[:, 0] - x[:, 1]], 1), 1)
    names = np.array(["cat", "dog", "eel"])
    weights = np.ones(450, np.float32)
    est = tf.estimator.DNNClassifier(
        [16, 8], [fc.numeric_column("x", shape=(2,))], model_dir=str(tmp_path), n_classes=3,
        label_vocabulary=["cat", "dog", "eel"], weight_column="w",
        optimizer=tf.train.AdagradOptimizer(0.3), dropout=0.1)
    m = _train_eval(est, {"x": x, "w": weights}, names[label_id], epochs=8)
    assert m["accuracy"] > 0.9, m
    assert "auc" not in m and m["average_loss"] < 0.4
    got = est.get_variable_value([n for n in _var_names(est)
                                  if n.startswith("dnn/hiddenlayer_0/kernel")][0])
    assert got.shape == (2, 16)
    assert any(n.startswith("dnn/logits/bias") for n in _var_names(est))
    p = next(est.predict(inputs.numpy_input_fn({"x": x[:1], "w": weights[:1]}, shuffle=False)))
    assert set(p) == {"logits", "probabilities", "class_ids", "classes"}
    assert p["classes"][0] == names[p["class_ids"][0]].encode()
    assert abs(p["probabilities"].sum() - 1) < 1e-5


def test_dnn_regressor_and_embedding_inputs(tmp_path):
    rng = np.random.RandomState(3)
    cat = rng.randint(0, 5, 300)
    y = (cat * 1.5 - 2).astype(np.float32)
    col = fc.embedding_column(fc.categorical_column_with_identity("c", 5), 3)
    # A fixed graph seed: the initial embedding and the shuffling are the same each run.
    est = tf.estimator.DNNRegressor([8], [col], model_dir=str(tmp_path),
                                    optimizer=tf.train.AdamOptimizer(0.05),
                                    config=tf.estimator.RunConfig(tf_random_seed=11))
    m = _train_eval(est, {"c": cat.astype(np.int64)}, y, epochs=10)
    assert m["average_loss"] < 0.1, m
    assert any(n.startswith("dnn/input_from_feature_columns/input_layer/c_embedding/"
                            "embedding_weights") for n in _var_names(est))


def test_dnn_linear_combined_classifier(tmp_path):
    feats, y = _binary_data(500, seed=4)
    cat = fc.categorical_column_with_hash_bucket("cat", 16)
    est = tf.estimator.DNNLinearCombinedClassifier(
        model_dir=str(tmp_path),
        linear_feature_columns=[cat, fc.crossed_column(["cat", "cat"], 32)],
        linear_optimizer=tf.train.GradientDescentOptimizer(0.05),
        dnn_feature_columns=[fc.numeric_column("x1"), fc.numeric_column("x2"),
                             fc.embedding_column(cat, 2)],
        dnn_hidden_units=[8], dnn_optimizer=tf.train.AdagradOptimizer(0.2))
    m = _train_eval(est, feats, y, epochs=6)
    assert m["accuracy"] > 0.9 and m["auc"] > 0.95, m
    names = _var_names(est)
    assert any(n.startswith("linear/linear_model/cat/weights") for n in names)
    assert any(n.startswith("linear/linear_model/cat_X_cat/weights") for n in names)
    assert any(n.startswith("dnn/hiddenlayer_0/kernel") for n in names)
    steps = 6 * 500 // 32 + (1 if 6 * 500 % 32 else 0)
    assert m["global_step"] == steps  # both optimizers, one increment per step


def test_canned_argument_errors(tmp_path):
    cols = [fc.numeric_column("x")]
    with pytest.raises(ValueError, match="n_classes"):
        tf.estimator.LinearClassifier(cols, n_classes=1)
    with pytest.raises(ValueError, match="Unsupported optimizer name"):
        tf.estimator.DNNClassifier([4], cols, optimizer="Nope")
    with pytest.raises(ValueError, match="label_vocabulary"):
        tf.estimator.LinearClassifier(cols, n_classes=3, label_vocabulary=["a", "b"],
                                      optimizer="SGD")
    with pytest.raises(ValueError, match="must be dense"):
        tf.estimator.DNNClassifier([4], [fc.categorical_column_with_identity("i", 3)])
    with pytest.raises(ValueError, match="Either linear_feature_columns"):
        tf.estimator.DNNLinearCombinedRegressor()
    with pytest.raises(ValueError, match="shuffle"):
        inputs.numpy_input_fn({"x": np.zeros(3)})
    with pytest.raises(ValueError, match="mismatched"):
        inputs.numpy_input_fn({"x": np.zeros(3)}, np.zeros(4), shuffle=False)


def test_labels_out_of_range_fail_the_step(tmp_path):
    est = tf.estimator.LinearClassifier([fc.numeric_column("x")], model_dir=str(tmp_path),
                                        optimizer="SGD")
    fn = inputs.numpy_input_fn({"x": np.zeros(4, np.float32)}, np.array([0, 1, 2, 1]),
                               batch_size=4, shuffle=False)
    with pytest.raises(tf.errors.InvalidArgumentError, match="class ids"):
        est.train(fn)


def test_wide_deep_example_learns(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    proc = subprocess.run(
        [sys.executable, os.path.join(root, "examples", "wide_deep.py"),
         "--model_dir", str(tmp_path / "m"), "--data_dir", str(tmp_path / "d"),
         "--train_rows", "3000", "--eval_rows", "1000", "--max_steps", "80",
         "--batch_size", "128", "--hash_buckets", "100", "--hidden_units", "32,16",
         "--save_checkpoints_steps", "80"],
        capture_output=True, text=True, timeout=600, env=env, cwd=root)
    assert proc.returncode == 0, proc.stderr[-3000:]
    m = re.search(r"AUC: ([0-9.]+)", proc.stdout)
    assert m, proc.stdout
    assert float(m.group(1)) > 0.65, proc.stdout
    header = open(tmp_path / "d" / "train-3000-7.csv").readline().rstrip("\n").split(",")
    assert len(header) == 40 and header[0] in ("0", "1")
    # Its final export is TensorFlow's SavedModel, of TensorFlow's ops only (the fused
    # categorical-feature ops written as TensorFlow's).
    (export,) = glob.glob(str(tmp_path / "m" / "export" / "wide_deep" / "*" / "saved_model.pb"))
    assert f"exported the model to {os.path.dirname(export)}" in proc.stdout
    with open(export, "rb") as f:
        (meta,) = saved_model_pb2.SavedModel.FromString(f.read()).meta_graphs
    assert {"SparseCross", "Unique", "SparseSegmentMeanWithNumSegments"} <= \
        assert_tensorflow_graph(meta.graph_def)


def test_evaluator_partitions_like_the_training_cluster(monkeypatch):
    from tensorfleet.estimator.canned.linear import num_ps_tasks
    cluster = {"chief": ["h0:1"], "ps": ["h1:1", "h2:1"], "worker": ["h3:1"]}
    for role in ("evaluator", "worker"):
        monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": cluster,
                                                    "task": {"type": role, "index": 0}}))
        assert num_ps_tasks(tf.estimator.RunConfig()) == 2
    monkeypatch.delenv("TF_CONFIG")
    assert num_ps_tasks(tf.estimator.RunConfig()) == 0
