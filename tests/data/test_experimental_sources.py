"""tf.data.experimental sources and helpers: from_list, SqlDataset, RandomDataset, the
device transformations, map_and_batch_with_legacy_function and the tables filled from
data sets."""

import sqlite3

import numpy as np
import pytest

import tensorfleet as tf

exp = tf.data.experimental


def _all(ds, n=None):
    nxt = ds.make_one_shot_iterator().get_next()
    out = []
    with tf.Session() as sess:
        while n is None or len(out) < n:
            try:
                out.append(sess.run(nxt))
            except tf.errors.OutOfRangeError:
                break
    return out


def test_from_list():
    with tf.Graph().as_default():
        got = _all(exp.from_list([(1, b"a"), (2, b"b")]))
        assert [(int(a), b) for a, b in got] == [(1, b"a"), (2, b"b")]
        got = _all(exp.from_list([{"x": [1.0, 2.0]}, {"x": [3.0, 4.0]}]))
        assert [g["x"].tolist() for g in got] == [[1.0, 2.0], [3.0, 4.0]]
    with pytest.raises(ValueError, match="must not be empty"):
        exp.from_list([])
    with pytest.raises(ValueError, match="another structure"):
        exp.from_list([(1, 2), 3])


def test_sql_dataset(tmp_path):
    db = str(tmp_path / "t.db")
    conn = sqlite3.connect(db)
    conn.execute("create table t (name text, age integer, score real)")
    conn.executemany("insert into t values (?, ?, ?)", [("ann", 31, 1.5), ("bob", 40, 2.5)])
    conn.commit()
    conn.close()
    with tf.Graph().as_default():
        ds = exp.SqlDataset("sqlite", db, "select name, age, score from t order by age",
                            (tf.string, tf.int32, tf.float64))
        assert ds.output_types == (tf.string, tf.int32, tf.float64)
        got = _all(ds)
        assert [(n, int(a), float(s)) for n, a, s in got] == [(b"ann", 31, 1.5),
                                                              (b"bob", 40, 2.5)]
        bad = exp.SqlDataset("sqlite", db, "select name from t", (tf.string, tf.int32))
        with pytest.raises(tf.errors.OpError, match="returned 1 columns"):
            _all(bad)
    with pytest.raises(ValueError, match="driver_name must be 'sqlite'"):
        exp.SqlDataset("mysql", db, "select 1", (tf.int32,))


def test_random_dataset_is_reproducible():
    with tf.Graph().as_default():
        a = _all(exp.RandomDataset(seed=7).batch(4), 2)
        b = _all(exp.RandomDataset(seed=7).batch(4), 2)
        c = _all(exp.RandomDataset(seed=8).batch(4), 1)
    assert a[0].dtype == np.int64 and np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0]) and len(set(a[0].tolist())) == 4


def test_device_transformations_and_legacy_map_and_batch():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(5).apply(exp.prefetch_to_device("/job:worker/cpu:0", 2))
        ds = ds.apply(exp.copy_to_device("/cpu:0"))
        ds = ds.apply(exp.map_and_batch_with_legacy_function(lambda x: x * 3, 2))
        assert [v.tolist() for v in _all(ds)] == [[0, 3], [6, 9], [12]]
    with pytest.raises(ValueError, match="not a CPU"):
        exp.prefetch_to_device("/gpu:0")


def test_tables_from_datasets():
    with tf.Graph().as_default():
        pairs = tf.data.Dataset.from_tensor_slices((["a", "b", "c"], np.array([10, 20, 30])))
        table = exp.table_from_dataset(pairs, default_value=-1, key_dtype=tf.string)
        keys = tf.data.Dataset.from_tensor_slices(["x", "y", "z"])
        index = exp.index_table_from_dataset(keys, vocab_size=2)
        oov = exp.index_table_from_dataset(keys, num_oov_buckets=3)
        q = tf.constant(["b", "z", "x", "q"])
        with tf.Session() as sess:
            sess.run(tf.tables_initializer())
            assert sess.run(table.lookup(q)).tolist() == [20, -1, -1, -1]
            assert sess.run(index.lookup(q)).tolist() == [-1, -1, 0, -1]
            ids = sess.run(oov.lookup(q)).tolist()
            assert ids[1:3] == [2, 0] and 3 <= ids[0] < 6 and 3 <= ids[3] < 6
    with pytest.raises(ValueError, match="scalar pairs"):
        exp.DatasetInitializer(tf.data.Dataset.range(3))
    with pytest.raises(ValueError, match="needs a default_value"):
        exp.table_from_dataset(tf.data.Dataset.from_tensor_slices((["a"], [1])))


@pytest.mark.parametrize("compression", [None, "GZIP"])
def test_tfrecord_writer_writes_the_dataset(tmp_path, compression):
    path = str(tmp_path / "out.tfrecord")
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices(["x", "yy", "zzz"]).map(
            lambda s: tf.strings.join([s, "!"]))
        write = exp.TFRecordWriter(path, compression).write(ds)
        with tf.Session() as sess:
            sess.run(write)
        back = tf.data.TFRecordDataset(path, compression_type=compression or "")
        assert _all(back) == [b"x!", b"yy!", b"zzz!"]
    with pytest.raises(TypeError, match="string scalars"):
        exp.TFRecordWriter(path).write(tf.data.Dataset.range(3))
    with pytest.raises(ValueError, match="compression type"):
        exp.TFRecordWriter(path, "LZ4")
