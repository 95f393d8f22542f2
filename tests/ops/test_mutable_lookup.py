"""``tf.lookup.experimental.MutableHashTable`` and ``DenseHashTable``: insert, lookup,
remove, export and Saver checkpoints."""

import pytest

import tensorfleet as tf

exp = tf.lookup.experimental


def test_mutable_table_updates_and_checkpoints(tmp_path):
    path = str(tmp_path / "ckpt")
    with tf.Graph().as_default():
        t = exp.MutableHashTable(tf.string, tf.int64, default_value=-1, name="vocab")
        ins = t.insert(["a", "b", "c"], [1, 2, 3])
        upd = t.insert(["b"], [20])
        rm = t.remove(["c", "zz"])
        found = t.lookup(tf.constant([["a", "b"], ["c", "q"]]))
        keys, values = t.export()
        with tf.Session() as sess:
            sess.run(ins)
            assert sess.run(found).tolist() == [[1, 2], [3, -1]]
            sess.run([upd])
            sess.run(rm)
            assert sess.run(found).tolist() == [[1, 20], [-1, -1]]
            assert sess.run(t.size()) == 2
            k, v = sess.run([keys, values])
            assert k.tolist() == [b"a", b"b"] and v.tolist() == [1, 20]
            tf.train.Saver().save(sess, path)
            sess.run(t.insert(["x"], [9]))
            tf.train.Saver().restore(sess, path)
            assert sess.run(t.size()) == 2 and sess.run(t.lookup("b")) == 20
    assert {n for n, _ in tf.train.list_variables(path)} >= {"vocab-keys", "vocab-values"}
    with pytest.raises(ValueError, match="must be a scalar"):
        exp.MutableHashTable(tf.int64, tf.float32, default_value=[0.0, 0.0])


def test_dense_table_refuses_its_reserved_keys():
    with tf.Graph().as_default():
        t = exp.DenseHashTable(tf.int64, tf.float32, default_value=0.5, empty_key=-1,
                               deleted_key=-2, checkpoint=False)
        with tf.Session() as sess:
            sess.run(t.insert([3, 4], [1.0, 2.0]))
            assert sess.run(t.lookup([4, 5])).tolist() == [2.0, 0.5]
            with pytest.raises(tf.errors.InvalidArgumentError, match="empty_key or deleted_key"):
                sess.run(t.insert([-1], [0.0]))
        with pytest.raises(ValueError, match="must differ"):
            exp.DenseHashTable(tf.int64, tf.float32, 0.0, empty_key=7, deleted_key=7)
        with pytest.raises(ValueError, match="power of two"):
            exp.DenseHashTable(tf.int64, tf.float32, 0.0, -1, -2, initial_num_buckets=10)
