"""tf.lookup.StaticHashTable and StaticVocabularyTable (ids of out-of-vocabulary keys
checked against TensorFlow's bucket formula: fingerprint64 of the key modulo the bucket
count, after the vocabulary)."""

import farmhash
import numpy as np
import pytest

import tensorfleet as tf


def _bucket(key: bytes, n: int) -> int:
    return farmhash.fingerprint64(key) % n


def test_static_hash_table_with_text_file(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("emerson 10\nlake 20\npalmer 30\n")
    init = tf.lookup.TextFileInitializer(str(path), tf.string, 0, tf.int64, 1, delimiter=" ")
    table = tf.lookup.StaticHashTable(init, -1)
    out = table.lookup(tf.constant(["lake", "emerson", "bach"]))
    with tf.Session() as s:
        s.run(tf.tables_initializer())
        np.testing.assert_array_equal(s.run(out), [20, 10, -1])
        assert s.run(table.size()) == 3
    with pytest.raises(ValueError, match="experimental_is_anonymous"):
        tf.lookup.StaticHashTable(init, -1, experimental_is_anonymous=True)


def test_static_vocabulary_table_string_and_int_keys():
    init = tf.lookup.KeyValueTensorInitializer(["a", "b", "c"],
                                               np.array([0, 1, 2], np.int64))
    table = tf.lookup.StaticVocabularyTable(init, num_oov_buckets=5)
    ids = table.lookup(tf.constant(["c", "zebra", "a", "yak"]))
    ints = tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(np.array([7, 9], np.int64),
                                            np.array([0, 1], np.int64)),
        3, lookup_key_dtype=tf.int32)
    int_ids = ints.lookup(tf.constant([9, 12345], tf.int32))
    with tf.Session() as s:
        s.run(tf.tables_initializer())
        np.testing.assert_array_equal(
            s.run(ids), [2, 3 + _bucket(b"zebra", 5), 0, 3 + _bucket(b"yak", 5)])
        np.testing.assert_array_equal(s.run(int_ids), [1, 2 + _bucket(b"12345", 3)])
        assert s.run(table.size()) == 8


def test_static_vocabulary_table_refuses_bad_arguments():
    init = tf.lookup.KeyValueTensorInitializer(["a"], np.array([0], np.int64))
    with pytest.raises(ValueError, match="num_oov_buckets must be > 0"):
        tf.lookup.StaticVocabularyTable(init, 0)
    with pytest.raises(TypeError, match="value dtype"):
        tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(["a"], [1.0]), 2)
    with pytest.raises(TypeError, match="lookup_key_dtype"):
        tf.lookup.StaticVocabularyTable(init, 2, lookup_key_dtype=tf.int32)
    assert tf.lookup.TextFileIndex.LINE_NUMBER == -1
