"""tf.saved_model and Estimator.export_saved_model: a model exported here loads in a
fresh process and predicts exactly what the estimator predicts."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tensorfleet as tf

fc = tf.feature_column
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Loads a SavedModel and runs one signature; prints every output as JSON.
_LOADER = textwrap.dedent("""
    import base64, json, sys
    import numpy as np
    import tensorfleet as tf
    export_dir, signature, feed_json = sys.argv[1], sys.argv[2], sys.argv[3]
    feed = json.loads(feed_json)
    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING],
                                          export_dir)
        sig = meta.signature_def[signature]
        values = {}
        for key, info in sig.inputs.items():
            v = feed[key]
            values[info.name] = [base64.b64decode(s) for s in v] if info.dtype == tf.string \\
                else np.asarray(v, dtype=info.dtype.as_numpy_dtype)
        out = sess.run({k: v.name for k, v in sig.outputs.items()}, values)
    print(json.dumps({"signatures": sorted(meta.signature_def),
                      "method": sig.method_name,
                      "outputs": {k: np.asarray(v).astype(object if v.dtype == object else float)
                                  .tolist() if v.dtype != object else
                                  [[x.decode() for x in row] for row in v]
                                  for k, v in out.items()}}))
""")


def _load_in_fresh_process(export_dir, signature, feed):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", _LOADER, export_dir, signature,
                           json.dumps(feed)], capture_output=True, text=True, timeout=300,
                          env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _examples(x1, cat):
    import base64
    out = []
    for a, c in zip(x1, cat):
        ex = tf.train.Example(features=tf.train.Features(feature={
            "x1": tf.train.Feature(float_list=tf.train.FloatList(value=[float(a)])),
            "cat": tf.train.Feature(bytes_list=tf.train.BytesList(value=[c.encode()]))}))
        out.append(base64.b64encode(ex.SerializeToString()).decode())
    return out


@pytest.fixture
def trained(tmp_path):
    rng = np.random.RandomState(0)
    x1 = rng.randn(300).astype(np.float32)
    cat = np.array(["a", "b", "c"])[rng.randint(0, 3, 300)]
    y = ((x1 + (cat == "a") * 1.5 - 0.3) > 0).astype(np.int64)
    cat_col = fc.categorical_column_with_hash_bucket("cat", 11)
    cols = [fc.numeric_column("x1"), fc.embedding_column(cat_col, 2)]
    est = tf.estimator.DNNLinearCombinedClassifier(
        model_dir=str(tmp_path / "model"), linear_feature_columns=[cat_col],
        linear_optimizer="SGD", dnn_feature_columns=cols, dnn_hidden_units=[4],
        dnn_optimizer=tf.train.AdagradOptimizer(0.2))
    est.train(tf.estimator.inputs.numpy_input_fn({"x1": x1, "cat": cat}, y, batch_size=50,
                                                 num_epochs=2, shuffle=True))
    return est, fc.make_parse_example_spec(cols + [cat_col]), x1[:4], cat[:4]


def test_parsing_export_predicts_identically_in_fresh_process(trained, tmp_path):
    est, spec, x1, cat = trained
    export_dir = est.export_saved_model(
        str(tmp_path / "export"),
        tf.estimator.export.build_parsing_serving_input_receiver_fn(spec))
    assert isinstance(export_dir, bytes) and os.path.isdir(export_dir)
    assert tf.saved_model.maybe_saved_model_directory(export_dir)
    expected = list(est.predict(tf.estimator.inputs.numpy_input_fn(
        {"x1": x1, "cat": cat}, shuffle=False)))
    got = _load_in_fresh_process(export_dir.decode(), "predict",
                                 {"examples": _examples(x1, cat)})
    assert got["signatures"] == ["classification", "predict", "regression", "serving_default"]
    assert got["method"] == "tensorflow/serving/predict"
    np.testing.assert_array_equal(np.array(got["outputs"]["logits"], np.float32),
                                  np.stack([p["logits"] for p in expected]))
    assert got["outputs"]["classes"] == [[p["classes"][0].decode()] for p in expected]
    served = _load_in_fresh_process(export_dir.decode(), "serving_default",
                                    {"inputs": _examples(x1, cat)})
    assert served["method"] == "tensorflow/serving/classify"
    np.testing.assert_array_equal(np.array(served["outputs"]["scores"], np.float32),
                                  np.stack([p["probabilities"] for p in expected]))
    assert served["outputs"]["classes"] == [["0", "1"]] * 4


def test_raw_receiver_exports_predict_signature_only(trained, tmp_path):
    est, _, x1, cat = trained
    receiver = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x1": tf.placeholder(tf.float32, [None]), "cat": tf.placeholder(tf.string, [None])})
    export_dir = est.export_savedmodel(str(tmp_path / "raw"), receiver)
    expected = list(est.predict(tf.estimator.inputs.numpy_input_fn(
        {"x1": x1, "cat": cat}, shuffle=False)))
    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], export_dir)
        assert sorted(meta.signature_def) == ["predict"]
        sig = meta.signature_def["predict"]
        out = sess.run(sig.outputs["logistic"].name,
                       {sig.inputs["x1"].name: x1, sig.inputs["cat"].name: cat})
    np.testing.assert_array_equal(out, np.stack([p["logistic"] for p in expected]))


def test_builder_and_simple_save_round_trip(tmp_path):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable([[1.5], [-2.0]], name="w")
    part = tf.get_variable("p", [4, 1], partitioner=tf.fixed_size_partitioner(2),
                           initializer=tf.constant_initializer(0.5))
    y = tf.add(tf.matmul(x, w), tf.reduce_sum(part), name="y")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(w, [[3.0], [4.0]]))
        tf.saved_model.simple_save(sess, str(tmp_path / "m"), {"x": x}, {"y": y})
    got = _load_in_fresh_process(str(tmp_path / "m"), "serving_default",
                                 {"x": [[1.0, 1.0], [2.0, 0.0]]})
    assert got["outputs"]["y"] == [[9.0], [8.0]]


def test_builder_and_loader_errors(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "f").write_text("x")
    with pytest.raises(AssertionError, match="isn't empty"):
        tf.saved_model.builder.SavedModelBuilder(str(tmp_path / "full"))
    builder = tf.saved_model.builder.SavedModelBuilder(str(tmp_path / "m"))
    with pytest.raises(AssertionError, match="add_meta_graph_and_variables"):
        builder.add_meta_graph(["serve"])
    v = tf.Variable(1.0, name="v")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        builder.add_meta_graph_and_variables(sess, [tf.saved_model.tag_constants.TRAINING])
        with pytest.raises(AssertionError, match="already been saved"):
            builder.add_meta_graph_and_variables(sess, ["serve"])
    builder.add_meta_graph(["serve"])
    builder.save()
    with tf.Session(graph=tf.Graph()) as sess:
        with pytest.raises(RuntimeError, match="could not be found"):
            tf.saved_model.loader.load(sess, ["gpu"], str(tmp_path / "m"))
        meta = tf.saved_model.loader.load(sess, ["train"], str(tmp_path / "m"))
        assert meta.meta_info_def.tags == ["train"]
        assert sess.run(v.op.name + ":0") == 1.0
    with pytest.raises(OSError, match="does not exist"):
        tf.saved_model.loader.load(tf.Session(graph=tf.Graph()), ["serve"], str(tmp_path))


def test_signature_helpers_and_export_outputs():
    ex = tf.placeholder(tf.string, [None])
    scores = tf.placeholder(tf.float32, [None, 2])
    sig = tf.saved_model.signature_def_utils.classification_signature_def(ex, None, scores)
    assert sig.method_name == tf.saved_model.signature_constants.CLASSIFY_METHOD_NAME
    assert tf.saved_model.signature_def_utils.is_valid_signature(sig)
    assert tf.saved_model.utils.build_tensor_info(scores).tensor_shape.as_list() == [None, 2]
    with pytest.raises(ValueError, match="single string Tensor"):
        tf.estimator.export.ClassificationOutput(scores=scores).as_signature_def(
            {"a": ex, "b": ex})
    with pytest.raises(ValueError, match="float32"):
        tf.estimator.export.RegressionOutput(value=ex)
    out = tf.estimator.export.PredictOutput(scores)
    assert list(out.as_signature_def({"in": ex}).outputs) == ["output"]
