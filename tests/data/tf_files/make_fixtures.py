"""Writes the TensorFlow checkpoint fixtures of tests/training/test_checkpoint_interop.py,
and checks checkpoints written by tensorfleet in TensorFlow.

Run with a TensorFlow 2.x interpreter, from the repository root:

  python tests/data/tf_files/make_fixtures.py write            # regenerate the fixtures
  python tests/data/tf_files/make_fixtures.py check DIR        # read tensorfleet's checkpoint

``write`` trains the interop model (interop_model.py) three Adam steps under
``compat.v1``, saves it with ``tf.compat.v1.train.Saver`` to tf_ckpt/, and stores
in expected.npz the batch, the predictions of the saved model and every variable
(slots and beta powers included) after one more step; the same model frozen
(variables made constants) at the saved step goes to frozen_graph.pb (binary) and
frozen_graph.pbtxt (text). It also writes
tf_dtypes/ck: one tensor of each dtype tensorfleet has, and two small slices of a
huge tensor (offsets whose slice keys take several bytes); and ops_graph.pb, a graph
of many op types, with its input and outputs in ops_expected.npz. ``check`` restores the
newest checkpoint in DIR (written by tensorfleet, see
write_tensorfleet_checkpoint.py) into the same model built by TensorFlow and
compares its predictions with the ones tensorfleet stored beside it.
"""

import os
import shutil
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import interop_model as m  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
v1 = tf.compat.v1


def write() -> None:
    out = os.path.join(HERE, "tf_ckpt")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    g = tf.Graph()
    with g.as_default():
        t = m.build(v1)
        saver = v1.train.Saver()
        x, ids, labels = m.batch(0)
        feed = {t["x"]: x, t["ids"]: ids, t["labels"]: labels}
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            for _ in range(3):
                sess.run(t["train"], feed)
            # Relative paths, so the fixture directory can move.
            saver.save(sess, os.path.join(out, "model.ckpt"), global_step=3)
            ckpt_state = os.path.join(out, "checkpoint")
            with open(ckpt_state, "w") as f:
                f.write('model_checkpoint_path: "model.ckpt-3"\n'
                        'all_model_checkpoint_paths: "model.ckpt-3"\n')
            preds = sess.run(t["logits"], feed)
            frozen = v1.graph_util.convert_variables_to_constants(
                sess, g.as_graph_def(), [t["logits"].op.name])
            tf.io.write_graph(frozen, HERE, "frozen_graph.pb", as_text=False)
            tf.io.write_graph(frozen, HERE, "frozen_graph.pbtxt", as_text=True)
            sess.run(t["train"], feed)
            after = {v.op.name: sess.run(v) for v in v1.global_variables()}
    np.savez(os.path.join(HERE, "expected.npz"), x=x, ids=ids, labels=labels, preds=preds,
             **{"after/" + k: v for k, v in after.items()})
    os.remove(os.path.join(out, "model.ckpt-3.meta"))
    print("wrote", sorted(os.listdir(out)), "and expected.npz with",
          len(after), "variables after the next step")


def write_dtypes() -> None:
    out = os.path.join(HERE, "tf_dtypes")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    names = sorted(m.DTYPE_VALUES) + ["huge", "huge"]
    specs = [""] * len(m.DTYPE_VALUES) + ["1000000 1 0,2:0,1", "1000000 1 500000,2:0,1"]
    # SaveV2 takes one dtype for all tensors only through the list, so each is its own.
    tensors = [tf.constant(m.DTYPE_VALUES[n]) for n in sorted(m.DTYPE_VALUES)]
    tensors += [tf.constant([[1.0], [2.0]]), tf.constant([[3.0], [4.0]])]
    tf.raw_ops.SaveV2(prefix=os.path.join(out, "ck"), tensor_names=names,
                      shape_and_slices=specs, tensors=tensors)
    print("wrote", sorted(os.listdir(out)))


