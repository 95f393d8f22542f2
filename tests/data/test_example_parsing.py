"""tf.data.experimental.parse_example_dataset and make_batched_features_dataset."""

import numpy as np
import pytest

import tensorfleet as tf
from tests.data.drain import drain

FEATURES = {"x": tf.FixedLenFeature([2], tf.float32), "y": tf.FixedLenFeature([], tf.int64)}


def _write(path, n):
    with tf.python_io.TFRecordWriter(str(path)) as w:
        for i in range(n):
            ex = tf.train.Example(features=tf.train.Features(feature={
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=[i, i * 2.0])),
                "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 2]))}))
            w.write(ex.SerializeToString())


def test_batched_features_in_order_and_shuffled(tmp_path):
    _write(tmp_path / "a.tfrecord", 5)
    ds = tf.data.experimental.make_batched_features_dataset(
        str(tmp_path / "*.tfrecord"), 2, FEATURES, label_key="y", num_epochs=1, shuffle=False)
    got = drain(ds)
    assert [len(label) for _, label in got] == [2, 2, 1]
    np.testing.assert_array_equal(got[1][0]["x"], [[2.0, 4.0], [3.0, 6.0]])
    np.testing.assert_array_equal(np.concatenate([label for _, label in got]),
                                  [0, 1, 0, 1, 0])
    mixed = drain(tf.data.experimental.make_batched_features_dataset(
        str(tmp_path / "a.tfrecord"), 5, FEATURES, num_epochs=2, shuffle_seed=3,
        drop_final_batch=True))
    assert len(mixed) == 2
    assert sorted(mixed[0]["x"][:, 0].tolist() + mixed[1]["x"][:, 0].tolist()) == \
        sorted(list(range(5)) * 2)


def test_parse_example_dataset_and_errors(tmp_path):
    _write(tmp_path / "b.tfrecord", 3)
    ds = tf.data.TFRecordDataset(str(tmp_path / "b.tfrecord")).batch(3).apply(
        tf.data.experimental.parse_example_dataset(FEATURES))
    (parsed,) = drain(ds)
    np.testing.assert_array_equal(parsed["y"], [0, 1, 0])
    with pytest.raises(tf.errors.UnimplementedError, match="SparseTensors"):
        tf.data.experimental.parse_example_dataset({"t": tf.VarLenFeature(tf.string)})
    with pytest.raises(ValueError, match="label_key"):
        tf.data.experimental.make_batched_features_dataset(
            str(tmp_path / "b.tfrecord"), 2, FEATURES, label_key="z")
