"""``tf.layers.Conv3DTranspose``/``conv3d_transpose``: shapes and the adjoint identity
<conv3d(a, k), b> = <a, conv3d_transpose(b, k)> with the layer's own kernel."""

import numpy as np

import tensorfleet as tf


def test_shapes_and_adjoint():
    rng = np.random.default_rng(0)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2, 3, 4, 2])
        assert tf.layers.conv3d_transpose(x, 5, 3, strides=2, padding="same").shape.as_list() \
            == [None, 4, 6, 8, 5]
        layer = tf.layers.Conv3DTranspose(3, (2, 3, 2), strides=(2, 1, 2), padding="valid",
                                          use_bias=False)
        b = tf.constant(rng.normal(size=(1, 2, 3, 4, 2)), tf.float32)
        y = layer(b)
        assert y.shape.as_list() == [1, 4, 5, 8, 3]
        a = tf.constant(rng.normal(size=(1, 4, 5, 8, 3)), tf.float32)
        # conv3d maps the output space back to the input space with the same kernel.
        fwd = tf.nn.conv3d(a, layer.kernel, [1, 2, 1, 2, 1], "VALID")
        lhs = tf.reduce_sum(fwd * b)
        rhs = tf.reduce_sum(a * y)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            l, r = sess.run([lhs, rhs])
    np.testing.assert_allclose(l, r, rtol=1e-4)
