"""tf.data.experimental CsvDataset, make_csv_dataset, sample_from_datasets and
choose_from_datasets."""


import numpy as np
import pytest

import tensorfleet as tf
from tests.data.drain import drain


def _write(path, text):
    path.write_text(text)
    return str(path)


def test_csv_dataset_types_header_and_columns(tmp_path):
    a = _write(tmp_path / "a.csv", "id,score,name\n1,0.5,x\n2,,\"y,z\"\n")
    b = _write(tmp_path / "b.csv", "id,score,name\n3,2.5,w\n")
    ds = tf.data.experimental.CsvDataset([a, b], [tf.int64, [-1.0], ["?"]], header=True)
    assert ds.output_types == (tf.int64, tf.float32, tf.string)
    got = drain(ds)
    assert [int(r[0]) for r in got] == [1, 2, 3]
    np.testing.assert_allclose([r[1] for r in got], [0.5, -1.0, 2.5])
    assert [r[2] for r in got] == [b"x", b"y,z", b"w"]
    picked = drain(tf.data.experimental.CsvDataset(a, [[0.0]], header=True, select_cols=[1]))
    np.testing.assert_allclose([r[0] for r in picked], [0.5, 0.0])
    excl = drain(tf.data.experimental.CsvDataset(a, [[0], [""]], header=True,
                                                 exclude_cols=[1]))
    assert [tuple(r) for r in excl] == [(1, b"x"), (2, b"y,z")]
    c = _write(tmp_path / "c.csv", "4,x\n")
    with pytest.raises(tf.errors.InvalidArgumentError):
        drain(tf.data.experimental.CsvDataset(c, [tf.int64, tf.int64]))
    with pytest.raises(ValueError, match="not both"):
        tf.data.experimental.CsvDataset(a, [[0]], select_cols=[0], exclude_cols=[1])


def test_make_csv_dataset_infers_types_and_splits_the_label(tmp_path):
    rows = "".join(f"{i},{i * 0.25},c{i % 3},{i % 2}\n" for i in range(10))
    _write(tmp_path / "d0.csv", "n,f,cat,label\n" + rows)
    ds = tf.data.experimental.make_csv_dataset(str(tmp_path / "d*.csv"), batch_size=4,
                                               label_name="label", num_epochs=1,
                                               shuffle=False)
    batches = drain(ds)
    assert [len(b[1]) for b in batches] == [4, 4, 2]
    features, label = batches[0]
    assert sorted(features) == ["cat", "f", "n"]
    assert features["n"].dtype == np.int32 and features["f"].dtype == np.float32
    np.testing.assert_array_equal(features["n"], [0, 1, 2, 3])
    np.testing.assert_allclose(features["f"], [0.0, 0.25, 0.5, 0.75])
    assert list(features["cat"]) == [b"c0", b"c1", b"c2", b"c0"]
    np.testing.assert_array_equal(label, [0, 1, 0, 1])
    shuffled = tf.data.experimental.make_csv_dataset(
        str(tmp_path / "d0.csv"), batch_size=5, select_columns=["n", "label"],
        label_name="label", shuffle_seed=7, num_epochs=2)
    got = drain(shuffled)
    assert sorted(np.concatenate([b[0]["n"] for b in got]).tolist()) == \
        sorted(list(range(10)) * 2)
    assert list(got[0][0]) == ["n"]
    endless = tf.data.experimental.make_csv_dataset(str(tmp_path / "d0.csv"), batch_size=3)
    assert endless.output_shapes["n"].as_list() == [3]
    with pytest.raises(ValueError, match="label_name"):
        tf.data.experimental.make_csv_dataset(str(tmp_path / "d0.csv"), 2, label_name="y")
    with pytest.raises(tf.errors.UnimplementedError, match="ignore_errors"):
        tf.data.experimental.make_csv_dataset(str(tmp_path / "d0.csv"), 2, ignore_errors=True)


def test_sample_from_datasets_follows_the_weights():
    tf.set_random_seed(1)
    a = tf.data.Dataset.from_tensors(np.int64(0)).repeat(3000)
    b = tf.data.Dataset.from_tensors(np.int64(1)).repeat(3000)
    got = drain(tf.data.experimental.sample_from_datasets([a, b], [0.8, 0.2]).take(2000))
    share = np.mean(got)
    assert 0.15 < share < 0.25, share
    short = tf.data.Dataset.range(3)
    long = tf.data.Dataset.range(100, 110)
    every = drain(tf.data.experimental.sample_from_datasets([short, long]))
    assert sorted(int(x) for x in every) == [0, 1, 2] + list(range(100, 110))
    stopped = drain(tf.data.experimental.sample_from_datasets(
        [tf.data.Dataset.range(0), long], stop_on_empty_dataset=True, seed=3))
    assert len(stopped) < 10
    with pytest.raises(ValueError, match="weights"):
        tf.data.experimental.sample_from_datasets([short, long], [1.0])
    with pytest.raises(TypeError, match="types differ"):
        tf.data.experimental.sample_from_datasets(
            [short, tf.data.Dataset.from_tensors(1.0)])


def test_choose_from_datasets_in_the_order_given():
    words = [tf.data.Dataset.from_tensor_slices([b"a", b"b", b"c"]),
             tf.data.Dataset.from_tensor_slices([b"x", b"y"])]
    choice = tf.data.Dataset.from_tensor_slices(np.array([1, 0, 0, 1, 1, 0], np.int64))
    got = drain(tf.data.experimental.choose_from_datasets(words, choice))
    assert got == [b"x", b"a", b"b", b"y", b"c"]
    bad = tf.data.Dataset.from_tensor_slices(np.array([2], np.int64))
    with pytest.raises(tf.errors.InvalidArgumentError, match="outside"):
        drain(tf.data.experimental.choose_from_datasets(words, bad))
    with pytest.raises(TypeError, match="int64 scalars"):
        tf.data.experimental.choose_from_datasets(words, tf.data.Dataset.range(2).batch(2))
