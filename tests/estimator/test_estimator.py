"""tf.estimator: RunConfig from TF_CONFIG, metrics, Estimator on digits, and
train_and_evaluate with a chief, a worker, a ps and an evaluator as real processes."""

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.cluster import free_ports

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")
CLUSTER = {"chief": ["h0:2222"], "worker": ["h1:2222", "h2:2222"], "ps": ["h3:2222"]}


@pytest.fixture
def digits_example():
    sys.path.insert(0, EXAMPLES)
    try:
        import estimator_digits
        yield estimator_digits
    finally:
        sys.path.remove(EXAMPLES)


def _set_tf_config(monkeypatch, task_type, index=0, cluster=CLUSTER):
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": cluster,
                                                "task": {"type": task_type, "index": index}}))


def test_run_config_roles_from_tf_config(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    local = tf.estimator.RunConfig()
    assert (local.task_type, local.is_chief, local.master, local.num_ps_replicas,
            local.num_worker_replicas, local.save_checkpoints_secs) == ("worker", True, "", 0, 1,
                                                                        600)
    _set_tf_config(monkeypatch, "worker", 1)
    w = tf.estimator.RunConfig(save_checkpoints_steps=10)
    assert (w.task_type, w.task_id, w.is_chief, w.master) == ("worker", 1, False,
                                                              "grpc://h2:2222")
    assert (w.num_ps_replicas, w.num_worker_replicas, w.global_id_in_cluster) == (1, 3, 2)
    assert w.save_checkpoints_steps == 10 and w.save_checkpoints_secs is None
    _set_tf_config(monkeypatch, "chief")
    c = tf.estimator.RunConfig()
    assert c.is_chief and c.global_id_in_cluster == 0 and c.master == "grpc://h0:2222"
    _set_tf_config(monkeypatch, "evaluator")
    e = tf.estimator.RunConfig(model_dir="/tmp/m")
    assert (e.is_chief, e.master, e.num_worker_replicas, e.model_dir) == (False, "", 0, "/tmp/m")
    assert "evaluator" not in e.cluster_spec.jobs
    assert e.replace(keep_checkpoint_max=2).keep_checkpoint_max == 2
    with pytest.raises(ValueError):
        tf.estimator.RunConfig(save_checkpoints_steps=1, save_checkpoints_secs=1)
    _set_tf_config(monkeypatch, "worker", 0, {"worker": ["h1:1"], "ps": ["h3:1"]})
    with pytest.raises(ValueError, match="chief"):
        tf.estimator.RunConfig()


def test_metrics_accumulate_over_batches():
    labels = tf.placeholder(tf.int64, [None])
    preds = tf.placeholder(tf.int64, [None])
    acc, acc_update = tf.metrics.accuracy(labels, preds)
    mean, mean_update = tf.metrics.mean(tf.cast(labels, tf.float32), weights=[1.0, 3.0])
    assert all(v in tf.local_variables() for v in tf.get_collection("metric_variables"))
    assert not tf.global_variables()
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(acc) == 0.0
        sess.run([acc_update, mean_update], {labels: [1, 2], preds: [1, 0]})
        sess.run([acc_update, mean_update], {labels: [3, 4], preds: [3, 4]})
        assert sess.run(acc) == pytest.approx(0.75)
        assert sess.run(mean) == pytest.approx((1 + 6 + 3 + 12) / 8)


def test_estimator_spec_checks_its_mode():
    loss = tf.constant(1.0)
    with pytest.raises(ValueError, match="train_op"):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.TRAIN, loss=loss)
    with pytest.raises(ValueError, match="predictions"):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.PREDICT)
    with pytest.raises(TypeError, match="update_op"):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL, loss=loss,
                                   eval_metric_ops={"acc": loss})


