"""tf.contrib.training.bucket / bucket_by_sequence_length: every example comes out once,
in a batch of its own bucket, padded to the batch's longest."""

import numpy as np
import pytest

import tensorfleet as tf


def _drain(fetches):
    out = []
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        try:
            while True:
                out.append(sess.run(fetches))
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
            coord.join(threads)
    return out


def test_bucket_by_sequence_length_groups_and_pads():
    lens = tf.train.range_input_producer(9, shuffle=False, num_epochs=1).dequeue() + 1
    seq = tf.fill(tf.expand_dims(lens, 0), lens)
    length, (batch,) = tf.contrib.training.bucket_by_sequence_length(
        lens, [seq], 2, [4, 7], dynamic_pad=True, allow_smaller_final_batch=True)
    assert length.shape.as_list() == [None] and batch.shape.as_list() == [None, None]
    got = _drain([length, batch])
    seen = sorted(int(v) for l, _ in got for v in l)
    assert seen == list(range(1, 10))
    bucket_of = lambda v: 0 if v < 4 else (1 if v < 7 else 2)  # noqa: E731
    for l, x in got:
        assert len({bucket_of(v) for v in l}) == 1          # one bucket per batch
        assert x.shape == (len(l), max(l))                   # padded to the longest
        for row, v in zip(x, l):
            assert row.tolist() == [v] * v + [0] * (max(l) - v)


def test_bucket_fixed_shapes_full_batches_and_keep_input():
    i = tf.train.range_input_producer(12, shuffle=False, num_epochs=1).dequeue()
    vec = tf.stack([i, i * 10])
    which = tf.mod(i, 2)
    bid, out = tf.contrib.training.bucket({"v": vec, "i": i}, which, batch_size=[2, 3],
                                          num_buckets=2, keep_input=tf.less(i, 10))
    assert out["v"].shape.as_list() == [None, 2]
    got = _drain([bid, out])
    kept = sorted(int(v) for _, o in got for v in o["i"])
    # evens 0..8 give two full batches of 2 (one left over), odds 1..9 one batch of 3.
    assert len(kept) == 7 and all(v < 10 for v in kept)
    for b, o in got:
        assert len(o["i"]) == (2 if b == 0 else 3)
        assert all(int(v) % 2 == b for v in o["i"])
        np.testing.assert_array_equal(o["v"][:, 1], o["i"] * 10)


def test_bucket_bad_arguments():
    x = tf.constant([1, 2])
    with pytest.raises(ValueError, match="strictly increasing"):
        tf.contrib.training.bucket_by_sequence_length(3, [x], 2, [5, 5])
    with pytest.raises(ValueError, match="batch_size"):
        tf.contrib.training.bucket([x], 0, [2, 2, 2], num_buckets=2)
    with pytest.raises(ValueError, match="fully defined shape"):
        tf.contrib.training.bucket([tf.placeholder(tf.int32, [None])], 0, 2, num_buckets=1)
    with pytest.raises(ValueError, match="scalar"):
        tf.contrib.training.bucket_by_sequence_length(tf.constant([1, 2]), [x], 2, [3])
