""".meta files as TensorFlow's MetaGraphDef, both ways (fixtures written by TensorFlow
2.21 with tests/fixtures/tf_files/make_fixtures.py; no TensorFlow needed here)."""

import os
import sys

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.protos import meta_graph_pb2, variable_pb2
from tensorfleet.training import meta_graph_def
from tests.framework.tensorflow_op_set import assert_tensorflow_graph

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "fixtures", "tf_files")
TF_META = os.path.join(FIXTURES, "tf_meta")
sys.path.insert(0, FIXTURES)
import meta_model  # noqa: E402


def _train_imported(meta, prefix, feed_values):
    """Imports ``meta``, restores ``prefix`` through the imported saver, returns the
    predictions and every variable after one run of the imported train op."""
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(meta)
        # minimize() adds the train op to the collection, and so does the model.
        train = tf.get_collection("train_op")[0]
        feed = {"x:0": feed_values["x"], "y:0": feed_values["y"]}
        with tf.Session() as s:
            saver.restore(s, prefix)
            preds = s.run("pred:0", feed)
            s.run(train, feed)
            after = {v.op.name: s.run(v) for v in tf.global_variables()}
    return preds, after


def _check_after(after, expected):
    names = {k[len("after/"):] for k in expected.files if k.startswith("after/")}
    assert set(after) == names
    for name in names:
        np.testing.assert_allclose(after[name], expected["after/" + name], atol=1e-5,
                                   err_msg=name)


@pytest.mark.parametrize("meta", ["model.ckpt-2.meta", "model_text.meta"])
def test_tensorflow_meta_graph_restores_and_trains(meta):
    expected = np.load(os.path.join(TF_META, "expected.npz"))
    preds, after = _train_imported(os.path.join(TF_META, meta),
                                   os.path.join(TF_META, "model.ckpt-2"), expected)
    np.testing.assert_allclose(preds, expected["preds"], atol=1e-6)
    # The next Adam step: variables, slots, beta powers and the global step as TensorFlow's.
    _check_after(after, expected)
    assert int(after["global_step"]) == 3


def test_tensorflow_meta_graph_collections():
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(os.path.join(TF_META, "model.ckpt-2.meta"),
                                   import_scope="imported")
        trainable = [v.op.name for v in tf.trainable_variables()]
        assert trainable == ["imported/kernel", "imported/bias", "imported/w"]
        step, = g.get_collection(tf.GraphKeys.GLOBAL_STEP)
        assert step.op.name == "imported/global_step" and not step.trainable
        assert g.get_collection("train_op")[0].name == "imported/train"
        # TensorFlow's Saver nodes are replaced by the returned Saver's own.
        assert not [op for op in g.get_operations() if op.type in ("SaveV2", "RestoreV2")]


def _written(tmp_path):
    """meta_model.py trained two steps by tensorfleet and saved (with its .meta)."""
    with tf.Graph().as_default():
        t = meta_model.build(tf.compat.v1)
        saver = tf.train.Saver()
        x, y = meta_model.batch(0)
        feed = {t["x"]: x, t["y"]: y}
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for _ in range(2):
                s.run(t["train"], feed)
            prefix = saver.save(s, str(tmp_path / "model.ckpt"), global_step=2)
            preds = s.run(t["pred"], feed)
            s.run(t["train"], feed)
            after = {v.op.name: s.run(v) for v in tf.global_variables()}
    values = {"x": x, "y": y, "preds": preds, **{"after/" + k: v for k, v in after.items()}}
    np.savez(str(tmp_path / "expected.npz"), **values)
    return prefix, np.load(str(tmp_path / "expected.npz")), t["train"].name


def test_saver_writes_tensorflow_meta_graph(tmp_path):
    prefix, expected, train = _written(tmp_path)
    mg = meta_graph_pb2.MetaGraphDef()
    with open(prefix + ".meta", "rb") as f:
        mg.ParseFromString(f.read())
    # Every node an op TensorFlow has, with attrs its definitions declare.
    ops = assert_tensorflow_graph(mg.graph_def)
    assert {"ApplyAdam", "SaveV2", "RestoreV2", "VariableV2"} <= ops
    names = {n.name for n in mg.graph_def.node}
    sd = mg.saver_def
    assert sd.filename_tensor_name[:-2] in names and sd.save_tensor_name[:-2] in names
    assert sd.restore_op_name in names and sd.version == 2
    assert set(mg.collection_def["train_op"].node_list.value) == {train}
    vdefs = [variable_pb2.VariableDef.FromString(b)
             for b in mg.collection_def["variables"].bytes_list.value]
    assert [v.variable_name for v in vdefs][:3] == ["kernel:0", "bias:0", "w:0"]
    assert all(v.initializer_name in names and v.snapshot_name[:-2] in names for v in vdefs)
    step, = [variable_pb2.VariableDef.FromString(b)
             for b in mg.collection_def["global_step"].bytes_list.value]
    assert step.variable_name == "global_step:0" and not step.trainable
    assert mg.meta_info_def.any_info.type_url == meta_graph_def.ANY_TYPE_URL


