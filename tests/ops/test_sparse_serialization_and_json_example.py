"""``tf.io.serialize_sparse`` / ``serialize_many_sparse`` / ``deserialize_many_sparse``
(TensorFlow's bytes) and ``tf.io.decode_json_example``."""

import numpy as np
import pytest

import tensorfleet as tf

# tf.io.serialize_sparse of the SparseTensor below, from TensorFlow 2.21.
TF_SERIALIZED = [
    b'\x08\t\x12\x08\x12\x02\x08\x03\x12\x02\x08\x02"0' + np.array(
        [[0, 0], [1, 2], [1, 3]], "<i8").tobytes(),
    b'\x08\x01\x12\x04\x12\x02\x08\x03"\x0c\x00\x00\x80?\x00\x00\x00@\x00\x00@@',
    b'\x08\t\x12\x04\x12\x02\x08\x02"\x10' + np.array([2, 4], "<i8").tobytes()]


def _sp():
    return tf.SparseTensor([[0, 0], [1, 2], [1, 3]], [1.0, 2.0, 3.0], [2, 4])


def test_serialize_sparse_matches_tensorflow():
    with tf.Graph().as_default(), tf.Session() as sess:
        assert sess.run(tf.io.serialize_sparse(_sp())).tolist() == TF_SERIALIZED
    with pytest.raises(ValueError, match="out_type=tf.string"):
        tf.serialize_sparse(_sp(), out_type=tf.int32)


def test_many_round_trip_and_max_shape():
    with tf.Graph().as_default(), tf.Session() as sess:
        rows = tf.serialize_many_sparse(_sp())
        back = tf.deserialize_many_sparse(rows, tf.float32, rank=2)
        r, b = sess.run([rows, back])
        assert r.shape == (2, 3)
        assert b.indices.tolist() == [[0, 0], [1, 2], [1, 3]]
        assert b.values.tolist() == [1.0, 2.0, 3.0] and b.dense_shape.tolist() == [2, 4]
        # Rows of different sizes: the result's dimensions are the largest of each.
        small = tf.io.serialize_sparse(tf.SparseTensor([[1]], [5.0], [2]))
        big = tf.io.serialize_sparse(tf.SparseTensor([[6]], [7.0], [7]))
        stacked = sess.run(tf.io.deserialize_many_sparse(tf.stack([small, big]), tf.float32))
        assert stacked.indices.tolist() == [[0, 1], [1, 6]]
        assert stacked.dense_shape.tolist() == [2, 7]
        with pytest.raises(tf.errors.InvalidArgumentError, match="expected int32"):
            sess.run(tf.io.deserialize_many_sparse(rows, tf.int32))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse"):
            sess.run(tf.io.deserialize_many_sparse([["x", "y", "z"]], tf.float32))


def test_decode_json_example_feeds_parse_example():
    text = ('{"features": {"feature": {"a": {"int64List": {"value": ["3", "4"]}}, '
            '"b": {"floatList": {"value": [0.5]}}}}}')
    with tf.Graph().as_default(), tf.Session() as sess:
        binary = tf.io.decode_json_example([text])
        parsed = tf.parse_example(binary, {"a": tf.FixedLenFeature([2], tf.int64),
                                           "b": tf.FixedLenFeature([1], tf.float32)})
        out = sess.run(parsed)
        assert out["a"].tolist() == [[3, 4]] and out["b"].tolist() == [[0.5]]
        with pytest.raises(tf.errors.InvalidArgumentError, match="parsing JSON"):
            sess.run(tf.decode_json_example('{"features": 3}'))
