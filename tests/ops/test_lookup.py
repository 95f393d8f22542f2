"""Lookup tables: tf.contrib.lookup and tf.tables_initializer."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.cluster import local_cluster

lookup = tf.contrib.lookup


def test_hash_table_lookup_default_and_size():
    table = lookup.HashTable(
        lookup.KeyValueTensorInitializer(["a", "b", "c"], np.array([7, 8, 9], np.int64)), -1)
    out = table.lookup(tf.constant([["a", "zz"], ["c", "b"]]))
    assert out.shape.as_list() == [2, 2] and out.dtype is tf.int64
    assert table.init.type == "InitializeTableV2"
    assert table.init in tf.get_collection(tf.GraphKeys.TABLE_INITIALIZERS)
    with tf.Session() as s:
        s.run(tf.tables_initializer())
        np.testing.assert_array_equal(s.run(out), [[7, -1], [9, 8]])
        assert s.run(table.size()) == 3
        s.run(tf.tables_initializer())  # initializing again changes nothing
        np.testing.assert_array_equal(s.run(table.lookup(tf.constant(["b"]))), [8])


def test_lookup_before_initialization_fails():
    table = lookup.HashTable(lookup.KeyValueTensorInitializer([1, 2], [1.0, 2.0],
                                                              key_dtype=tf.int64), 0.0)
    with tf.Session() as s:
        with pytest.raises(tf.errors.FailedPreconditionError, match="not initialized"):
            s.run(table.lookup(tf.constant([1], tf.int64)))


def test_int_keys_string_values_and_type_checks():
    table = lookup.HashTable(lookup.KeyValueTensorInitializer(
        tf.constant([10, 20], tf.int64), ["ten", "twenty"]), "none")
    with pytest.raises(TypeError, match="int64"):
        table.lookup(tf.constant([1], tf.int32))
    with pytest.raises(TypeError):
        lookup.HashTable(lookup.KeyValueTensorInitializer(["a"], [1.0]), "x")
    with tf.Session() as s:
        s.run(table.init)
        np.testing.assert_array_equal(s.run(table.lookup([20, 5, 10])),
                                      [b"twenty", b"none", b"ten"])


def test_conflicting_duplicate_keys_fail():
    table = lookup.HashTable(lookup.KeyValueTensorInitializer(["a", "a"], [1, 2],
                                                              value_dtype=tf.int64), -1)
    with tf.Session() as s:
        with pytest.raises(tf.errors.FailedPreconditionError, match="same key"):
            s.run(table.init)


def test_index_table_from_tensor_with_oov_buckets():
    # Ids from TensorFlow's FastHashSpec: vocab size + Fingerprint64(key) % buckets.
    table = lookup.index_table_from_tensor(tf.constant(["a", "b", "c"]), num_oov_buckets=3)
    ids = table.lookup(tf.constant([["a", "zz"], ["c", "q"]]))
    ints = lookup.index_table_from_tensor(tf.constant([10, 20], tf.int64), num_oov_buckets=2,
                                          dtype=tf.int64)
    int_ids = ints.lookup(tf.constant([10, 33, 44], tf.int64))
    plain = lookup.index_table_from_tensor(["x", "y"], default_value=-7)
    with tf.Session() as s:
        s.run(tf.tables_initializer())
        np.testing.assert_array_equal(s.run(ids), [[0, 4], [2, 5]])
        np.testing.assert_array_equal(s.run(int_ids), [0, 2, 3])
        np.testing.assert_array_equal(s.run(plain.lookup(tf.constant(["y", "w"]))), [1, -7])
        assert s.run(table.size()) == 6
    with pytest.raises(ValueError, match="FastHashSpec"):
        lookup.index_table_from_tensor(["a"], hasher_spec="strong")
    with pytest.raises(ValueError, match="num_oov_buckets"):
        lookup.index_table_from_tensor(["a"], num_oov_buckets=-1)


def test_index_to_string_table_and_sparse_keys():
    rev = lookup.index_to_string_table_from_tensor(["a", "b"], default_value="UNK")
    words = rev.lookup(tf.constant([0, 1, 7], tf.int64))
    fwd = lookup.index_table_from_tensor(["a", "b"])
    sp = tf.SparseTensor(indices=[[0, 0], [1, 2]], values=["b", "q"], dense_shape=[2, 3])
    sp_ids = fwd.lookup(sp)
    assert isinstance(sp_ids, tf.SparseTensor)
    with tf.Session() as s:
        s.run(tf.tables_initializer())
        np.testing.assert_array_equal(s.run(words), [b"a", b"b", b"UNK"])
        v = s.run(sp_ids)
        np.testing.assert_array_equal(v.values, [1, -1])
        np.testing.assert_array_equal(v.indices, [[0, 0], [1, 2]])


def test_tables_from_files(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("emerson\nlake\npalmer\n")
    cols = tmp_path / "cols.tsv"
    cols.write_text("x\t10\ny\t20\n")
    ids = lookup.index_table_from_file(str(vocab), num_oov_buckets=1)
    short = lookup.index_table_from_file(str(vocab), vocab_size=2)
    words = lookup.index_to_string_table_from_file(str(vocab))
    by_col = lookup.HashTable(lookup.TextFileInitializer(str(cols), tf.string, 0, tf.int64, 1),
                              -1)
    with tf.Session() as s:
        s.run(tf.tables_initializer())
        np.testing.assert_array_equal(
            s.run(ids.lookup(tf.constant(["palmer", "emerson", "kansas"]))), [2, 0, 3])
        np.testing.assert_array_equal(s.run(short.lookup(tf.constant(["lake", "palmer"]))),
                                      [1, -1])
        np.testing.assert_array_equal(s.run(words.lookup(tf.constant([1, 5], tf.int64))),
                                      [b"lake", b"UNK"])
        np.testing.assert_array_equal(s.run(by_col.lookup(tf.constant(["y", "x", "z"]))),
                                      [20, 10, -1])
    too_big = lookup.index_table_from_file(str(vocab), vocab_size=5)
    missing = lookup.index_table_from_file(str(tmp_path / "nope.txt"))
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError, match="vocab_size"):
            s.run(too_big.init)
        with pytest.raises(tf.errors.NotFoundError):
            s.run(missing.init)
    with pytest.raises(ValueError, match="line number"):
        lookup.TextFileInitializer(str(vocab), tf.string, -1, tf.int64, -2)


def test_tables_initializer_without_tables_and_monitored_session():
    assert tf.tables_initializer().type == "NoOp"
    table = lookup.index_table_from_tensor(["a", "b"])
    out = table.lookup(tf.constant(["b"]))
    # The Scaffold's local_init_op runs the table initializers.
    with tf.train.MonitoredSession() as s:
        np.testing.assert_array_equal(s.run(out), [1])


def test_table_in_graph_def_roundtrip():
    table = lookup.index_table_from_tensor(["a", "b"])
    out = table.lookup(tf.constant(["b", "c"]), name="ids")
    init = tf.tables_initializer()
    g = tf.import_graph_def(tf.get_default_graph().as_graph_def(), graph=tf.Graph())
    with tf.Session(graph=g) as s:
        s.run(init.name)
        np.testing.assert_array_equal(s.run(out.name), [1, -1])


def test_table_on_parameter_server_read_from_worker():
    with local_cluster(ps=1, worker=1) as c:
        with tf.device("/job:ps/task:0"):
            table = lookup.index_table_from_tensor(["x", "y", "z"], num_oov_buckets=1)
        with tf.device("/job:worker/task:0"):
            ids = table.lookup(tf.constant(["z", "x", "w"])) * 10
        assert table.resource_handle.device == "/job:ps/task:0"
        with tf.Session(c.target("worker")) as s:
            s.run(tf.tables_initializer())
            np.testing.assert_array_equal(s.run(ids), [20, 0, 30])
        # The table lives on the parameter server: a new session finds it initialized.
        with tf.Session(c.target("worker")) as s:
            np.testing.assert_array_equal(s.run(ids), [20, 0, 30])
