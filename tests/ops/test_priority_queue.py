"""``tf.PriorityQueue``: smallest priority first, enqueue order among equals."""

import numpy as np
import pytest

import tensorfleet as tf


def test_dequeues_by_priority():
    with tf.Graph().as_default():
        q = tf.queue.PriorityQueue(10, [tf.string, tf.float32], shapes=[[], [2]])
        assert tf.PriorityQueue is tf.io.PriorityQueue is tf.queue.PriorityQueue
        p = tf.placeholder(tf.int64, [])
        s = tf.placeholder(tf.string, [])
        enq = q.enqueue((p, s, tf.constant([1.0, 2.0])))
        many = q.enqueue_many((tf.constant([5, 0], tf.int64), tf.constant(["e", "z"]),
                               tf.zeros([2, 2])))
        one = q.dequeue()
        batch = q.dequeue_many(2)
        with tf.Session() as sess:
            for prio, name in [(3, b"c"), (1, b"a"), (3, b"d")]:
                sess.run(enq, {p: prio, s: name})
            sess.run(many)
            assert sess.run(q.size()) == 5
            first = sess.run(one)
            assert (first[0], first[1]) == (0, b"z")
            prios, names, vals = sess.run(batch)
            assert prios.tolist() == [1, 3] and names.tolist() == [b"a", b"c"]
            np.testing.assert_array_equal(vals, [[1.0, 2.0], [1.0, 2.0]])
            assert [sess.run(one)[1] for _ in range(2)] == [b"d", b"e"]
    with pytest.raises(ValueError, match="names are not supported"):
        tf.PriorityQueue(3, [tf.int32], names=["x"])
