"""GraphDef / NodeDef / AttrValue objects, tf.import_graph_def, tf.graph_util and
tf.train.write_graph, tf.container."""

import json
import os

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.framework import serialization


def _model():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable([[1.0], [2.0]], name="w")
    b = tf.Variable([0.5], name="b")
    y = tf.add(tf.matmul(x, w), b, name="y")
    tf.identity(y * 3.0, name="unused")
    return x, w, b, y


def test_as_graph_def_has_tensorflow_fields():
    x, w, _, y = _model()
    gd = tf.get_default_graph().as_graph_def()
    assert isinstance(gd, tf.GraphDef)
    names = [n.name for n in gd.node]
    assert names == [op.name for op in tf.get_default_graph().get_operations()]
    by = {n.name: n for n in gd.node}
    assert isinstance(by["w"], tf.NodeDef)
    assert by["w"].op == "VariableV2" and by["w"].device == ""
    assert by["w"].attr["dtype"].type is tf.float32
    assert by["w"].attr["shape"].shape.as_list() == [2, 1]
    assert by["w"].attr["dtype"].WhichOneof("value") == "type"
    np.testing.assert_array_equal(by["w/initial_value"].attr["value"].tensor, [[1.0], [2.0]])
    assert by["y"].input == ["MatMul:0", "b/read:0"]
    assert by["x"].attr["dtype"].i == 0  # an unset field reads as its default
    assert y.op.node_def == by["y"] and y.op.node_def.op == "Add"


def test_graph_def_is_still_plain_data_and_imports():
    x, _, _, y = _model()
    gd = tf.get_default_graph().as_graph_def()
    plain = json.loads(json.dumps(gd))
    assert plain == serialization.graph_to_plain(tf.get_default_graph())
    g2 = tf.import_graph_def(plain, graph=tf.Graph())
    g3 = tf.import_graph_def(tf.GraphDef.FromString(gd.SerializeToString()), graph=tf.Graph())
    for g in (g2, g3):
        with tf.Session(graph=g) as s:
            s.run([g.get_operation_by_name("w/Assign"), g.get_operation_by_name("b/Assign")])
            np.testing.assert_allclose(s.run("y:0", {"x:0": [[1.0, 1.0]]}), [[3.5]])


def test_attr_value_and_node_def_construction():
    a = tf.AttrValue(i=3)
    assert a.i == 3 and a.WhichOneof("value") == "i" and a.f == 0.0 and a.s == b""
    assert tf.AttrValue(s=b"abc").s == b"abc"
    assert tf.AttrValue(type=tf.int64).type is tf.int64
    assert tf.AttrValue(list=[1, 2]).list == [1, 2]
    assert tf.AttrValue(shape=[2, None]).shape.as_list() == [2, None]
    assert tf.AttrValue(type="int32").type is tf.int32
    np.testing.assert_array_equal(tf.AttrValue(tensor=[1.5, 2.5]).tensor, [1.5, 2.5])
    a.f = 2.5
    assert a.WhichOneof("value") == "f" and a.f == 2.5 and a.i == 0
    with pytest.raises(TypeError, match="no field"):
        tf.AttrValue(q=1)
    with pytest.raises(TypeError, match="cannot hold"):
        tf.AttrValue(i="x")
    gd = tf.GraphDef()
    gd.node.add(name="c", op="Const", attr={"dtype": tf.float32,
                                            "value": np.array(4.0, np.float32)},
                out=[["float32", []]])
    n2 = gd.node.add(name="d", op="Identity", input=["c:0"], out=[["float32", []]])
    assert n2.input == ["c:0"] and len(gd.node) == 2
    g = tf.import_graph_def(gd, graph=tf.Graph())
    with tf.Session(graph=g) as s:
        assert s.run("d:0") == 4.0


def test_import_graph_def_tensorflow_style():
    _model()
    gd = tf.get_default_graph().as_graph_def()
    with tf.Graph().as_default() as g:
        feed = tf.constant([[2.0, 0.0]], name="feed")
        y, w_assign, b_assign = tf.import_graph_def(
            gd, input_map={"x:0": feed}, return_elements=["y:0", "w/Assign", "b/Assign"],
            name="frozen")
        assert y.name == "frozen/y:0" and w_assign.name == "frozen/w/Assign"
        # The graph-def-only form imports into the default graph under "import".
        assert tf.import_graph_def(gd) is None
        assert g.get_operation_by_name("import/y").type == "Add"
        assert tf.import_graph_def(gd, name="frozen") is None
        assert g.get_operation_by_name("frozen_1/y").type == "Add"
        assert tf.import_graph_def(gd, return_elements=["y:0"])[0].name == "import_1/y:0"
        with tf.Session() as s:
            s.run([w_assign, b_assign])
            np.testing.assert_allclose(s.run(y), [[2.5]])
        with pytest.raises(ValueError, match="names no node"):
            tf.import_graph_def(gd, input_map={"nope:0": feed}, name="z")
        with pytest.raises(ValueError, match="return element"):
            tf.import_graph_def(gd, return_elements=["nope:0"], name="z2")


