"""TensorFlow's GraphDef files import into tensorfleet through one op table.

The fixtures in tests/fixtures/tf_files were written by TensorFlow 2.21 (make_fixtures.py):
the interop model frozen at the checkpoint's step (binary and text), and a graph of
39 op types with its outputs. No TensorFlow is needed here.
"""

import os

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet import errors
from tensorfleet.framework import tensor_proto
from tensorfleet.ops import tensorflow_graph_import as tgi
from tensorfleet.protos import graph_pb2, tensor_pb2

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures",
                    "tf_files")


def _read(name):
    with open(os.path.join(DATA, name), "rb") as f:
        return f.read()


@pytest.mark.parametrize("fname", ["frozen_graph.pb", "frozen_graph.pbtxt"])
def test_frozen_graph_gives_tensorflows_predictions(fname):
    expected = np.load(os.path.join(DATA, "expected.npz"))
    graph_def = tf.GraphDef()
    graph_def.ParseFromString(_read(fname))
    assert graph_def.node[0].op == "Placeholder"
    with tf.Graph().as_default():
        x, ids, logits = tf.import_graph_def(graph_def, return_elements=[
            "x:0", "ids:0", "dense/logits:0"])
        assert logits.name == "import/dense/logits:0"
        with tf.Session() as sess:
            got = sess.run(logits, {x: expected["x"], ids: expected["ids"]})
    np.testing.assert_allclose(got, expected["preds"], rtol=1e-6, atol=1e-6)


def test_graph_of_many_op_types_matches_tensorflow_outputs():
    expected = np.load(os.path.join(DATA, "ops_expected.npz"))
    with tf.Graph().as_default():
        tf.import_graph_def(_read("ops_graph.pb"), name="")
        with tf.Session() as sess:
            got = sess.run({k: k + ":0" for k in ("out", "top", "first", "logsm")},
                           {"x:0": expected["x"]})
    for k, v in got.items():
        assert v.dtype == expected[k].dtype, k
        np.testing.assert_allclose(v, expected[k], rtol=1e-5, atol=1e-5, err_msg=k)


def test_input_map_replaces_a_placeholder():
    expected = np.load(os.path.join(DATA, "expected.npz"))
    graph_def = tgi.parse_tensorflow_graph_def(_read("frozen_graph.pb"))
    with tf.Graph().as_default():
        ids = tf.constant(expected["ids"])
        (logits,) = tf.import_graph_def(graph_def, input_map={"ids": ids},
                                        return_elements=["dense/logits:0"], name="m")
        with tf.Session() as sess:
            got = sess.run(logits, {"m/x:0": expected["x"]})
    np.testing.assert_allclose(got, expected["preds"], rtol=1e-6, atol=1e-6)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="names no node"):
        tf.import_graph_def(graph_def, input_map={"nope:0": tf.constant(1.0)})


def _graph(*nodes):
    gd = graph_pb2.GraphDef()
    for name, op, inputs in nodes:
        n = gd.node.add(name=name, op=op)
        n.input.extend(inputs)
    return gd


def test_missing_ops_are_listed_in_one_error_before_anything_is_built():
    gd = _graph(("a", "Placeholder", []), ("b", "FancyOp", ["a"]), ("c", "OtherOp", ["b"]),
                ("d", "FancyOp", ["c"]), ("e", "Relu", ["d"]))
    gd.node[0].attr["dtype"].type = 1
    with tf.Graph().as_default() as g:
        with pytest.raises(errors.InvalidArgumentError) as e:
            tf.import_graph_def(gd.SerializeToString())
        assert not g.get_operations()
    assert "2 op type(s) have no tensorfleet equivalent: FancyOp, OtherOp" in str(e.value)


def test_v1_control_flow_and_functions_are_refused_saying_why():
    gd = _graph(("a", "Placeholder", []), ("s", "Switch", ["a", "a"]), ("m", "Merge", ["s"]),
                ("q", "Quux", []))
    gd.library.function.append(b"\n\x02\n\x00")
    with pytest.raises(errors.InvalidArgumentError) as e:
        tgi.check_importable(gd)
    msg = str(e.value)
    assert "control flow (Merge, Switch)" in msg and "function" in msg and "Quux" in msg


