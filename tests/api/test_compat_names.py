"""Pre-1.0 TensorFlow names (tf.pack, tf.mul, tf.select, ...) compute what their
current counterparts do."""

import numpy as np

import tensorfleet as tf


def test_old_math_and_array_names():
    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    b = np.array([[5.0, 6.0], [7.0, 8.0]], np.float32)
    x, y = tf.constant(a), tf.constant(b)
    packed = tf.pack([x, y], axis=1)
    unpacked = tf.unpack(x, axis=1)
    assert packed.op.name == "pack" and len(unpacked) == 2
    batch = np.stack([a, b])
    fetches = [tf.concat_v2([x, y], 1), packed, unpacked, tf.mul(x, y), tf.sub(x, y),
               tf.neg(x), tf.select(tf.constant([True, False]), x, y),
               tf.batch_matmul(tf.constant(batch), tf.constant(batch), adj_y=True)]
    with tf.Session() as s:
        cat, pk, up, mu, su, ne, se, bm = s.run(fetches)
    np.testing.assert_allclose(cat, np.concatenate([a, b], 1))
    np.testing.assert_allclose(pk, np.stack([a, b], 1))
    np.testing.assert_allclose(up[1], a[:, 1])
    np.testing.assert_allclose(mu, a * b)
    np.testing.assert_allclose(su, a - b)
    np.testing.assert_allclose(ne, -a)
    np.testing.assert_allclose(se, [a[0], b[1]])
    np.testing.assert_allclose(bm, batch @ np.swapaxes(batch, 1, 2))


def test_old_variable_helpers():
    v = tf.Variable(3.0, name="v")
    loc = tf.Variable(1.0, name="loc", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    assert tf.all_variables() == [v]
    with tf.Session() as s:
        s.run(tf.initialize_all_variables())
        s.run(tf.initialize_local_variables())
        assert s.run([v, loc]) == [3.0, 1.0]
