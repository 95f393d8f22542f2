"""make_tensor_proto / make_ndarray: the bytes TensorFlow 2.21 writes for the same values
(tests/fixtures/tensor_protos_tf221.json, written by its tf.make_tensor_proto), and back."""

import json
import os

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.protos import tensor_pb2

FIXTURE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures",
                       "tensor_protos_tf221.json")
CASES = {"floats": ([[1.5, 2.0], [3.0, 4.0]], None, None),
         "ints": ([1, -2, 3], None, None),
         "int64": (np.array([5, 6], np.int64), None, None),
         "strings": (["a", "bc"], None, None),
         "splat": (7, None, [2, 3]),
         "f64": (np.arange(4, dtype=np.float64), None, [2, 2]),
         "bools": ([True, False], None, None),
         "u8": ([1, 2, 255], "uint8", None),
         "half": ([0.5, 1.0], "float16", None)}


def _written():
    with open(FIXTURE) as f:
        return json.load(f)


def _parse(hexed):
    return tensor_pb2.TensorProto.FromString(bytes.fromhex(hexed))


@pytest.mark.parametrize("name", sorted(CASES))
def test_protos_match_tensorflow_and_read_back(name):
    values, dtype, shape = CASES[name]
    proto = tf.make_tensor_proto(values, dtype=dtype, shape=shape)
    theirs = _parse(_written()[name])
    assert proto == theirs
    mine, back = tf.make_ndarray(proto), tf.make_ndarray(theirs)
    want = np.asarray(values, dtype=dtype if dtype else None)
    if shape:
        want = want.reshape(shape) if want.size > 1 else np.broadcast_to(want, shape)
    if name == "strings":
        want = np.array([b"a", b"bc"], object)
    np.testing.assert_array_equal(mine, want)
    np.testing.assert_array_equal(back, want)
    assert mine.dtype == back.dtype


def test_typed_values_fill_the_shape_and_errors():
    np.testing.assert_array_equal(tf.make_ndarray(_parse(_written()["typed_splat"])),
                                  [1.0, 2.0, 2.0])
    with pytest.raises(ValueError, match="Too many elements"):
        tf.make_tensor_proto([1, 2, 3], shape=[2])
    with pytest.raises(TypeError, match="shape"):
        tf.make_tensor_proto([1, 2], shape=[1, 2], verify_shape=True)
    np.testing.assert_array_equal(
        tf.make_ndarray(tf.make_tensor_proto([1, 2], shape=[3, 2], allow_broadcast=True)),
        [[1, 2]] * 3)
    with pytest.raises(TypeError, match="symbolic"):
        tf.make_tensor_proto(tf.constant(1.0))
    with pytest.raises(TypeError, match="integer dtype"):
        tf.make_tensor_proto([1.5], dtype=tf.int32)


def test_serialize_and_parse_tensor_through_the_graph():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    words = np.array([b"a", b"bc"], object)
    ser = [tf.io.serialize_tensor(x), tf.serialize_tensor(words)]
    with tf.Session() as s:
        bx, bw = s.run(ser)
        assert _parse(bx.hex()) == tf.make_tensor_proto(x)
        np.testing.assert_array_equal(s.run(tf.io.parse_tensor(bx, tf.float32)), x)
        np.testing.assert_array_equal(s.run(tf.parse_tensor(bw, tf.string)), words)
        theirs = bytes.fromhex(_written()["floats"])
        np.testing.assert_array_equal(s.run(tf.io.parse_tensor(theirs, tf.float32)),
                                      [[1.5, 2.0], [3.0, 4.0]])
        with pytest.raises(tf.errors.InvalidArgumentError, match="Type mismatch"):
            s.run(tf.io.parse_tensor(bx, tf.int32))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse"):
            s.run(tf.io.parse_tensor(b"\xff\xff\xff", tf.float32))
        # A few bytes may not ask for a huge tensor.
        huge = tensor_pb2.TensorProto.FromString(bytes.fromhex(_written()["typed_splat"]))
        huge.tensor_shape.dim[0].size = 1 << 40
        with pytest.raises(tf.errors.InvalidArgumentError, match="too large"):
            s.run(tf.io.parse_tensor(huge.SerializeToString(), tf.float32))


def test_decode_compressed_zlib_gzip_and_bad_data():
    import gzip
    import zlib
    raw = [b"hello" * 50, b""]
    with tf.Session() as s:
        z = s.run(tf.io.decode_compressed([zlib.compress(r) for r in raw], "ZLIB"))
        g = s.run(tf.decode_compressed(np.array([gzip.compress(r) for r in raw], object),
                                       compression_type="GZIP"))
        assert list(z) == raw and list(g) == raw
        assert list(s.run(tf.io.decode_compressed(raw))) == raw
        with pytest.raises(tf.errors.InvalidArgumentError, match="could not be"):
            s.run(tf.io.decode_compressed([b"not zlib"], "ZLIB"))
        with pytest.raises(tf.errors.InvalidArgumentError, match="truncated"):
            s.run(tf.io.decode_compressed([zlib.compress(raw[0])[:-4]], "ZLIB"))
    with pytest.raises(ValueError, match="compression_type"):
        tf.io.decode_compressed([b"x"], "BZ2")