def test_tensorflow_form_alone_restores_and_trains(tmp_path):
    # What TensorFlow reads of tensorfleet's .meta (its graph, saver and collections,
    # without tensorfleet's own form) restores and trains as tensorfleet did.
    prefix, expected, _ = _written(tmp_path)
    mg = meta_graph_pb2.MetaGraphDef()
    with open(prefix + ".meta", "rb") as f:
        mg.ParseFromString(f.read())
    mg.meta_info_def.ClearField("any_info")
    stripped = str(tmp_path / "tensorflow_only.meta")
    with open(stripped, "wb") as f:
        f.write(mg.SerializeToString())
    preds, after = _train_imported(stripped, prefix, expected)
    np.testing.assert_allclose(preds, expected["preds"], atol=1e-6)
    _check_after(after, expected)


def test_export_meta_graph_as_text_and_bytes(tmp_path):
    tf.Variable([1.0, 2.0], name="v")
    path = str(tmp_path / "g.meta")
    meta = tf.train.export_meta_graph(path, as_text=True)
    from google.protobuf import text_format
    mg = text_format.Parse(open(path).read(), meta_graph_pb2.MetaGraphDef())
    assert "v" in {n.name for n in mg.graph_def.node}
    again = tf.MetaGraphDef.FromString(meta.SerializeToString())
    assert again.tensorflow.graph_def == meta.tensorflow.graph_def
    assert again.graph_def == meta.graph_def


def test_json_meta_graphs_of_earlier_releases_still_import(tmp_path):
    import json
    tf.Variable(3.0, name="old")
    doc = meta_graph_def.MetaGraphDef(
        tf.train.export_meta_graph(collection_list=["variables"]))
    path = tmp_path / "old.meta"
    path.write_text(json.dumps(doc))
    with tf.Graph().as_default():
        assert tf.train.import_meta_graph(str(path)) is not None
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert s.run(tf.global_variables()[0]) == 3.0


def test_hostile_meta_files_are_refused_naming_them(tmp_path, monkeypatch):
    big = tmp_path / "big.meta"
    big.write_bytes(b"\x0a" * 64)
    monkeypatch.setattr(meta_graph_def, "MAX_META_GRAPH_BYTES", 32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="big.meta is 64 bytes"):
        tf.train.import_meta_graph(str(big))
    monkeypatch.undo()
    # Unknown groups (field 100) nested 5000 deep, each closed: past protobuf's limit.
    deep = tmp_path / "deep.meta"
    deep.write_bytes(b"\xa3\x06" * 5000 + b"\xa4\x06" * 5000)
    with pytest.raises(tf.errors.InvalidArgumentError, match="deep.meta is not a meta graph"):
        tf.train.import_meta_graph(str(deep))
    # A variables collection entry that is not a VariableDef.
    with open(os.path.join(TF_META, "model.ckpt-2.meta"), "rb") as f:
        mg = meta_graph_pb2.MetaGraphDef.FromString(f.read())
    mg.collection_def["variables"].bytes_list.value.append(b"\xff\xff\xff")
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError, match="not a VariableDef"):
            tf.train.import_meta_graph(mg)
    # Resource variables are refused with what to do instead.
    mg = meta_graph_pb2.MetaGraphDef.FromString(
        open(os.path.join(TF_META, "model.ckpt-2.meta"), "rb").read())
    vd = variable_pb2.VariableDef.FromString(mg.collection_def["variables"].bytes_list.value[0])
    vd.is_resource = True
    mg.collection_def["variables"].bytes_list.value[0] = vd.SerializeToString()
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError, match="resource variable"):
            tf.train.import_meta_graph(mg)


def test_meta_graph_with_missing_ops_lists_them():
    mg = meta_graph_pb2.MetaGraphDef.FromString(
        open(os.path.join(TF_META, "model.ckpt-2.meta"), "rb").read())
    for node in mg.graph_def.node:
        if node.op == "ApplyAdam":
            node.op = "ResourceApplyAdamWithAmsgrad"
        elif node.op == "ReluGrad":
            node.op = "SomeUnknownOp"
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="2 op type.*ResourceApplyAdamWithAmsgrad, SomeUnknownOp"):
            tf.train.import_meta_graph(mg)


