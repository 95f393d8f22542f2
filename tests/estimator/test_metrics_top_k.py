"""``tf.metrics.precision_at_top_k``, ``recall_at_top_k`` and ``sparse_precision_at_k``
(values from TensorFlow 2.21's tf.compat.v1.metrics on the same inputs)."""

import numpy as np
import pytest

import tensorfleet as tf

LABELS = np.array([[0, 2], [1, -1]], np.int64)
IDX = np.array([[2, 3], [1, 0]], np.int64)


def test_values_match_tensorflow():
    with tf.Graph().as_default():
        _, p = tf.metrics.precision_at_top_k(LABELS, IDX)
        _, r = tf.metrics.recall_at_top_k(LABELS, IDX)
        _, pc = tf.metrics.precision_at_top_k(LABELS, IDX, class_id=2)
        _, rc = tf.metrics.recall_at_top_k(LABELS, IDX, k=2, class_id=0)
        scores = np.array([[0.1, 0.2, 0.9, 0.5], [0.3, 0.8, 0.1, 0.0]], np.float32)
        _, s = tf.metrics.sparse_precision_at_k(LABELS, scores, 2)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            assert sess.run([p, r, pc, rc, s]) == [0.5, 0.5, 1.0, 0.0, 0.5]
    with pytest.raises(ValueError, match=r"integer \[batch, k\]"):
        tf.metrics.precision_at_top_k(LABELS, np.ones((2, 2), np.float32))
