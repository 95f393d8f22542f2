"""The ``tensorflow.models.rnn`` paths of the early tutorials, the PTB reader, and
``tf.contrib.rnn.LSTMBlockCell``."""

from __future__ import annotations

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.models import rnn as models_rnn
from tensorfleet.models.rnn.ptb import reader


@pytest.fixture
def ptb_dir(tmp_path):
    # As in Mikolov's files, each line begins and ends with a space.
    (tmp_path / "ptb.train.txt").write_text(" the cat sat \n the dog sat \n the cat ran \n" * 4)
    (tmp_path / "ptb.valid.txt").write_text(" the dog ran \n")
    (tmp_path / "ptb.test.txt").write_text(" a cat sat \n")
    return tmp_path


def test_models_rnn_paths_are_the_rnn_cells_and_legacy_seq2seq():
    assert models_rnn.rnn_cell.BasicLSTMCell is tf.nn.rnn_cell.BasicLSTMCell
    assert models_rnn.seq2seq.sequence_loss_by_example is \
        tf.contrib.legacy_seq2seq.sequence_loss_by_example
    # TensorFlow before 1.0 named tf.contrib.legacy_seq2seq tf.nn.seq2seq.
    assert tf.nn.seq2seq.embedding_attention_seq2seq is \
        tf.contrib.legacy_seq2seq.embedding_attention_seq2seq
    assert models_rnn.seq2seq.rnn_decoder is tf.contrib.legacy_seq2seq.rnn_decoder


def test_ptb_raw_data_numbers_words_by_count(ptb_dir):
    train, valid, test, vocab = reader.ptb_raw_data(str(ptb_dir))
    # Counts: <eos> 12, the 12, cat 8, sat 8, dog 4, ran 4: ties by the word.
    ids = {"<eos>": 0, "the": 1, "cat": 2, "sat": 3, "dog": 4, "ran": 5}
    assert vocab == 6
    assert train[:8] == [ids[w] for w in "the cat sat <eos> the dog sat <eos>".split()]
    assert valid == [ids[w] for w in "the dog ran <eos>".split()]
    assert test == [ids["cat"], ids["sat"], ids["<eos>"]]  # "a" is not in the vocabulary
    with pytest.raises(FileNotFoundError, match="ptb.train.txt"):
        reader.ptb_raw_data(str(ptb_dir / "missing"))


def test_ptb_iterator_and_producer_give_the_same_windows():
    raw = list(range(50))
    batches = list(reader.ptb_iterator(raw, batch_size=2, num_steps=4))
    data = np.arange(50).reshape(2, 25)
    assert len(batches) == 6  # (25 - 1) // 4
    for i, (x, y) in enumerate(batches):
        np.testing.assert_array_equal(x, data[:, 4 * i:4 * i + 4])
        np.testing.assert_array_equal(y, data[:, 4 * i + 1:4 * i + 5])
    x, y = reader.ptb_producer(raw, batch_size=2, num_steps=4)
    assert x.shape.as_list() == [2, 4]
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord=coord)
        try:
            for bx, by in batches[:3]:
                gx, gy = sess.run([x, y])
                np.testing.assert_array_equal(gx, bx)
                np.testing.assert_array_equal(gy, by)
        finally:
            coord.request_stop()
            coord.join(threads)
    with pytest.raises(ValueError, match="epoch_size"):
        reader.ptb_producer(raw[:5], batch_size=2, num_steps=4)


def test_lstm_block_cell_is_an_lstm_cell_with_its_names():
    x = tf.constant(np.random.RandomState(0).randn(3, 5, 4).astype(np.float32))
    block = tf.contrib.rnn.LSTMBlockCell(6, forget_bias=0.5, use_peephole=True, cell_clip=2.0)
    out, _ = tf.nn.dynamic_rnn(block, x, dtype=tf.float32, scope="a")
    names = sorted(v.op.name for v in tf.global_variables())
    assert names == ["a/lstm_cell/bias", "a/lstm_cell/kernel", "a/lstm_cell/w_f_diag",
                     "a/lstm_cell/w_i_diag", "a/lstm_cell/w_o_diag"]
    same = tf.nn.rnn_cell.LSTMCell(6, forget_bias=0.5, use_peepholes=True, cell_clip=2.0)
    with tf.variable_scope(tf.get_variable_scope(), reuse=True):
        ref, _ = tf.nn.dynamic_rnn(same, x, dtype=tf.float32, scope="a")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, want = sess.run([out, ref])
    np.testing.assert_allclose(got, want, rtol=1e-6)