def write_ops_graph() -> None:
    """A graph of many op types (each one importers must map), frozen, and its outputs."""
    g = tf.Graph()
    rng = np.random.RandomState(3)
    x_val = rng.uniform(-1, 1, size=(2, 6, 6, 3)).astype(np.float32)
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 6, 6, 3], name="x")
        w = tf.constant(rng.normal(size=(3, 3, 3, 4)).astype(np.float32))
        dw = tf.constant(rng.normal(size=(3, 3, 3, 2)).astype(np.float32))
        h = tf.nn.bias_add(tf.nn.conv2d(x, w, [1, 1, 1, 1], "VALID"), tf.constant([.1, .2, .3, .4]))
        h = v1.nn.fused_batch_norm(h, tf.constant([1., 2., 1., .5]), tf.constant([0., .1, 0., 0.]),
                                   tf.constant([.1, 0., .2, 0.]), tf.constant([1., 2., .5, 1.]),
                                   is_training=False)[0]
        h = tf.nn.relu6(tf.nn.max_pool2d(h, 2, 2, "SAME"))
        d = tf.nn.depthwise_conv2d(x, dw, [1, 1, 1, 1], "SAME")
        d = tf.nn.avg_pool2d(tf.nn.elu(d), 3, 3, "VALID")
        flat = tf.reshape(tf.transpose(h, [0, 3, 1, 2]), [-1, 16])
        m = tf.reduce_mean(d, axis=[1, 2], keepdims=False)
        s = tf.reduce_sum(tf.square(x), axis=[1, 2, 3])
        feats = tf.concat([flat, m, tf.expand_dims(tf.sqrt(s), 1)], axis=1)
        feats = tf.pad(feats, [[0, 0], [1, 1]])
        logits = tf.matmul(tf.tanh(feats), tf.constant(rng.normal(size=(25, 5)).astype(np.float32)))
        probs = tf.nn.softmax(logits)
        top = tf.argmax(probs, axis=1, name="top")
        first = tf.squeeze(tf.strided_slice(logits, [0, 1], [1, 3], [1, 1]), axis=0)
        picked = tf.where(logits > 0, tf.sigmoid(logits), -tf.abs(logits))
        stacked = tf.stack([tf.reduce_max(picked, axis=1), tf.reduce_min(picked, axis=1)], axis=1)
        out = tf.identity(tf.add_n([stacked, stacked * 2.0]) - tf.maximum(stacked, 0.1), name="out")
        tf.identity(first, name="first")
        tf.identity(tf.nn.log_softmax(logits), name="logsm")
        with v1.Session() as sess:
            vals = sess.run({"out": out, "top": top, "first": "first:0", "logsm": "logsm:0"},
                            {x: x_val})
        gd = v1.graph_util.extract_sub_graph(g.as_graph_def(), ["out", "top", "first", "logsm"])
    tf.io.write_graph(gd, HERE, "ops_graph.pb", as_text=False)
    np.savez(os.path.join(HERE, "ops_expected.npz"), x=x_val, **vals)
    print("wrote ops_graph.pb:", sorted({n.op for n in gd.node}))


def check(directory: str) -> None:
    expected = np.load(os.path.join(directory, "tensorfleet_expected.npz"))
    prefix = tf.train.latest_checkpoint(directory)
    reader = tf.train.load_checkpoint(prefix)
    names = sorted(reader.get_variable_to_shape_map())
    g = tf.Graph()
    with g.as_default():
        t = m.build(v1)
        saver = v1.train.Saver()
        with v1.Session() as sess:
            saver.restore(sess, prefix)
            feed = {t["x"]: expected["x"], t["ids"]: expected["ids"]}
            preds = sess.run(t["logits"], feed)
    diff = float(np.max(np.abs(preds - expected["preds"])))
    print(f"TensorFlow {tf.__version__} restored {prefix} ({len(names)} tensors: "
          f"{', '.join(names)})")
    print(f"max |TensorFlow prediction - tensorfleet prediction| = {diff:.3g}")
    ok = np.allclose(preds, expected["preds"], rtol=1e-5, atol=1e-5)
    frozen = os.path.join(directory, "frozen_graph.pb")
    gd = v1.GraphDef()
    with open(frozen, "rb") as f:
        gd.ParseFromString(f.read())
    for node in gd.node:  # a cluster's graph names its tasks; run it here, in one process
        node.device = ""
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        with v1.Session() as sess:
            fpreds = sess.run("dense/logits:0", {"x:0": expected["x"],
                                                  "ids:0": expected["ids"]})
    fdiff = float(np.max(np.abs(fpreds - expected["preds"])))
    print(f"TensorFlow imported {frozen} ({len(gd.node)} nodes); max |TensorFlow "
          f"prediction - tensorfleet prediction| = {fdiff:.3g}")
    ok = ok and np.allclose(fpreds, expected["preds"], rtol=1e-5, atol=1e-5)
    if not ok:
        sys.exit("MISMATCH")
    print("OK")


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "write":
        write()
        write_dtypes()
        write_ops_graph()
    elif len(sys.argv) == 3 and sys.argv[1] == "check":
        check(sys.argv[2])
    else:
        sys.exit(__doc__)
