"""tf.train.CheckpointOptions with Checkpoint.save / write: the io device places the save
ops; the options tensorfleet cannot honour are refused."""

import os

import numpy as np
import pytest

import tensorfleet as tf


def test_io_device_places_the_save_ops_and_the_values_round_trip(tmp_path):
    with tf.Graph().as_default() as g:
        v = tf.Variable([1.0, 2.0], name="v")
        ckpt = tf.train.Checkpoint(v=v)
        options = tf.train.CheckpointOptions(experimental_io_device="/job:localhost")
        prefix = os.path.join(str(tmp_path), "ckpt")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = ckpt.save(prefix, options=options)
            written = ckpt.write(os.path.join(str(tmp_path), "plain"), options=options)
        save_ops = [op for op in g.get_operations() if op.type == "SaveBundleShard"]
        assert save_ops and all(op.device.startswith("/job:localhost") for op in save_ops)
    assert path == prefix + "-1"
    for p in (path, written):
        got = tf.train.load_variable(p, "v/.ATTRIBUTES/VARIABLE_VALUE")
        np.testing.assert_array_equal(got, [1.0, 2.0])


@pytest.mark.parametrize("kwargs,what", [
    ({"enable_async": True}, "asynchronous"),
    ({"experimental_enable_async_checkpoint": True}, "asynchronous"),
    ({"experimental_skip_slot_variables": True}, "experimental_skip_slot_variables"),
    ({"experimental_write_callbacks": [lambda: None]}, "experimental_write_callbacks"),
])
def test_unsupported_options_are_refused(kwargs, what):
    with pytest.raises(ValueError, match=what):
        tf.train.CheckpointOptions(**kwargs)


def test_options_of_the_wrong_type():
    with tf.Graph().as_default():
        ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(TypeError, match="CheckpointOptions"):
                ckpt.save("/nonexistent/x", options={"experimental_io_device": None})
    with pytest.raises(TypeError, match="device string"):
        tf.train.CheckpointOptions(experimental_io_device=3)
