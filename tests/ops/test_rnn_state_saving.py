"""tf.nn.static_state_saving_rnn: the state comes from and goes back to a state saver;
values from TensorFlow 2.21's tf.compat.v1."""

import numpy as np
import pytest

import tensorfleet as tf


class _VariableSaver:
    def __init__(self, names, size):
        self.v = {n: tf.Variable(np.full([2, size], 0.1 * (i + 1), np.float32), name=n)
                  for i, n in enumerate(names)}

    def state(self, name):
        return self.v[name].value()

    def save_state(self, name, value):
        return tf.assign(self.v[name], value)


def test_state_is_loaded_and_saved_across_runs():
    with tf.Graph().as_default():
        cell = tf.nn.rnn_cell.LSTMCell(3, initializer=tf.constant_initializer(0.2))
        saver = _VariableSaver(["c", "h"], 3)
        inputs = [tf.constant(np.arange(4, dtype=np.float32).reshape(2, 2) * (t + 1) / 10)
                  for t in range(3)]
        outs, state = tf.nn.static_state_saving_rnn(cell, inputs, saver, ("c", "h"))
        with pytest.raises(ValueError, match="same type"):
            tf.nn.static_state_saving_rnn(cell, inputs, saver, "c", scope="other")
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            first = s.run(outs[-1])
            saved_h = s.run(saver.v["h"])
            second = s.run(outs[-1])
    np.testing.assert_allclose(first, [[0.09192] * 3, [0.26115] * 3], atol=2e-5)
    np.testing.assert_allclose(saved_h, first)
    np.testing.assert_allclose(second, [[0.10059] * 3, [0.4032] * 3], atol=2e-5)