def test_estimator_trains_evaluates_and_predicts_digits(tmp_path, monkeypatch, digits_example):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    train_fn, eval_fn = digits_example.make_input_fns(batch_size=32, seed=1)
    config = tf.estimator.RunConfig(tf_random_seed=1, save_checkpoints_steps=100,
                                    save_summary_steps=0, log_step_count_steps=0)
    est = tf.estimator.Estimator(digits_example.model_fn, model_dir=str(tmp_path), config=config,
                                 params={"hidden": 32, "learning_rate": 0.2})
    start = time.time()
    est.train(train_fn, max_steps=250)
    metrics = est.evaluate(eval_fn)
    assert metrics["global_step"] == 250
    assert metrics["accuracy"] > 0.9, metrics
    assert metrics["loss"] < 0.5, metrics
    est.train(train_fn, max_steps=250)  # already there: nothing to do
    assert est.get_variable_value("global_step") == 250
    est.train(train_fn, steps=20)
    assert est.evaluate(eval_fn, steps=1)["global_step"] == 270

    _, _, x_test, y_test = digits_example.load_digits_split()

    def predict_fn():
        return tf.data.Dataset.from_tensor_slices({"pixels": x_test[:10].reshape(10, 64)}).batch(4)

    preds = list(est.predict(predict_fn, predict_keys=["classes"]))
    assert len(preds) == 10 and set(preds[0]) == {"classes"}
    labels = y_test[:10]
    assert np.mean([p["classes"] for p in preds] == labels) >= 0.8
    assert time.time() - start < 60


def test_train_and_evaluate_without_tf_config(tmp_path, monkeypatch, digits_example):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    train_fn, eval_fn = digits_example.make_input_fns(batch_size=32, seed=2)
    est = tf.estimator.Estimator(
        digits_example.model_fn, model_dir=str(tmp_path),
        config=tf.estimator.RunConfig(save_summary_steps=0, log_step_count_steps=0),
        params={"hidden": 16, "learning_rate": 0.2})
    metrics, exports = tf.estimator.train_and_evaluate(
        est, tf.estimator.TrainSpec(train_fn, max_steps=60),
        tf.estimator.EvalSpec(eval_fn, steps=None))
    assert metrics["global_step"] == 60 and exports == []
    assert 0.0 <= metrics["accuracy"] <= 1.0


def test_train_and_evaluate_with_chief_worker_ps_and_evaluator(tmp_path):
    ports = free_ports(3)
    cluster = {"chief": [f"localhost:{ports[0]}"], "worker": [f"localhost:{ports[1]}"],
               "ps": [f"localhost:{ports[2]}"]}
    model_dir, results = tmp_path / "model", tmp_path / "eval.json"
    max_steps = 150
    procs = {}
    logs = {}
    try:
        for role in ("ps", "chief", "worker", "evaluator"):
            env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
                       TENSORFLEET_LOG_LEVEL="info",  # the evaluator's lines checked below
                       OPENBLAS_NUM_THREADS="1",
                       TF_CONFIG=json.dumps({"cluster": cluster,
                                             "task": {"type": role, "index": 0}}))
            logs[role] = open(tmp_path / f"{role}.log", "w")
            procs[role] = subprocess.Popen(
                [sys.executable, os.path.join(EXAMPLES, "estimator_digits.py"),
                 "--model_dir", str(model_dir), "--max_steps", str(max_steps),
                 "--save_checkpoints_steps", "50", "--throttle_secs", "0.5",
                 "--save_summary_steps", "0", "--log_step_count_steps", "0",
                 "--max_wait_secs", "100", "--results_file", str(results)],
                cwd=EXAMPLES, env=env, stdout=logs[role], stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        for role, proc in procs.items():
            rc = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
            assert rc == 0, f"{role} exited {rc}:\n{(tmp_path / f'{role}.log').read_text()}"
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        for f in logs.values():
            f.close()
    final = json.loads(results.read_text())
    assert final["global_step"] >= max_steps, final
    assert final["accuracy"] > 0.8, final
    evaluator_log = (tmp_path / "evaluator.log").read_text()
    assert f"Exiting evaluation, global_step={int(final['global_step'])}" in evaluator_log
    assert "reported done (2/2)" in (tmp_path / "ps.log").read_text()
