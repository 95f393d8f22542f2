"""``tensorflow.models``: the module paths that TensorFlow's early tutorials import from
(``tensorflow.models.rnn.rnn_cell``, ``tensorflow.models.rnn.seq2seq``,
``tensorflow.models.rnn.ptb.reader``)."""
