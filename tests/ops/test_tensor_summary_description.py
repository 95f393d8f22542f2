"""tf.summary.get_summary_description reads a TensorSummary node's description."""

import pytest

import tensorfleet as tf


def test_description_of_tensor_summary_nodes():
    node = {"name": "x", "op": "TensorSummary",
            "attr": {"description": {"s": '{"type_hint": "audio"}'}}}
    assert tf.summary.get_summary_description(node).type_hint == "audio"
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="on ScalarSummary"):
            tf.summary.get_summary_description(tf.summary.scalar("s", 1.0).op.node_def)
