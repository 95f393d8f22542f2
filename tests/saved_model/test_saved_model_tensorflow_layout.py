"""SavedModels are also written in TensorFlow's layout (saved_model.pb + variables/).

TensorFlow's own loader loads them with tensorfleet's predictions: checked by
tests/fixtures/tf_files/make_fixtures.py (see docs/interop.md). Here, without
TensorFlow, the files are read back through tensorfleet's readers of the formats.
"""

import os
import sys

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet import errors
from tensorfleet.protos import saved_model_pb2
from tensorfleet.platform import tensor_bundle as bundle

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "fixtures", "tf_files"))
import interop_model as m  # noqa: E402

v1 = tf.compat.v1


def test_simple_save_writes_tensorflows_layout(tmp_path):
    export_dir = str(tmp_path / "sm")
    with tf.Graph().as_default():
        t = m.build(v1)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            values = {v.op.name: sess.run(v) for v in v1.global_variables()}
            tf.saved_model.simple_save(sess, export_dir, {"x": t["x"], "ids": t["ids"]},
                                       {"logits": t["logits"]})
    assert sorted(os.listdir(export_dir)) == ["saved_model.json", "saved_model.pb", "variables"]
    sm = saved_model_pb2.SavedModel.FromString(
        open(os.path.join(export_dir, "saved_model.pb"), "rb").read())
    assert sm.saved_model_schema_version == 1 and len(sm.meta_graphs) == 1
    mg = sm.meta_graphs[0]
    assert list(mg.meta_info_def.tags) == ["serve"]
    sig = mg.signature_def["serving_default"]
    assert sig.method_name == "tensorflow/serving/predict"
    assert sig.inputs["x"].name == "x:0" and sig.inputs["x"].dtype == 1
    assert [d.size for d in sig.inputs["x"].tensor_shape.dim] == [-1, 6, 6, 1]
    assert sig.outputs["logits"].name == t["logits"].name
    nodes = {n.name: n for n in mg.graph_def.node}
    # Every global variable (as TensorFlow saves them) and what the signature reads;
    # no training step and none of tensorfleet's own checkpoint ops.
    assert not any(n.op in ("ApplyAdam", "SparseApplyAdam", "SaveBundleShard", "RestoreShard")
                   for n in mg.graph_def.node)
    saver = mg.saver_def
    restore = nodes[saver.restore_op_name]
    assert restore.op == "NoOp" and saver.filename_tensor_name == "save/Const:0"
    assigns = [nodes[i[1:]] for i in restore.input]
    restored = {nodes[a.input[0]].name for a in assigns}
    model_vars = {n.name for n in mg.graph_def.node if n.op == "VariableV2"}
    assert restored == model_vars == set(values)
    assert {"conv/kernel", "embedding/part_1", "dense/bias/Adam_1", "beta2_power"} <= model_vars
    assert nodes["save/RestoreV2"].op == "RestoreV2"
    # The variables, as a tensor bundle, under the names the restore op reads.
    index = bundle.read_index(os.path.join(export_dir, "variables", "variables"))
    for name in model_vars:
        np.testing.assert_array_equal(index.read(name), values[name])
        assert index.read(name).shape == np.shape(values[name])


def test_tensorflow_saved_model_loads_for_inference_with_its_predictions():
    """tf_saved_model/ was written by TensorFlow 2.21's simple_save (make_fixtures.py)
    from the interop model at the checkpoint's step; its variables are resource
    variables, an embedding partitioned in two among them."""
    expected = np.load(os.path.join(ROOT, "fixtures", "tf_files", "expected.npz"))
    export_dir = os.path.join(ROOT, "fixtures", "tf_files", "tf_saved_model")
    assert tf.saved_model.maybe_saved_model_directory(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], export_dir)
        sig = meta.signature_def["serving_default"]
        assert sig.method_name == "tensorflow/serving/predict"
        assert sig.inputs["x"].dtype is tf.float32 and sig.inputs["x"].name == "x:0"
        got = sess.run(sig.outputs["logits"].name, {sig.inputs["x"].name: expected["x"],
                                                    sig.inputs["ids"].name: expected["ids"]})
        ops = {op.type for op in sess.graph.get_operations()}
    np.testing.assert_allclose(got, expected["preds"], rtol=1e-6, atol=1e-6)
    # Only what serving needs was built: no optimizer, no saver.
    assert not ops & {"ResourceApplyAdam", "SaveV2", "RestoreV2", "VarHandleOp"}
    with tf.Session(graph=tf.Graph()) as sess:
        with pytest.raises(RuntimeError, match="could not be found"):
            tf.saved_model.loader.load(sess, ["train"], export_dir)


def test_damaged_saved_model_pb_is_refused_naming_it(tmp_path):
    import shutil
    src = os.path.join(ROOT, "fixtures", "tf_files", "tf_saved_model")
    export_dir = str(tmp_path / "sm")
    shutil.copytree(src, export_dir)
    path = os.path.join(export_dir, "saved_model.pb")
    data = open(path, "rb").read()
    with open(path, "wb") as f:
        f.write(data[:len(data) // 2 + 3])
    with tf.Session(graph=tf.Graph()) as sess:
        with pytest.raises(errors.InvalidArgumentError, match="is not a SavedModel") as e:
            tf.saved_model.loader.load(sess, ["serve"], export_dir)
    assert path in str(e.value)


def test_estimator_export_has_tensorflows_layout_with_its_signatures(tmp_path):
    """What TensorFlow's loader serves (make_fixtures.py check-estimator, docs/interop.md),
    read back here through the TensorFlow-layout reader."""
    from tensorfleet.saved_model import tensorflow_layout
    import export_tensorfleet_estimator

    export_dir = export_tensorfleet_estimator.export(str(tmp_path))
    expected = np.load(os.path.join(str(tmp_path), "estimator_expected.npz"))
    with tf.Session(graph=tf.Graph()) as sess:
        tags, sigs = tensorflow_layout.load_tensorflow_saved_model(sess, ["serve"], export_dir)
        assert sorted(sigs) == ["classification", "predict", "regression", "serving_default"]
        for key, out in (("predict", "probabilities"), ("serving_default", "scores")):
            (inp,) = sigs[key].inputs.values()
            got = sess.run(sigs[key].outputs[out].name, {inp.name: list(expected["examples"])})
            np.testing.assert_allclose(got, expected["probabilities"], rtol=1e-6, atol=1e-6)
        assert sigs["serving_default"].method_name == "tensorflow/serving/classify"


def test_graph_with_ops_tensorflow_lacks_keeps_tensorfleets_layout_and_says_so(tmp_path, caplog):
    import logging
    export_dir = str(tmp_path / "sm")
    with tf.Graph().as_default():
        ids = tf.sparse_placeholder(tf.int64, [None, 2], name="ids")
        emb = tf.Variable(np.ones((5, 2), np.float32), name="emb")
        out = tf.nn.embedding_lookup_sparse(emb, ids, None, combiner="mean")
        with tf.Session() as sess:
            sess.run(emb.initializer)
            with caplog.at_level(logging.WARNING, logger="tensorfleet.saved_model.builder"):
                tf.saved_model.simple_save(sess, export_dir, {"ids": ids.values},
                                           {"out": out})
    assert "saved_model.pb" not in os.listdir(export_dir)
    (msg,) = [r.getMessage() for r in caplog.records if "TensorFlow's layout" in r.getMessage()]
    assert "have no TensorFlow form here" in msg
