"""tf.io.decode_proto / encode_proto (expected values from TensorFlow 2.21 on the same
messages and descriptor set)."""

import pytest
from google.protobuf import descriptor_pb2

import tensorfleet as tf
from tensorfleet.protos import example_pb2

# Serialized tfltest.Rec messages (as TensorFlow encoded them).
MSGS = [b"\x08\x03\x15\x00\x00\xc0?\x15\x00\x00 @\x1a\x02hi \x01(\x80\x80\x80\x80\x80\x80"
        b"\x80\x80\x80\x011\x00\x00\x00\x00\x00\x00\xd0?:\x02\x08\t@\t@\x0c",
        b"\x15\x00\x00\x80@", b"\x1a\x01x@\x02@\x04@\x06"]
NAMES = ["i", "r", "s", "b", "u", "d", "n", "e"]
TYPES = [tf.int32, tf.float32, tf.string, tf.bool, tf.uint64, tf.float64, tf.string, tf.int64]


def _descriptor_set() -> bytes:
    T = descriptor_pb2.FieldDescriptorProto
    fds = descriptor_pb2.FileDescriptorSet()
    f = fds.file.add(name="tfl_test.proto", package="tfltest", syntax="proto2")
    inner = f.message_type.add(name="Inner")
    inner.field.add(name="v", number=1, type=T.TYPE_INT32, label=T.LABEL_OPTIONAL)
    rec = f.message_type.add(name="Rec")
    for name, num, typ, label, extra in [
            ("i", 1, T.TYPE_INT32, T.LABEL_OPTIONAL, {"default_value": "7"}),
            ("r", 2, T.TYPE_FLOAT, T.LABEL_REPEATED, {}),
            ("s", 3, T.TYPE_STRING, T.LABEL_OPTIONAL, {}),
            ("b", 4, T.TYPE_BOOL, T.LABEL_OPTIONAL, {}),
            ("u", 5, T.TYPE_UINT64, T.LABEL_REPEATED, {}),
            ("d", 6, T.TYPE_DOUBLE, T.LABEL_OPTIONAL, {}),
            ("n", 7, T.TYPE_MESSAGE, T.LABEL_OPTIONAL, {"type_name": ".tfltest.Inner"}),
            ("e", 8, T.TYPE_SINT64, T.LABEL_REPEATED, {})]:
        rec.field.add(name=name, number=num, type=typ, label=label, **extra)
    return fds.SerializeToString()


@pytest.fixture
def fds_file(tmp_path):
    path = tmp_path / "fds.bin"
    path.write_bytes(_descriptor_set())
    return str(path)


