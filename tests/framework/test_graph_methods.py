"""The Graph and Operation methods through which other layers rewrite a graph."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.framework.graph_keys import GraphKeys
from tensorfleet.framework.serialization import graph_to_plain, import_graph_def


def test_add_imported_op_keeps_name_shape_and_refuses_duplicates():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
    op = g.add_imported_op("Identity", "copy", [x], [tf.float32], [[None, 3]],
                           {"T": tf.float32}, "", [])
    assert op.name == "copy" and g.has_operation("copy")
    assert op.outputs[0].shape.as_list() == [None, 3]
    v = g.version
    with pytest.raises(ValueError, match="duplicate"):
        g.add_imported_op("NoOp", "copy", [], [], [], {}, "", [])
    assert g.version == v
    # The name is claimed: a new op asking for it gets a suffix.
    with g.as_default():
        assert tf.identity(x, name="copy").op.name == "copy_1"


def test_remove_operations_drops_ops_names_and_collection_entries():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
        b = tf.identity(a, name="b")
        tf.add_to_collection("things", b)
        tf.add_to_collection("things", a)
    g.remove_operations([b.op])
    assert [op.name for op in g.get_operations()] == ["a"]
    assert not g.has_operation("b")
    assert g.get_collection("things") == [a]
    # Only entries from a collection's start position on are dropped.
    with g.as_default():
        c = tf.identity(a, name="c")
        tf.add_to_collection("things", c)
    g.remove_operations([c.op], {"things": 2})
    assert g.get_collection("things") == [a, c] and not g.has_operation("c")
    with g.as_default():
        d = tf.identity(a, name="d")
        tf.add_to_collection("things", d)
    g.remove_operations([d.op], {"things": 2})
    assert g.get_collection("things") == [a, c]


def test_move_operations_keeps_a_topological_order_that_imports():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(np.float32(2.0), name="a")
        b = tf.constant(np.float32(3.0), name="b")
        c = tf.add(a, b, name="c")
    g.move_operations([b.op], 0)
    assert [op.name for op in g.get_operations()] == ["b", "a", "c"]
    g2 = import_graph_def(graph_to_plain(g))
    with tf.Session(graph=g2) as sess:
        assert sess.run("c:0") == pytest.approx(5.0)


def test_release_name_lets_one_op_take_a_scope_name():
    g = tf.Graph()
    with g.as_default():
        with tf.name_scope("init") as scope:
            pass
        g.release_name(scope[:-1])
        assert tf.no_op(name="init").name == "init"
        with pytest.raises(ValueError, match="already exists"):
            g.release_name("init")


def test_operation_rewrites_change_inputs_outputs_attrs_and_version():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
        b = tf.constant(2.0, name="b")
        gate = tf.no_op(name="gate")
        with tf.control_dependencies([gate]):
            y = tf.identity(a, name="y")
    v = g.version
    y.op.replace_input(0, b)
    y.op.remove_control_input(gate)
    assert y.op.inputs == [b] and y.op.control_inputs == []
    with pytest.raises(ValueError):
        y.op.remove_control_input(gate)
    extra = y.op.add_output(tf.int32, [2])
    assert extra is y.op.outputs[1] and extra.name == "y:1"
    assert extra.shape.as_list() == [2] and y.op.add_output(tf.float32).shape.ndims is None
    y.op.set_attr("note", "rewritten")
    assert y.op.get_attr("note") == "rewritten"
    assert g.version == v + 5


def test_schedule_key_follows_creation_order_until_set():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0)
        b = tf.constant(2.0)
    assert a.op.schedule_key < b.op.schedule_key
    b.op.set_schedule_key(a.op.schedule_key - 0.5)
    assert b.op.schedule_key < a.op.schedule_key


def test_graph_keys_are_reexported_by_graph_and_tf():
    assert tf.GraphKeys is GraphKeys
    assert tf.GraphKeys.TRAINABLE_VARIABLES == "trainable_variables"
