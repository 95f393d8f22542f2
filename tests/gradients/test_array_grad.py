"""The gradient of unstack when only some pieces get a gradient: one zeros op serves the
others, and the values are those of the stacked gradients with zeros in their place."""

from __future__ import annotations

import numpy as np

import tensorfleet as tf


def test_unstack_gradient_with_unused_pieces():
    x = tf.constant(np.arange(24, dtype=np.float64).reshape(4, 2, 3))
    pieces = tf.unstack(x, axis=0)
    loss = tf.reduce_sum(pieces[1] * pieces[1]) + tf.reduce_sum(pieces[3])
    (dx,) = tf.gradients(loss, [x])
    assert dx.op.type == "Pack"
    zeros = {t.op for t in dx.op.inputs if t.op.type == "ZerosLike"}
    assert len(zeros) == 1
    with tf.Session() as sess:
        got = sess.run(dx)
    want = np.zeros((4, 2, 3))
    want[1] = 2 * np.arange(6, 12).reshape(2, 3)
    want[3] = 1
    np.testing.assert_array_equal(got, want)