def test_malformed_graphs_are_refused():
    data = _read("frozen_graph.pb")
    whole = len(tgi.parse_tensorflow_graph_def(data).node)
    refused = 0
    for n in range(0, len(data), 7):
        # Protobuf carries no length of its own: a cut at a field boundary is a smaller
        # graph; anywhere else it is an error naming the file.
        try:
            assert len(tgi.parse_tensorflow_graph_def(data[:n], "frozen_graph.pb").node) < whole
        except errors.InvalidArgumentError as e:
            assert "frozen_graph.pb is not a GraphDef" in str(e)
            refused += 1
    assert refused > len(data) // 7 * 0.9
    with pytest.raises(errors.InvalidArgumentError, match="neither"):
        tf.GraphDef().ParseFromString(b"\xff\xfe\x00 not a graph")
    with pytest.raises(errors.InvalidArgumentError, match="cycle"):
        tgi.import_tensorflow_graph_def(_graph(("a", "Identity", ["b"]),
                                               ("b", "Identity", ["a"])))
    with pytest.raises(errors.InvalidArgumentError, match="not in the graph def"):
        tgi.import_tensorflow_graph_def(_graph(("a", "Identity", ["zzz"])))
    with pytest.raises(errors.InvalidArgumentError, match="two nodes named a"):
        tgi.import_tensorflow_graph_def(_graph(("a", "NoOp", []), ("a", "NoOp", [])))


def test_tensor_protos_decode_as_tensorflow_defines_them():
    p = tensor_pb2.TensorProto(dtype=1, tensor_shape=tensor_proto.shape_to_proto([2, 3]))
    p.float_val.extend([1.0, 2.0])  # fewer values than elements: the last one repeats
    np.testing.assert_array_equal(tensor_proto.make_ndarray(p), [[1, 2, 2], [2, 2, 2]])
    p = tensor_pb2.TensorProto(dtype=19, tensor_shape=tensor_proto.shape_to_proto([2]))
    p.half_val.extend(np.array([1.5, -2.0], np.float16).view(np.uint16).tolist())
    np.testing.assert_array_equal(tensor_proto.make_ndarray(p), np.array([1.5, -2.0], np.float16))
    p = tensor_pb2.TensorProto(dtype=3, tensor_shape=tensor_proto.shape_to_proto([3]))
    assert tensor_proto.make_ndarray(p).tolist() == [0, 0, 0]
    for value in [np.arange(6, dtype=np.int64).reshape(2, 3), np.array([b"a", b"bc"], object),
                  np.array(True), np.array([0.5], np.float64)]:
        back = tensor_proto.make_ndarray(tensor_proto.make_tensor_proto(value))
        np.testing.assert_array_equal(back, value)
        assert back.dtype == value.dtype


def test_hostile_tensor_protos_are_refused_before_allocating():
    p = tensor_pb2.TensorProto(dtype=1, tensor_shape=tensor_proto.shape_to_proto([1 << 20,
                                                                                  1 << 20]))
    with pytest.raises(errors.InvalidArgumentError, match="too large"):
        tensor_proto.make_ndarray(p)
    p = tensor_pb2.TensorProto(dtype=1, tensor_shape=tensor_proto.shape_to_proto([4]),
                               tensor_content=b"\0" * 12)
    with pytest.raises(errors.InvalidArgumentError, match="12 bytes"):
        tensor_proto.make_ndarray(p)
    p = tensor_pb2.TensorProto(dtype=1, tensor_shape=tensor_proto.shape_to_proto([1]))
    p.float_val.extend([1.0, 2.0])
    with pytest.raises(errors.InvalidArgumentError, match="2 values"):
        tensor_proto.make_ndarray(p)
    p = tensor_pb2.TensorProto(dtype=20, tensor_shape=tensor_proto.shape_to_proto([1]))
    with pytest.raises(errors.InvalidArgumentError, match="DataType 20"):
        tensor_proto.make_ndarray(p)
    p = tensor_pb2.TensorProto(dtype=1, tensor_shape=tensor_proto.shape_to_proto([None]))
    with pytest.raises(errors.InvalidArgumentError, match="fully defined"):
        tensor_proto.make_ndarray(p)


def test_nesting_deeper_than_protobufs_limit_is_refused():
    from tensorfleet.platform.sorted_string_table import put_varint

    def field(tag, payload):
        return bytes([tag]) + put_varint(len(payload)) + payload

    value = b""
    for _ in range(300):  # AttrValue.func -> NameAttrList.attr["a"] -> AttrValue ...
        value = field(0x52, field(0x12, field(0x0A, b"a") + field(0x12, value)))
    node = field(0x0A, b"n") + field(0x12, b"NoOp") + field(0x2A, field(0x0A, b"x") +
                                                            field(0x12, value))
    with pytest.raises(errors.InvalidArgumentError, match="deep.pb is not a GraphDef") as e:
        tgi.parse_tensorflow_graph_def(field(0x0A, node), "deep.pb")
    assert "binary" in str(e.value)
