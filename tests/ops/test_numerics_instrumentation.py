"""tf.debugging.enable_check_numerics: ops created while enabled fail the step at the
first Inf or NaN they produce, naming the op (TensorFlow's message shape)."""

import pytest

import tensorfleet as tf


def test_ops_created_while_enabled_are_checked():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2])
        before = tf.log(x)
        tf.debugging.enable_check_numerics()
        try:
            checked = tf.log(x)
            doubled = checked * 2.0
            ints = tf.constant([1, 2]) + 1
        finally:
            tf.debugging.disable_check_numerics()
        after = tf.log(x)
        assert checked.op.get_attr("_check_numerics") is True
        assert "_check_numerics" not in ints.op.attrs and "_check_numerics" not in x.op.attrs
        with tf.Session() as s:
            assert s.run(before, {x: [0., 1.]})[0] == float("-inf")
            assert s.run(after, {x: [0., 1.]})[0] == float("-inf")
            assert s.run(doubled, {x: [2., 1.]})[1] == 0.0
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                s.run(doubled, {x: [0., 1.]})
            msg = str(e.value)
            assert 'Detected Infinity or NaN in output 0 of graph op "Log"' in msg
            assert "Tensor had -Inf values" in msg and checked.op.name in msg
            with pytest.raises(tf.errors.InvalidArgumentError, match="had NaN values"):
                s.run(doubled, {x: [-1., 1.]})
    with pytest.raises(ValueError, match="stack_height_limit"):
        tf.debugging.enable_check_numerics(stack_height_limit=0)
