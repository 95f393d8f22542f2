"""tf.train.export_meta_graph / import_meta_graph: resume training from a Saver's .meta."""

import json
import os

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.training.meta_graph import MetaGraphDef, read_meta_graph_file

X = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)
Y = np.array([[1.0], [0.0]], np.float32)
LR = 0.05


def _build():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    w = tf.Variable([[0.5], [-0.5]], name="w")
    gs = tf.train.get_or_create_global_step()
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y), name="loss")
    train_op = tf.train.GradientDescentOptimizer(LR).minimize(loss, global_step=gs)
    tf.add_to_collection("my_train_op", train_op)
    tf.add_to_collection("my_loss", loss)
    tf.add_to_collection("hparams", 0.05)
    tf.add_to_collection("hparams", "sgd")
    return train_op, loss, w, gs


def _numpy_steps(w, n):
    for _ in range(n):
        grad = 2.0 * X.T @ (X @ w - Y) / len(X)
        w = w - LR * grad
    return w


def test_resume_training_from_saver_meta_graph(tmp_path):
    train_op, loss, w, gs = _build()
    saver = tf.train.Saver()
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(3):
            s.run(train_op, {"x:0": X, "y:0": Y})
        prefix = saver.save(s, str(tmp_path / "model"), global_step=gs)
    assert os.path.exists(prefix + ".meta")

    tf.reset_default_graph()
    restorer = tf.train.import_meta_graph(prefix + ".meta")
    g = tf.get_default_graph()
    op = tf.get_collection("my_train_op")[0]
    assert op.graph is g and op.name == train_op.name
    assert tf.get_collection("my_loss")[0].name == "loss:0"
    assert tf.get_collection("hparams") == [0.05, "sgd"]
    assert [v.op.name for v in tf.global_variables()] == ["w", "global_step"]
    assert [v.op.name for v in tf.trainable_variables()] == ["w"]
    step = tf.train.get_global_step()
    assert step is not None and step.op.name == "global_step"
    with tf.Session() as s:
        restorer.restore(s, prefix)
        assert s.run(step) == 3
        for _ in range(2):
            s.run(op, {"x:0": X, "y:0": Y})
        assert s.run(step) == 5
        w_now = s.run("w:0")
        prefix2 = restorer.save(s, str(tmp_path / "model"), global_step=step)
    expected = _numpy_steps(np.array([[0.5], [-0.5]], np.float32), 5)
    np.testing.assert_allclose(w_now, expected, rtol=1e-5)
    assert prefix2.endswith("model-5")
    assert tf.train.latest_checkpoint(str(tmp_path)) == prefix2


def test_export_and_import_meta_graph_with_scopes(tmp_path):
    with tf.name_scope("tower"):
        a = tf.Variable(2.0, name="a")
        out = tf.multiply(a, 3.0, name="out")
    tf.add_to_collection("outs", out)
    path = str(tmp_path / "m" / "g.meta")
    meta = tf.train.export_meta_graph(path, export_scope="tower", as_text=True)
    assert isinstance(meta, MetaGraphDef)
    assert [n.name for n in meta.graph_def.node][:1] == ["a/initial_value"]
    assert meta.collection_def["outs"] == [{"tensor": "out:0"}]
    assert "\n" in open(path).read()
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(path, import_scope="copy")
        t = g.get_collection("outs")[0]
        assert t.name == "copy/out:0"
        assert [v.op.name for v in g.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)] == ["copy/a"]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert s.run(t) == 6.0


def test_meta_graph_def_serializes_and_clears_devices(tmp_path):
    with tf.device("/job:ps/task:0"):
        tf.Variable(1.0, name="v")
    meta = tf.train.export_meta_graph(clear_devices=True, collection_list=["variables"])
    assert all(n.device == "" for n in meta.graph_def.node)
    assert list(meta.collection_def) == ["variables"]
    back = MetaGraphDef.FromString(meta.SerializeToString())
    assert back == json.loads(json.dumps(meta))
    with tf.Graph().as_default():
        assert tf.train.import_meta_graph(back) is not None
        assert tf.global_variables()[0].device == ""


def test_meta_graph_errors(tmp_path):
    with pytest.raises(tf.errors.NotFoundError):
        tf.train.import_meta_graph(str(tmp_path / "missing.meta"))
    bad = tmp_path / "bad.meta"
    bad.write_bytes(b"\x00garbage")
    with pytest.raises(tf.errors.InvalidArgumentError, match="bad.meta is not a meta graph"):
        read_meta_graph_file(str(bad))
    wrong = tmp_path / "wrong.meta"
    wrong.write_text(json.dumps({"format": "tensorfleet-meta-graph", "version": 1,
                                 "graph_def": {"version": 1, "node": []},
                                 "collections": {"c": [{"tensor": "nope:0"}]}}))
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not match the graph"):
        tf.train.import_meta_graph(str(wrong))
    with pytest.raises(TypeError):
        tf.train.export_meta_graph(bogus=1)


def test_reads_meta_graphs_with_bare_variable_entries(tmp_path):
    # Meta graphs written before collection entries were tagged hold bare variable defs.
    tf.Variable(5.0, name="old")
    doc = {"format": "tensorfleet-meta-graph", "version": 1,
           "graph_def": tf.get_default_graph().as_graph_def(), "saver_def": {},
           "collections": {"variables": [tf.global_variables()[0].to_proto()]}}
    path = tmp_path / "old.meta"
    path.write_text(json.dumps(doc))
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(str(path))
        assert isinstance(saver, tf.train.Saver)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert s.run(tf.global_variables()[0]) == 5.0


def test_queue_runners_survive_the_meta_graph(tmp_path):
    q = tf.FIFOQueue(10, [tf.int64], shapes=[[]], name="numbers")
    counter = tf.Variable(0, dtype=tf.int64, name="counter")
    enq = q.enqueue(counter.assign_add(1))
    tf.train.add_queue_runner(tf.train.QueueRunner(q, [enq]))
    tf.add_to_collection("batch", q.dequeue_many(3))
    path = str(tmp_path / "q.meta")
    tf.train.export_meta_graph(path)
    with tf.Graph().as_default():
        tf.train.import_meta_graph(path)
        qr, = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
        assert isinstance(qr, tf.train.QueueRunner) and qr.queue.name == "numbers"
        assert qr.queue_closed_exception_types == (tf.errors.OutOfRangeError,
                                                   tf.errors.CancelledError)
        batch = tf.get_collection("batch")[0]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(s, coord=coord)
            got = s.run(batch)
            coord.request_stop()
            s.run(qr.cancel_op)
            coord.join(threads)
        assert sorted(got) == list(got) and got[0] >= 1
