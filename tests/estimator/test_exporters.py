"""tf.estimator exporters: LatestExporter, FinalExporter and BestExporter write
<model_dir>/export/<name>/<timestamp> SavedModels from train_and_evaluate, keep the
newest exports_to_keep, and what they write loads and predicts as the estimator does."""

import os

import numpy as np
import pytest

import tensorfleet as tf

X = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], np.float32)
Y = np.array([[1.0], [2.0], [0.0]], np.float32)


def _model_fn(features, labels, mode):
    w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    pred = tf.matmul(features["x"], w) + b
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"y": pred})
    loss = tf.reduce_mean(tf.square(pred - labels))
    train = tf.train.GradientDescentOptimizer(0.05).minimize(
        loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, predictions={"y": pred}, loss=loss, train_op=train)


def _input_fn():
    return {"x": tf.constant(X)}, tf.constant(Y)


def _receiver():
    return tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.placeholder(tf.float32, [None, 2])})


def _stamps(path):
    return sorted(int(d) for d in os.listdir(path) if d.isdigit())


def _serve(export_dir, x):
    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING],
                                          export_dir)
        sig = meta.signature_def["serving_default"]
        return sess.run(sig.outputs["y"].name, {sig.inputs["x"].name: x})


@pytest.fixture
def est(tmp_path):
    e = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path / "model"))
    e.train(_input_fn, steps=2)
    return e


def test_train_and_evaluate_runs_every_exporter(tmp_path):
    est = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path / "model"))
    exporters = [tf.estimator.LatestExporter("latest", _receiver()),
                 tf.estimator.FinalExporter("final", _receiver()),
                 tf.estimator.BestExporter("best", _receiver())]
    metrics, results = tf.estimator.train_and_evaluate(
        est, tf.estimator.TrainSpec(_input_fn, max_steps=3),
        tf.estimator.EvalSpec(_input_fn, steps=1, exporters=exporters))
    assert metrics["global_step"] == 3
    assert len(results) == 3
    for name, result in zip(["latest", "final", "best"], results):
        base = os.path.join(est.model_dir, "export", name)
        assert [os.path.join(base, str(s)) for s in _stamps(base)] == [result.decode()]
        assert tf.saved_model.maybe_saved_model_directory(result)
    batches = est.predict(lambda: {"x": tf.constant(X)}, yield_single_examples=False)
    expected = next(batches)["y"]
    batches.close()
    np.testing.assert_allclose(_serve(results[0], X), expected, rtol=1e-6)
    assert np.abs(expected).sum() > 0


def test_latest_exporter_keeps_the_newest(est, tmp_path):
    exporter = tf.estimator.LatestExporter("latest", _receiver(), exports_to_keep=2)
    path = str(tmp_path / "export" / "latest")
    dirs = [exporter.export(est, path, est.latest_checkpoint(), {"loss": 1.0}, False)
            for _ in range(3)]
    assert _stamps(path) == sorted(int(os.path.basename(d)) for d in dirs[1:])
    assert not os.path.exists(dirs[0])
    np.testing.assert_allclose(_serve(dirs[-1], X[:1]), _serve(dirs[1], X[:1]))


def test_final_exporter_only_exports_the_final_evaluation(est, tmp_path):
    exporter = tf.estimator.FinalExporter("final", _receiver())
    path = str(tmp_path / "export" / "final")
    assert exporter.export(est, path, None, {"loss": 1.0}, False) is None
    assert not os.path.exists(path)
    out = exporter.export(est, path, None, {"loss": 1.0}, True)
    assert _stamps(path) == [int(os.path.basename(out))]


