"""``tensorflow.models.rnn.ptb``: the Penn Treebank ``reader``."""
