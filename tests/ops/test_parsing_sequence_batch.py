"""tf.io.parse_sequence_example (expected values from TensorFlow 2.21 on the same
serialized SequenceExamples)."""

import numpy as np
import pytest

import tensorfleet as tf

# Three SequenceExamples: context "len" (int64) and "tags" (bytes), feature lists "x"
# (two floats per step) and "w" (ints), with 2, 1 and 0 steps (as TensorFlow wrote them).
SER = [b"\n\x1d\n\r\n\x04tags\x12\x05\n\x03\n\x01a\n\x0c\n\x03len\x12\x05\x1a\x03\n\x01\x02"
       b"\x12:\n\x15\n\x01w\x12\x10\n\x06\x1a\x04\n\x02\x02\x02\n\x06\x1a\x04\n\x02\x02\x02"
       b"\n!\n\x01x\x12\x1c\n\x0c\x12\n\n\x08\x00\x00\x80?\x00\x00\x00@\n\x0c\x12\n\n\x08"
       b"\x00\x00@@\x00\x00\x80@",
       b"\n\x1a\n\n\n\x04tags\x12\x02\n\x00\n\x0c\n\x03len\x12\x05\x1a\x03\n\x01\x01\x12$\n\r"
       b"\n\x01w\x12\x08\n\x06\x1a\x04\n\x02\x02\x02\n\x13\n\x01x\x12\x0e\n\x0c\x12\n\n\x08"
       b"\x00\x00\xa0@\x00\x00\xc0@",
       b"\n \n\x10\n\x04tags\x12\x08\n\x06\n\x01b\n\x01c\n\x0c\n\x03len\x12\x05\x1a\x03\n\x01"
       b"\x00\x12\x0e\n\x05\n\x01w\x12\x00\n\x05\n\x01x\x12\x00"]


def test_parse_sequence_example_matches_tensorflow():
    with tf.Graph().as_default(), tf.Session() as s:
        ctx, lists, lengths = s.run(tf.io.parse_sequence_example(
            SER,
            context_features={"len": tf.io.FixedLenFeature([], tf.int64),
                              "tags": tf.io.VarLenFeature(tf.string),
                              "missing": tf.io.FixedLenFeature([2], tf.float32,
                                                               default_value=[9.0, 8.0])},
            sequence_features={"x": tf.io.FixedLenSequenceFeature([2], tf.float32,
                                                                  allow_missing=True),
                               "w": tf.io.VarLenFeature(tf.int64)}))
        assert ctx["len"].tolist() == [2, 1, 0]
        assert ctx["missing"].tolist() == [[9.0, 8.0]] * 3
        assert ctx["tags"].indices.tolist() == [[0, 0], [2, 0], [2, 1]]
        assert ctx["tags"].values.tolist() == [b"a", b"b", b"c"]
        assert ctx["tags"].dense_shape.tolist() == [3, 2]
        np.testing.assert_array_equal(lists["x"], [[[1, 2], [3, 4]], [[5, 6], [0, 0]],
                                                   [[0, 0], [0, 0]]])
        assert lists["w"].indices.tolist() == [[0, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 1],
                                               [1, 0, 0], [1, 0, 1]]
        assert lists["w"].values.tolist() == [2] * 6
        assert lists["w"].dense_shape.tolist() == [3, 2, 2]
        assert list(lengths) == ["x"] and lengths["x"].tolist() == [2, 1, 0]
        with pytest.raises(tf.errors.InvalidArgumentError, match="example 0"):
            s.run(tf.io.parse_sequence_example(SER, sequence_features={
                "nope": tf.io.FixedLenSequenceFeature([1], tf.float32)}))
    with pytest.raises(ValueError, match="default_value is not supported"):
        tf.io.parse_sequence_example(SER, sequence_features={
            "x": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True,
                                               default_value=-1.0)})
    with pytest.raises(ValueError, match="example_names"):
        tf.io.parse_sequence_example(SER, {"len": tf.io.FixedLenFeature([], tf.int64)},
                                     example_names=["a", "b", "c"])