def test_tensorboard_reads_the_graph_of_a_meta_graph(tmp_path):
    from tensorboardX.proto import event_pb2
    from tensorfleet.training.summary_io import summary_iterator

    with open(os.path.join(TF_META, "model.ckpt-2.meta"), "rb") as f:
        tf_written = meta_graph_pb2.MetaGraphDef.FromString(f.read())
    with tf.Graph().as_default():
        meta_model.build(tf.compat.v1)
        ours = tf.train.export_meta_graph()
    writer = tf.summary.FileWriter(str(tmp_path))
    writer.add_meta_graph(ours, global_step=1)
    writer.add_graph(tf_written.graph_def)  # TensorFlow's GraphDef message as it is
    writer.close()
    events = [e for path in sorted(os.listdir(str(tmp_path)))
              for e in summary_iterator(os.path.join(str(tmp_path), path))]
    metas = [e for e in events if e.HasField("meta_graph_def")]
    graphs = [e for e in events if e.HasField("graph_def")]
    assert isinstance(events[0], event_pb2.Event) and len(metas) == 1 and len(graphs) == 1
    mg = meta_graph_pb2.MetaGraphDef.FromString(metas[0].meta_graph_def)
    assert metas[0].step == 1 and "pred" in {n.name for n in mg.graph_def.node}
    assert mg.graph_def == ours.tensorflow.graph_def
    from tensorfleet.protos import graph_pb2
    assert graph_pb2.GraphDef.FromString(graphs[0].graph_def) == tf_written.graph_def
    other = tf.summary.FileWriter(str(tmp_path / "x"))
    try:
        with pytest.raises(TypeError, match="add_meta_graph needs a MetaGraphDef"):
            other.add_meta_graph({"graph_def": {}})
    finally:
        other.close()


def test_graph_util_freezes_tensorflow_graph_def_messages():
    from tensorfleet.protos import graph_pb2
    expected = np.load(os.path.join(TF_META, "expected.npz"))
    with open(os.path.join(TF_META, "model.ckpt-2.meta"), "rb") as f:
        mg = meta_graph_pb2.MetaGraphDef.FromString(f.read())
    sub = tf.graph_util.extract_sub_graph(mg.graph_def, ["pred"])
    assert isinstance(sub, graph_pb2.GraphDef)
    ops = {n.op for n in sub.node}
    assert "VariableV2" in ops and not ops & {"ApplyAdam", "SaveV2", "RestoreV2"}
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(mg)
        with tf.Session() as s:
            saver.restore(s, os.path.join(TF_META, "model.ckpt-2"))
            frozen = tf.graph_util.convert_variables_to_constants(s, mg.graph_def, ["pred"])
    assert isinstance(frozen, graph_pb2.GraphDef)
    assert {n.op for n in frozen.node} & {"VariableV2", "Assign"} == set()
    assert len(mg.graph_def.node) > len(frozen.node)  # the input is left as it was
    # Wrapped in tensorfleet's GraphDef (as ParseFromString gives it), the same kind back.
    wrapped = tf.GraphDef.FromString(frozen.SerializeToString())
    assert tf.graph_util.extract_sub_graph(wrapped, ["pred"]).tensorflow == frozen
    with tf.Graph().as_default():
        pred, = tf.import_graph_def(frozen, return_elements=["pred:0"], name="")
        with tf.Session() as s:
            got = s.run(pred, {"x:0": expected["x"]})
    np.testing.assert_allclose(got, expected["preds"], atol=1e-6)


def test_partitioned_variables_restore_through_the_tensorflow_saver_def(tmp_path):
    x = tf.placeholder(tf.float32, [None, 6], name="x")
    w = tf.get_variable("w", [6, 2], initializer=tf.random_normal_initializer(seed=1),
                        partitioner=tf.fixed_size_partitioner(2))
    pred = tf.identity(tf.matmul(x, tf.concat(list(w), 0)), name="pred")
    saver = tf.train.Saver()
    xv = np.arange(12, dtype=np.float32).reshape(2, 6) / 10
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        prefix = saver.save(s, str(tmp_path / "model.ckpt"), global_step=1)
        want = s.run(pred, {x: xv})
    mg = meta_graph_pb2.MetaGraphDef.FromString(open(prefix + ".meta", "rb").read())
    restore = [n for n in mg.graph_def.node if n.name == "save/RestoreV2/shape_and_slices"]
    specs = tf.make_ndarray(restore[0].attr["value"].tensor).tolist()
    assert specs == [b"6 2 0,3:0,2", b"6 2 3,3:0,2"]
    slices = [variable_pb2.VariableDef.FromString(b).save_slice_info_def
              for b in mg.collection_def["variables"].bytes_list.value]
    assert [(s.full_name, list(s.var_offset)) for s in slices] == [("w", [0, 0]), ("w", [3, 0])]
    mg.meta_info_def.ClearField("any_info")  # TensorFlow's part alone
    with tf.Graph().as_default():
        restorer = tf.train.import_meta_graph(mg)
        with tf.Session() as s:
            restorer.restore(s, prefix)
            np.testing.assert_allclose(s.run("pred:0", {"x:0": xv}), want)
