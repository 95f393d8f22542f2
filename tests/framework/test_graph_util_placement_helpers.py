"""``tf.graph_util.must_run_on_cpu`` and ``tensor_shape_from_node_def_name``."""

import pytest

import tensorfleet as tf


def test_helpers():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        tf.identity(x, name="y")
        assert tf.graph_util.tensor_shape_from_node_def_name(g, "y").as_list() == [None, 3]
        assert tf.graph_util.tensor_shape_from_node_def_name(g, "x:0").as_list() == [None, 3]
        with pytest.raises((KeyError, ValueError)):
            tf.graph_util.tensor_shape_from_node_def_name(g, "nothing")
        assert tf.graph_util.must_run_on_cpu(x.op)
        assert tf.graph_util.must_run_on_cpu(g.as_graph_def().node[0], pin_variables_on_cpu=True)
        with pytest.raises(TypeError, match="Operation or NodeDef"):
            tf.graph_util.must_run_on_cpu("x")
