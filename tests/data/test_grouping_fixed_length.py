"""tf.data.experimental.group_by_window / bucket_by_sequence_length / cardinality and
tf.data.FixedLengthRecordDataset. The expected batches are what TensorFlow 2.21
(tf.compat.v1, graph mode) yields for the same pipelines."""

import numpy as np
import pytest

import tensorfleet as tf

LENS = [3, 1, 5, 2, 7, 4, 6, 2, 1, 8, 3]


def drain(ds):
    nxt = ds.make_one_shot_iterator().get_next()
    out = []
    with tf.Session() as s:
        while True:
            try:
                v = s.run(nxt)
                out.append(v.tolist() if hasattr(v, "tolist") else v)
            except tf.errors.OutOfRangeError:
                return out


def sequences():
    def gen():
        for i, n in enumerate(LENS):
            yield np.arange(1, n + 1, dtype=np.int64) * (i + 1)
    return tf.data.Dataset.from_generator(gen, tf.int64, [None])


def test_bucket_by_sequence_length_pads_each_bucket_to_its_longest():
    ds = sequences().apply(tf.data.experimental.bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], [3, 6], [2, 2, 3]))
    assert ds.output_shapes.as_list() == [None, None]
    assert drain(ds) == [
        [[1, 2, 3, 0, 0], [3, 6, 9, 12, 15]], [[2, 0], [4, 8]], [[8, 16], [9, 0]],
        [[5, 10, 15, 20, 25, 30, 35, 0], [7, 14, 21, 28, 35, 42, 0, 0],
         [10, 20, 30, 40, 50, 60, 70, 80]],
        [[6, 12, 18, 24], [11, 22, 33, 0]]]


def test_bucket_by_sequence_length_to_boundaries_and_dropping_remainders():
    ds = sequences().apply(tf.data.experimental.bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], [3, 9], [2, 3, 3], pad_to_bucket_boundary=True,
        padding_values=np.int64(-1)))
    got = drain(ds)
    assert got[0] == [[2, -1], [4, 8]]
    assert got[1][0] == [1, 2, 3, -1, -1, -1, -1, -1]
    assert got[-1] == [[11, 22, 33, -1, -1, -1, -1, -1]]
    assert [len(b) for b in got] == [2, 3, 2, 3, 1]
    dropped = drain(sequences().apply(tf.data.experimental.bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], [3], [2, 2], drop_remainder=True)))
    assert all(len(b) == 2 for b in dropped) and len(dropped) == 5
    too_long = sequences().apply(tf.data.experimental.bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], [3], [2, 2], pad_to_bucket_boundary=True))
    with pytest.raises(tf.errors.InvalidArgumentError, match="below the last boundary"):
        drain(too_long)
    with pytest.raises(ValueError, match="len\\(bucket_batch_sizes\\)"):
        tf.data.experimental.bucket_by_sequence_length(len, [3, 6], [2, 2])
    with pytest.raises(ValueError, match="scalar int32 or int64"):
        sequences().apply(tf.data.experimental.bucket_by_sequence_length(
            lambda x: tf.cast(tf.shape(x)[0], tf.float32), [3], [2, 2]))


def test_group_by_window_fixed_and_per_key_window_sizes():
    r = tf.data.Dataset.range(20).apply(tf.data.experimental.group_by_window(
        lambda x: x % 3, lambda k, w: w.batch(4), window_size=4))
    assert drain(r) == [[0, 3, 6, 9], [1, 4, 7, 10], [2, 5, 8, 11], [12, 15, 18],
                        [13, 16, 19], [14, 17]]
    r = tf.data.Dataset.range(20).apply(tf.data.experimental.group_by_window(
        lambda x: x % 3, lambda k, w: w.batch(10), window_size_func=lambda k: k + 2))
    assert drain(r) == [[0, 3], [1, 4, 7], [6, 9], [2, 5, 8, 11], [12, 15], [10, 13, 16],
                        [18], [19], [14, 17]]
    with pytest.raises(ValueError, match="exactly one"):
        tf.data.experimental.group_by_window(lambda x: x, lambda k, w: w)
    with pytest.raises(ValueError, match="may only use"):
        tf.data.Dataset.range(4).apply(tf.data.experimental.group_by_window(
            lambda x: x % 2, lambda k, w: w.shuffle(3), window_size=2))


def test_cardinality_follows_the_stages():
    ds = tf.data.Dataset.range(10).batch(3)
    c = tf.data.experimental.cardinality
    with tf.Session() as s:
        got = s.run([c(ds), c(ds.repeat()), c(ds.filter(lambda x: True)),
                     c(tf.data.Dataset.zip((ds, ds.repeat()))), c(ds.repeat().take(5)),
                     c(tf.data.Dataset.from_tensor_slices(np.zeros((7, 2))).shard(3, 1)),
                     c(ds.concatenate(ds).skip(2))])
    assert got == [4, tf.data.experimental.INFINITE_CARDINALITY,
                   tf.data.experimental.UNKNOWN_CARDINALITY, 4, 5, 2, 6]
    assert tf.data.AUTOTUNE == tf.data.experimental.AUTOTUNE == -1


def test_fixed_length_record_dataset(tmp_path):
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    a.write_bytes(b"HHabcdefghiF")
    b.write_bytes(b"HHxyzF")
    ds = tf.data.FixedLengthRecordDataset([str(a), str(b)], 3, header_bytes=2, footer_bytes=1)
    assert drain(ds) == [b"abc", b"def", b"ghi", b"xyz"]
    files = tf.data.Dataset.from_tensor_slices([str(a), str(b)])
    inter = files.interleave(lambda f: tf.data.FixedLengthRecordDataset(f, 3, 2, 1),
                             cycle_length=2)
    assert drain(inter) == [b"abc", b"xyz", b"def", b"ghi"]
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"HHabcdeF")
    with pytest.raises(tf.errors.InvalidArgumentError, match="not an exact multiple"):
        drain(tf.data.FixedLengthRecordDataset(str(bad), 3, 2, 1))
    with pytest.raises(tf.errors.InvalidArgumentError, match="record_bytes"):
        tf.data.FixedLengthRecordDataset(str(a), 0)
