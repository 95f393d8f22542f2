"""Graphs written as TensorFlow's GraphDef (``tf.train.write_graph``) and read back.

TensorFlow itself reads them too: ``make_fixtures.py check`` loads the frozen graph
that write_tensorfleet_checkpoint.py writes (see docs/interop.md). Here, without
TensorFlow, the files go back through the GraphDef importer.
"""

import os
import sys

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet import errors
from tensorfleet.framework import tensorflow_graph_export as tge
from tensorfleet.ops import tensorflow_graph_import as tgi

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures",
                    "tf_files")
sys.path.insert(0, DATA)
import interop_model as m  # noqa: E402

v1 = tf.compat.v1


def _frozen_interop_model():
    with tf.Graph().as_default() as g:
        t = m.build(v1)
        x, ids, labels = m.batch(2)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(t["train"], {t["x"]: x, t["ids"]: ids, t["labels"]: labels})
            preds = sess.run(t["logits"], {t["x"]: x, t["ids"]: ids})
            frozen = tf.graph_util.convert_variables_to_constants(
                sess, g.as_graph_def(), [t["logits"].op.name])
    return frozen, x, ids, preds


@pytest.mark.parametrize("as_text", [False, True])
def test_frozen_graph_written_as_tensorflow_graph_def_gives_same_predictions(tmp_path,
                                                                             as_text):
    frozen, x, ids, preds = _frozen_interop_model()
    path = tf.train.write_graph(frozen, str(tmp_path), "frozen.pb", as_text=as_text)
    msg = tgi.parse_tensorflow_graph_def(open(path, "rb").read(), path)
    ops = {n.op for n in msg.node}
    assert "VariableV2" not in ops and {"Conv2D", "GatherV2", "DynamicStitch"} <= ops
    by = {n.name: n for n in msg.node}
    gather = by["embedding_lookup/gather_0"]
    assert {k: gather.attr[k].type for k in ("Tparams", "Tindices", "Taxis")} == {
        "Tparams": 1, "Tindices": 9, "Taxis": 3}
    # A reduction over all axes gets its axes as an input, as TensorFlow wants.
    assert list(by["embedding_lookup/min_id"].input)[1] == \
        "embedding_lookup/min_id/reduction_indices"
    with tf.Graph().as_default():
        (logits,) = tf.import_graph_def(open(path, "rb").read(), name="",
                                        return_elements=["dense/logits:0"])
        with tf.Session() as sess:
            got = sess.run(logits, {"x:0": x, "ids:0": ids})
    np.testing.assert_allclose(got, preds, rtol=1e-6, atol=1e-6)


def test_many_op_types_survive_export_and_import():
    """TensorFlow's graph of 39 op types, imported, written back as a GraphDef and
    imported again, still computes TensorFlow's outputs."""
    expected = np.load(os.path.join(DATA, "ops_expected.npz"))
    with tf.Graph().as_default() as g:
        tf.import_graph_def(open(os.path.join(DATA, "ops_graph.pb"), "rb").read(), name="")
        again = tge.to_tensorflow_graph_def(g)
    data = again.SerializeToString()
    with tf.Graph().as_default():
        tf.import_graph_def(data, name="")
        with tf.Session() as sess:
            got = sess.run({k: k + ":0" for k in ("out", "top", "first", "logsm")},
                           {"x:0": expected["x"]})
    for k, v in got.items():
        np.testing.assert_allclose(v, expected[k], rtol=1e-5, atol=1e-5, err_msg=k)
    argmax = [n for n in again.node if n.op == "ArgMax"][0]
    assert len(argmax.input) == 2 and "axis" not in argmax.attr


def test_strict_export_lists_every_op_tensorflow_lacks():
    with tf.Graph().as_default() as g:
        v = tf.Variable([1.0], name="v")
        tf.train.Saver([v])
        with pytest.raises(errors.InvalidArgumentError) as e:
            tge.to_tensorflow_graph_def(g)
    assert "RestoreShard" in str(e.value) and "SaveBundleShard" in str(e.value)
    # Not strict (write_graph): written as they are, for TensorBoard.
    gd = tge.to_tensorflow_graph_def(g, strict=False)
    assert "SaveBundleShard" in {n.op for n in gd.node}


def test_softmax_along_another_axis_is_refused():
    with tf.Graph().as_default() as g:
        tf.nn.softmax(tf.placeholder(tf.float32, [2, 3]), axis=0)
        with pytest.raises(errors.InvalidArgumentError, match="last one only"):
            tge.to_tensorflow_graph_def(g)


def test_tensorboard_gets_the_graph_with_its_attrs(tmp_path):
    from tensorfleet.protos import graph_pb2
    from tensorfleet.training.summary_io import FileWriter, summary_iterator
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        tf.nn.relu(tf.matmul(x, tf.constant(np.ones((3, 2), np.float32))), name="y")
        writer = FileWriter(str(tmp_path), graph=g)
        writer.close()
    (raw,) = [e.graph_def for e in summary_iterator(writer.event_file_path) if e.graph_def]
    nodes = {n.name: n for n in graph_pb2.GraphDef.FromString(raw).node}
    assert nodes["y"].op == "Relu" and nodes["y"].attr["T"].type == 1
    assert [d.size for d in nodes["x"].attr["shape"].shape.dim] == [-1, 3]
