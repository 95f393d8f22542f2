"""Sequence feature columns and sequence_input_layer: values and sequence lengths as
TensorFlow computes them (expected arrays from TensorFlow 2.15's
``tf.keras.experimental.SequenceFeatures`` on the same features), variables, training
through an RNN, and the errors."""

import numpy as np
import pytest

import tensorfleet as tf

fc = tf.feature_column
seq_layer = tf.contrib.feature_column.sequence_input_layer


def _features():
    return {
        "tok": tf.SparseTensor([[0, 0], [0, 1], [1, 0]], ["a", "c", "b"], [3, 2]),
        "ids": tf.SparseTensor([[0, 0], [0, 1], [1, 0]], np.array([1, 3, 3], np.int64), [3, 2]),
        "hb": tf.SparseTensor([[0, 0], [0, 1], [1, 0]], ["x", "y", "z"], [3, 2]),
        "num": tf.SparseTensor([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1]],
                               [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [3, 4]),
    }


def _columns():
    tok = fc.sequence_categorical_column_with_vocabulary_list("tok", ["a", "b", "c"])
    emb = fc.embedding_column(tok, 2, initializer=tf.constant_initializer(
        np.arange(6.0).reshape(3, 2)))
    ind = fc.indicator_column(fc.sequence_categorical_column_with_identity("ids", 4))
    hind = fc.indicator_column(fc.sequence_categorical_column_with_hash_bucket("hb", 10))
    num = fc.sequence_numeric_column("num", shape=(2,), default_value=-1.0)
    return emb, ind, num, hind


# Sorted by name: hb_indicator (10), ids_indicator (4), num (2), tok_embedding (2).
_ZERO_STEP = [0.0] * 14 + [-1.0, -1.0, 0.0, 0.0]
_TF_OUTPUT = np.array([
    [[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 2, 0, 1],
     [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 3, 4, 4, 5]],
    [[0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 5, 6, 2, 3], _ZERO_STEP],
    [_ZERO_STEP, _ZERO_STEP]], np.float32)


def test_values_and_lengths_match_tensorflow():
    with tf.Graph().as_default():
        cols_to_vars = {}
        emb, ind, num, hind = _columns()
        out, length = seq_layer(_features(), [emb, ind, num, hind], cols_to_vars=cols_to_vars)
        assert [v.op.name for v in cols_to_vars[emb]] == [
            "sequence_input_layer/tok_embedding/embedding_weights"]
        assert cols_to_vars[num] == []
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
            got, got_len = sess.run([out, length])
    np.testing.assert_array_equal(got, _TF_OUTPUT)
    np.testing.assert_array_equal(got_len, [2, 1, 0])


def test_vocabulary_file_with_oov_and_rank3_numeric(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("a\nb\nc\n")
    with tf.Graph().as_default():
        voc = fc.sequence_categorical_column_with_vocabulary_file("voc", str(path),
                                                                  num_oov_buckets=2)
        n3 = fc.sequence_numeric_column("n3", shape=(2,))
        features = {
            "voc": tf.SparseTensor([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]],
                                   ["a", "zz", "c", "b", "q"], [2, 3]),
            "n3": tf.SparseTensor([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 1], [1, 1, 0],
                                   [1, 2, 1]], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3, 2]),
        }
        out, length = seq_layer(features, [fc.indicator_column(voc), n3])
        with tf.Session() as sess:
            sess.run(tf.tables_initializer())
            got, got_len = sess.run([out, length])
    # TensorFlow 2.15, SequenceFeatures([indicator_column(voc), n3]).
    want = [[[1, 2, 1, 0, 0, 0, 0], [3, 0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 0, 0, 0]],
            [[0, 4, 0, 0, 1, 0, 0], [5, 0, 0, 1, 0, 0, 0], [0, 6, 0, 0, 0, 0, 1]]]
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_len, [2, 3])


def test_an_rnn_trains_the_sequence_embedding():
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        tok = fc.sequence_categorical_column_with_identity("tok", 5)
        out, length = seq_layer(
            {"tok": tf.SparseTensor([[0, 0], [0, 1], [1, 0]], np.array([1, 2, 4], np.int64),
                                    [2, 2])}, [fc.embedding_column(tok, 3)])
        cell = tf.nn.rnn_cell.BasicRNNCell(4)
        outputs, state = tf.nn.dynamic_rnn(cell, out, sequence_length=length,
                                           dtype=tf.float32)
        loss = tf.reduce_sum(tf.square(state - 1.0))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first = sess.run(loss)
            for _ in range(5):
                sess.run(train)
            assert sess.run(loss) < first


def test_sequence_lengths_must_agree_when_run():
    with tf.Graph().as_default():
        a = fc.sequence_numeric_column("a")
        b = fc.sequence_numeric_column("b")
        out, length = seq_layer({"a": tf.SparseTensor([[0, 0], [0, 1]], [1.0, 2.0], [1, 2]),
                                 "b": tf.SparseTensor([[0, 0]], [1.0], [1, 2])}, [a, b])
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="disagree"):
                sess.run(length)


def test_errors():
    tok = fc.sequence_categorical_column_with_vocabulary_list("tok", ["a"])
    num = fc.sequence_numeric_column("num")
    with tf.Graph().as_default():
        feats = {"tok": tf.SparseTensor([[0, 0]], ["a"], [1, 1]),
                 "num": tf.constant([[1.0]])}
        with pytest.raises(ValueError, match="is a sequence column"):
            fc.input_layer(feats, [fc.embedding_column(tok, 2)])
        with pytest.raises(ValueError, match="must be a DenseColumn"):
            fc.input_layer(feats, [num])
        with pytest.raises(ValueError, match="sequence dense columns"):
            seq_layer(feats, [fc.numeric_column("num")])
        with pytest.raises(ValueError, match="must be a SparseTensor"):
            seq_layer(feats, [num])
    with pytest.raises(ValueError, match="greater than 0"):
        fc.sequence_numeric_column("x", shape=(0,))
    with pytest.raises(ValueError, match="convertible to float"):
        fc.sequence_numeric_column("x", dtype=tf.string)
    assert tok.parse_example_spec == {"tok": tf.VarLenFeature(tf.string)}
    assert num.parse_example_spec == {"num": tf.VarLenFeature(tf.float32)}
