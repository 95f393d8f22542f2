"""tf.train.experimental.PythonState in a graph-mode tf.train.Checkpoint: saved under
TensorFlow's key as the serialized string, restored through deserialize (bytes), in
nested checkpoints too; initialize_or_restore without a checkpoint leaves it alone."""

import json
import os

import pytest

import tensorfleet as tf


class Counter(tf.train.experimental.PythonState):
    def __init__(self, n=0):
        self.n = n
        self.seen = None

    def serialize(self):
        return json.dumps({"n": self.n})

    def deserialize(self, string_value):
        self.seen = string_value
        self.n = json.loads(string_value)["n"]


def test_save_and_restore(tmp_path):
    prefix = os.path.join(str(tmp_path), "ck")
    with tf.Graph().as_default():
        counter, inner = Counter(5), Counter(7)
        v = tf.Variable(1.0, name="v")
        ckpt = tf.train.Checkpoint(state=counter, v=v,
                                   nested=tf.train.Checkpoint(inner=inner))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = ckpt.save(prefix)
            counter.n, inner.n = 9, 10
            ckpt.restore(path).assert_consumed().run_restore_ops(sess)
    # TensorFlow 2.15 writes this key, holding the serialized string.
    assert tf.train.load_variable(path, "state/.ATTRIBUTES/py_state") == b'{"n": 5}'
    assert (counter.n, inner.n) == (5, 7)
    assert counter.seen == b'{"n": 5}'


def test_restore_into_a_new_graph_and_initialize_without_checkpoint(tmp_path):
    prefix = os.path.join(str(tmp_path), "ck")
    with tf.Graph().as_default():
        ckpt = tf.train.Checkpoint(state=Counter(3))
        with tf.Session() as sess:
            path = ckpt.write(prefix)
    with tf.Graph().as_default():
        fresh = Counter(0)
        ckpt = tf.train.Checkpoint(state=fresh)
        with tf.Session() as sess:
            ckpt.restore(None).initialize_or_restore(sess)
            assert fresh.n == 0 and fresh.seen is None
            ckpt.restore(path).initialize_or_restore(sess)
    assert fresh.n == 3


def test_serialize_must_return_a_string_and_subclasses_must_define_both():
    class Bad(tf.train.experimental.PythonState):
        def serialize(self):
            return 3

        def deserialize(self, string_value):
            pass

    class Half(tf.train.experimental.PythonState):
        def serialize(self):
            return ""

    with tf.Graph().as_default():
        ckpt = tf.train.Checkpoint(state=Bad())
        with tf.Session() as sess:
            with pytest.raises(TypeError, match="must return str or bytes"):
                ckpt.write("/nonexistent/ck", session=sess)
    with pytest.raises(TypeError):
        Half()
