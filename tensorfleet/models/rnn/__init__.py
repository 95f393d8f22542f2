"""``tensorflow.models.rnn``: ``rnn_cell`` is ``tf.nn.rnn_cell``, ``seq2seq`` is
``tf.contrib.legacy_seq2seq`` and ``ptb.reader`` reads the Penn Treebank files."""

from tensorfleet.ops import legacy_seq2seq as seq2seq  # noqa: F401
from tensorfleet.ops import rnn_cell  # noqa: F401

__all__ = ["rnn_cell", "seq2seq"]