def test_decode_proto_matches_tensorflow(fds_file):
    with tf.Graph().as_default(), tf.Session() as s:
        sizes, vals = s.run(tf.io.decode_proto(MSGS, "tfltest.Rec", NAMES, TYPES,
                                               descriptor_source=fds_file))
        assert sizes.tolist() == [[1, 2, 1, 1, 1, 1, 1, 2], [0, 1, 0, 0, 0, 0, 0, 0],
                                  [0, 0, 1, 0, 0, 0, 0, 3]]
        assert [v.tolist() for v in vals] == [
            [[3], [7], [7]], [[1.5, 2.5], [4.0, 0.0], [0.0, 0.0]], [[b"hi"], [b""], [b"x"]],
            [[True], [False], [False]], [[2 ** 63], [0], [0]], [[0.25], [0.0], [0.0]],
            [[b"\x08\t"], [b""], [b""]], [[-5, 6, 0], [0, 0, 0], [1, 2, 3]]]
        # A batch of any shape; the descriptor set given inline; widening output types.
        sizes, vals = s.run(tf.io.decode_proto(
            [MSGS[:2], [MSGS[2], b""]], "tfltest.Rec", ["i", "r"], [tf.int64, tf.float64],
            descriptor_source=b"bytes://" + _descriptor_set()))
        assert sizes.tolist() == [[[1, 2], [0, 1]], [[0, 0], [0, 0]]]
        assert vals[0].tolist() == [[[3], [7]], [[7], [7]]]
        assert vals[1].tolist() == [[[1.5, 2.5], [4.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]]]
        # Fields absent everywhere still give one (padding) column.
        sizes, vals = s.run(tf.io.decode_proto([MSGS[1], b""], "tfltest.Rec", ["u", "e"],
                                               [tf.uint64, tf.int64], descriptor_source=fds_file))
        assert sizes.tolist() == [[0, 0], [0, 0]] and vals[0].tolist() == [[0], [0]]
        sizes, vals = s.run(tf.io.decode_proto([b"i: 4 r: 1 r: 2"], "tfltest.Rec", ["i", "r"],
                                               [tf.int32, tf.float32], fds_file, "text"))
        assert sizes.tolist() == [[1, 2]] and vals[1].tolist() == [[1.0, 2.0]]
        # local:// is the process's own pool.
        ex = example_pb2.Example()
        ex.features.feature["a"].int64_list.value.extend([1, 2])
        sizes, vals = s.run(tf.io.decode_proto([ex.SerializeToString()],
                                               "tensorfleet.example.Example", ["features"],
                                               [tf.string]))
        assert vals[0].tolist() == [[ex.features.SerializeToString()]]
        for bad, err, msg in [
                (("tfltest.Rec", ["r"], [tf.int32]), tf.errors.InvalidArgumentError,
                 "Unexpected output type for tfltest.Rec.r: float to int32"),
                (("tfltest.Nope", ["i"], [tf.int32]), tf.errors.InvalidArgumentError,
                 "No descriptor found for message type tfltest.Nope"),
                (("tfltest.Rec", ["zz"], [tf.int32]), tf.errors.InvalidArgumentError,
                 "Unknown field: zz in message type tfltest.Rec")]:
            with pytest.raises(err, match=msg):
                s.run(tf.io.decode_proto(MSGS, *bad, descriptor_source=fds_file))
        with pytest.raises(tf.errors.DataLossError, match="Unable to parse"):
            s.run(tf.io.decode_proto([b"\xff\xff"], "tfltest.Rec", ["i"], [tf.int32],
                                     descriptor_source=fds_file))
        with pytest.raises(tf.errors.NotFoundError):
            s.run(tf.io.decode_proto(MSGS, "tfltest.Rec", ["i"], [tf.int32],
                                     descriptor_source=fds_file + ".missing"))
    with pytest.raises(ValueError, match="sanitize"):
        tf.io.decode_proto(MSGS, "tfltest.Rec", ["i"], [tf.int32], sanitize=True)
    with pytest.raises(ValueError, match="message_format"):
        tf.io.decode_proto(MSGS, "tfltest.Rec", ["i"], [tf.int32], message_format="json")


def test_encode_proto_matches_tensorflow(fds_file):
    with tf.Graph().as_default(), tf.Session() as s:
        sizes, vals = tf.io.decode_proto(MSGS, "tfltest.Rec", NAMES, TYPES,
                                         descriptor_source=fds_file)
        again = tf.io.encode_proto(sizes, vals, NAMES, "tfltest.Rec", descriptor_source=fds_file)
        assert s.run(again).tolist() == MSGS
        two = tf.io.encode_proto([[1, 2]], [tf.constant([[5]]), tf.constant([[1.0, 2.0]])],
                                 ["i", "r"], "tfltest.Rec", descriptor_source=fds_file)
        assert s.run(two).tolist() == [b"\x08\x05\x15\x00\x00\x80?\x15\x00\x00\x00@"]
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Size to write must not be larger than value tensor; but "
                                 "saw: 3 > 2 at message 0 field 0"):
            s.run(tf.io.encode_proto([[3]], [tf.constant([[5, 6]])], ["i"], "tfltest.Rec",
                                     descriptor_source=fds_file))
        with pytest.raises(tf.errors.InvalidArgumentError, match="not repeated"):
            s.run(tf.io.encode_proto([[2]], [tf.constant([[5, 6]])], ["i"], "tfltest.Rec",
                                     descriptor_source=fds_file))
