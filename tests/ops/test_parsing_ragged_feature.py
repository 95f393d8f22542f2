"""tf.io.RaggedFeature in parse_example / parse_single_example (expected values from
TensorFlow 2.21 on the same serialized Examples)."""

import pytest

import tensorfleet as tf

# Examples with an int64 feature "v" ([1, 2, 3], [], [4]) and bytes "w" (as TF wrote them).
SER = [b"\n\x1a\n\n\n\x01w\x12\x05\n\x03\n\x01a\n\x0c\n\x01v\x12\x07\x1a\x05\n\x03\x01\x02\x03",
       b"\n\x12\n\x07\n\x01w\x12\x02\n\x00\n\x07\n\x01v\x12\x02\x1a\x00",
       b"\n\x1b\n\r\n\x01w\x12\x08\n\x06\n\x01b\n\x01c\n\n\n\x01v\x12\x05\x1a\x03\n\x01\x04"]


def test_ragged_feature_matches_tensorflow():
    with tf.Graph().as_default(), tf.Session() as s:
        out = s.run(tf.io.parse_example(SER, {
            "v": tf.io.RaggedFeature(tf.int64),
            "ww": tf.io.RaggedFeature(tf.string, value_key="w", row_splits_dtype=tf.int64),
            "w": tf.io.VarLenFeature(tf.string)}))
        assert out["v"].to_list() == [[1, 2, 3], [], [4]]
        assert out["v"].row_splits.dtype.name == "int32"  # TensorFlow's default
        assert out["ww"].to_list() == [[b"a"], [], [b"b", b"c"]]
        assert out["ww"].row_splits.dtype.name == "int64"
        assert out["w"].values.tolist() == [b"a", b"b", b"c"]
        assert s.run(tf.io.parse_single_example(SER[0], {"v": tf.io.RaggedFeature(
            tf.int64)}))["v"].tolist() == [1, 2, 3]
        missing = s.run(tf.io.parse_example([b"\x0a\x00"], {"x": tf.io.RaggedFeature(
            tf.float32)}))
        assert missing["x"].to_list() == [[]]
    with pytest.raises(ValueError, match="partitions are not supported"):
        tf.io.parse_example(SER, {"v": tf.io.RaggedFeature(tf.int64, partitions=("p",))})
    with pytest.raises(ValueError, match="parses differently"):
        tf.io.parse_example(SER, {"r": tf.io.RaggedFeature(tf.int64, value_key="v"),
                                  "v": tf.io.FixedLenFeature([], tf.int64)})
