"""``tf.types.experimental.TensorLike``."""

import numpy as np

import tensorfleet as tf


def test_tensor_like_covers_what_ops_take():
    like = tf.types.experimental.TensorLike
    with tf.Graph().as_default():
        values = [tf.constant(1.0), tf.Variable(1.0), tf.SparseTensor([[0]], [1.0], [2]),
                  np.ones(2), np.float32(1), 3, 2.5, True, "s", b"b", [1, 2], (1,)]
        assert all(isinstance(v, like) for v in values)
        assert not isinstance({"a": 1}, like) and not isinstance(None, like)
