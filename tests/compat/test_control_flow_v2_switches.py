"""The control-flow-v2 switches: tensorfleet's tf.cond / tf.while_loop are functional."""

import tensorfleet as tf


def test_control_flow_is_functional_and_switches_keep_values():
    tf.enable_control_flow_v2()
    assert tf.control_flow_v2_enabled() is True
    tf.disable_control_flow_v2()
    with tf.Graph().as_default():
        r = tf.while_loop(lambda i: i < 5, lambda i: i + 2, [tf.constant(0)])
        types = {op.type for op in tf.get_default_graph().get_operations()}
        assert "While" in types and not {"Enter", "Exit"} & types
        with tf.Session() as s:
            assert s.run(r) == 6