def test_parse_rejects_garbage():
    with pytest.raises(tf.errors.InvalidArgumentError, match="not UTF-8 JSON"):
        tf.GraphDef.FromString(b"\x08\xff\x01")
    with pytest.raises(tf.errors.InvalidArgumentError, match="'node' list"):
        tf.GraphDef.FromString(b'{"version": 1}')
    gd = tf.GraphDef()
    gd.node.add(name="evil", op="NoSuchOp")
    with pytest.raises(tf.errors.NotFoundError, match="NoSuchOp"):
        tf.import_graph_def(json.loads(json.dumps(gd)))


def test_extract_sub_graph_keeps_what_outputs_need_in_order():
    _model()
    gd = tf.get_default_graph().as_graph_def()
    sub = tf.graph_util.extract_sub_graph(gd, ["y"])
    names = [n.name for n in sub.node]
    assert "unused" not in names and "w/Assign" not in names
    assert names == [n.name for n in gd.node if n.name in set(names)]
    assert set(names) == {"x", "w", "w/read", "b", "b/read", "MatMul", "y"}
    assert len(gd.node) > len(sub.node)  # the input is left as it was
    with pytest.raises(ValueError, match="not in graph"):
        tf.graph_util.extract_sub_graph(gd, ["nope"])
    with pytest.raises(TypeError):
        tf.graph_util.extract_sub_graph(gd, "y")


def test_convert_variables_to_constants_freezes_values():
    x, w, b, y = _model()
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(w.assign([[3.0], [4.0]]))
        frozen = tf.graph_util.convert_variables_to_constants(
            s, tf.get_default_graph().as_graph_def(), ["y"])
    ops = {n.name: n.op for n in frozen.node}
    assert ops["w"] == "Const" and ops["b"] == "Const"
    assert "VariableV2" not in ops.values()
    with tf.Graph().as_default():
        out, = tf.import_graph_def(frozen, return_elements=["y:0"], name="")
        with tf.Session() as s:  # no initialization needed any more
            np.testing.assert_allclose(s.run(out, {"x:0": [[1.0, 2.0]]}), [[11.5]])


def test_convert_variables_to_constants_blacklist():
    _model()
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        frozen = tf.graph_util.convert_variables_to_constants(
            s, tf.get_default_graph().as_graph_def(), ["y"], variable_names_blacklist=["b"])
    ops = {n.name: n.op for n in frozen.node}
    assert ops["w"] == "Const" and ops["b"] == "VariableV2"


def test_remove_training_nodes_rewires_identities():
    a = tf.constant(2.0, name="a")
    i = tf.identity(tf.identity(a, name="i1"), name="i2")
    tf.multiply(i, 3.0, name="out")
    gd = tf.graph_util.remove_training_nodes(tf.get_default_graph().as_graph_def(),
                                             protected_nodes=[])
    by = {n.name: n for n in gd.node}
    assert "i1" not in by and "i2" not in by
    assert by["out"].input[0] == "a:0"
    with tf.Session(graph=tf.import_graph_def(gd)) as s:
        assert s.run("out:0") == 6.0


@pytest.mark.parametrize("as_text", [True, False])
def test_write_graph_text_and_binary(tmp_path, as_text):
    _model()
    g = tf.get_default_graph()
    path = tf.train.write_graph(g, str(tmp_path / "sub"), "g.pb", as_text=as_text)
    assert path == os.path.join(str(tmp_path / "sub"), "g.pb")
    data = open(path, "rb").read()
    assert data.startswith(b'node {\n  name: "x"') is as_text  # TensorFlow's text format
    back = tf.GraphDef.FromString(data)
    # TensorFlow's GraphDef message, with the graph's nodes, ops and inputs.
    assert [(n.name, n.op) for n in back.node] == [(op.name, op.type)
                                                  for op in g.get_operations()]
    by = {n.name: n for n in back.node}
    assert list(by["y"].input) == ["MatMul", "b/read"]
    assert by["y"].attr["T"].type == 1 and by["w"].attr["dtype"].type == 1
    path2 = tf.train.write_graph(g.as_graph_def(), str(tmp_path), "g2.pbtxt")
    assert tf.GraphDef.FromString(open(path2, "rb").read()).tensorflow == back.tensorflow
    with pytest.raises(TypeError):
        tf.train.write_graph(42, str(tmp_path), "x")


def test_container_scopes_stateful_ops():
    with tf.container("experiment"):
        v = tf.Variable(1.0, name="v")
        q = tf.FIFOQueue(3, tf.float32, name="q")
    u = tf.Variable(2.0, name="u")
    assert v.op.get_attr("container") == "experiment"
    assert q.queue_ref.op.get_attr("container") == "experiment"
    assert u.op.get_attr("container") == ""
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(v) == 1.0
    with pytest.raises(TypeError):
        with tf.container(3):
            pass
