"""Writes a tensorfleet checkpoint of the interop model for TensorFlow to read.

  PYTHONPATH=. python tests/data/tf_files/write_tensorfleet_checkpoint.py DIR [--ps N]

trains the model of interop_model.py three Adam steps with tensorfleet (on an
in-process cluster of N parameter servers and one worker when ``--ps`` is given,
so the checkpoint has one data file per parameter server), saves it with
``tf.train.Saver`` to DIR, writes it frozen to DIR/frozen_graph.pb
(``tf.train.write_graph``, binary) and stores the batch and the model's predictions
in DIR/tensorfleet_expected.npz. ``make_fixtures.py check DIR``, run with
TensorFlow, then restores it and compares.
"""

import argparse
import contextlib
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import interop_model as m  # noqa: E402

import tensorfleet as tf  # noqa: E402
from tensorfleet.testing.cluster import local_cluster  # noqa: E402


def write(directory: str, ps: int = 0) -> str:
    """Trains and saves the interop model to ``directory``; returns the prefix."""
    os.makedirs(directory, exist_ok=True)
    v1 = tf.compat.v1
    with contextlib.ExitStack() as stack:
        target = ""
        g = tf.Graph()
        stack.enter_context(g.as_default())
        if ps:
            c = stack.enter_context(local_cluster(ps=ps, worker=1))
            target = c.target("worker", 0)
            stack.enter_context(tf.device(tf.train.replica_device_setter(
                ps_tasks=ps, worker_device="/job:worker/task:0")))
        t = m.build(v1)
        saver = v1.train.Saver()
        x, ids, labels = m.batch(1)
        feed = {t["x"]: x, t["ids"]: ids, t["labels"]: labels}
        with v1.Session(target) as sess:
            sess.run(v1.global_variables_initializer())
            for _ in range(3):
                sess.run(t["train"], feed)
            prefix = saver.save(sess, os.path.join(directory, "model.ckpt"), global_step=3,
                                write_meta_graph=False)
            preds = sess.run(t["logits"], feed)
            # The same model frozen (variables as constants), as TensorFlow's GraphDef.
            frozen = tf.graph_util.convert_variables_to_constants(
                sess, g.as_graph_def(), [t["logits"].op.name])
            tf.train.write_graph(frozen, directory, "frozen_graph.pb", as_text=False)
    np.savez(os.path.join(directory, "tensorfleet_expected.npz"), x=x, ids=ids, preds=preds)
    return prefix


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("directory")
    ap.add_argument("--ps", type=int, default=0)
    args = ap.parse_args()
    p = write(args.directory, args.ps)
    print("wrote", p, sorted(os.listdir(args.directory)))
