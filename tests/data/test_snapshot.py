"""tf.data.experimental.snapshot: the first complete pass is written, later passes read."""

import os

import pytest

import tensorfleet as tf
from tensorfleet.kernels.numpy.dataset_snapshot_kernels import DATA_FILE, DONE_FILE

E = tf.data.experimental


def _random_pairs(path, **kw):
    # Random values differ on every pass unless they come back from the snapshot.
    return tf.data.Dataset.range(4).map(
        lambda x: (tf.random_uniform([]), tf.as_string(x))).apply(E.snapshot(path, **kw))


@pytest.mark.parametrize("compression", ["AUTO", "GZIP", None])
def test_snapshot_reads_back_the_first_pass(tmp_path, compression):
    path = str(tmp_path / "snap")
    first = list(tf.data.NumpyIterator(_random_pairs(path, compression=compression)))
    assert [s for _, s in first] == [b"0", b"1", b"2", b"3"]
    (fingerprint,) = os.listdir(path)
    assert sorted(os.listdir(os.path.join(path, fingerprint))) == [DATA_FILE, DONE_FILE]
    # A data set built again alike has the same fingerprint: it reads the snapshot.
    again = list(tf.data.NumpyIterator(_random_pairs(path, compression=compression)))
    assert again == first
    # Another pipeline gets a snapshot of its own.
    other = tf.data.Dataset.range(3).apply(E.snapshot(path, compression=compression))
    assert list(tf.data.NumpyIterator(other)) == [0, 1, 2]
    assert len(os.listdir(path)) == 2


def test_an_unfinished_pass_leaves_no_snapshot(tmp_path):
    path = str(tmp_path / "snap")
    it = tf.data.NumpyIterator(_random_pairs(path))
    next(it)
    it.close()
    (fingerprint,) = os.listdir(path)
    assert DONE_FILE not in os.listdir(os.path.join(path, fingerprint))
    with tf.Graph().as_default(), tf.Session() as s:
        assert s.run(E.cardinality(_random_pairs(path))) == 4


def test_snapshot_errors():
    with pytest.raises(ValueError, match="shard_func"):
        E.snapshot("/nowhere", shard_func=lambda *x: 0)
    with pytest.raises(ValueError, match="compression"):
        E.snapshot("/nowhere", compression="SNAPPY")
    with tf.Graph().as_default():
        fed = tf.data.Dataset.from_tensor_slices(tf.placeholder(tf.float32, [None]))
        with pytest.raises(ValueError, match="known when it is built"):
            fed.apply(E.snapshot("/nowhere"))