def test_best_exporter_exports_only_improvements(est, tmp_path):
    exporter = tf.estimator.BestExporter("best", _receiver(), event_file_pattern=None,
                                         exports_to_keep=1)
    path = str(tmp_path / "export" / "best")
    ckpt = est.latest_checkpoint()
    first = exporter.export(est, path, ckpt, {"loss": 1.0, "global_step": 1}, False)
    assert first is not None
    assert exporter.export(est, path, ckpt, {"loss": 2.0, "global_step": 2}, False) is None
    better = exporter.export(est, path, ckpt, {"loss": 0.5, "global_step": 3}, False)
    assert better is not None
    assert _stamps(path) == [int(os.path.basename(better))]
    with pytest.raises(ValueError, match="loss"):
        exporter.export(est, path, ckpt, {"accuracy": 0.5}, False)
    by_accuracy = tf.estimator.BestExporter(
        "acc", _receiver(), event_file_pattern=None,
        compare_fn=lambda best, cur: cur["accuracy"] > best["accuracy"])
    apath = str(tmp_path / "export" / "acc")
    assert by_accuracy.export(est, apath, ckpt, {"accuracy": 0.5}, False) is not None
    assert by_accuracy.export(est, apath, ckpt, {"accuracy": 0.4}, False) is None


def test_best_exporter_seeds_from_earlier_evaluations(est, tmp_path):
    loss = est.evaluate(_input_fn, steps=1)["loss"]  # writes <model_dir>/eval events
    exporter = tf.estimator.BestExporter("best", _receiver())
    path = str(tmp_path / "export" / "best")
    assert exporter.export(est, path, None, {"loss": loss * 1.5}, False) is None
    assert exporter.export(est, path, None, {"loss": loss * 0.5}, False) is not None


def test_bad_exporters_raise(tmp_path):
    latest = tf.estimator.LatestExporter("a", _receiver())
    with pytest.raises(TypeError, match="Exporter"):
        tf.estimator.EvalSpec(_input_fn, exporters=[latest, "b"])
    with pytest.raises(ValueError, match="unique"):
        tf.estimator.EvalSpec(_input_fn, exporters=[latest, tf.estimator.FinalExporter(
            "a", _receiver())])
    assert tf.estimator.EvalSpec(_input_fn, exporters=latest).exporters == (latest,)
    with pytest.raises(ValueError, match="exports_to_keep"):
        tf.estimator.LatestExporter("a", _receiver(), exports_to_keep=0)
    with pytest.raises(ValueError, match="callable"):
        tf.estimator.FinalExporter("a", None)
    with pytest.raises(ValueError, match="non-empty"):
        tf.estimator.LatestExporter("", _receiver())


def test_evaluator_exports_after_each_evaluation(est):
    from tensorfleet.estimator import training
    exporters = [tf.estimator.LatestExporter("latest", _receiver()),
                 tf.estimator.FinalExporter("final", _receiver())]
    metrics, results = training._run_evaluator(
        est, tf.estimator.TrainSpec(_input_fn, max_steps=2),
        tf.estimator.EvalSpec(_input_fn, steps=1, exporters=exporters, start_delay_secs=0,
                              throttle_secs=0, max_wait_secs=5))
    assert metrics["global_step"] == 2
    assert all(r is not None for r in results)  # step 2 is the final evaluation
    assert [os.path.basename(os.path.dirname(r.decode())) for r in results] == ["latest",
                                                                               "final"]


def test_custom_exporter_subclass_is_called_by_train_and_evaluate(tmp_path):
    calls = []

    class Recorder(tf.estimator.Exporter):
        @property
        def name(self):
            return "recorder"

        def export(self, estimator, export_path, checkpoint_path, eval_result,
                   is_the_final_export):
            calls.append((export_path, checkpoint_path, eval_result["global_step"],
                          is_the_final_export))
            return "done"

    with pytest.raises(TypeError):
        tf.estimator.Exporter()
    est = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path / "m"))
    _, results = tf.estimator.train_and_evaluate(
        est, tf.estimator.TrainSpec(_input_fn, max_steps=1),
        tf.estimator.EvalSpec(_input_fn, steps=1, exporters=Recorder()))
    assert results == ["done"]
    assert calls == [(os.path.join(est.model_dir, "export", "recorder"),
                      est.latest_checkpoint(), 1, True)]
