"""The list-of-steps seq2seq models and their losses: ``tf.contrib.legacy_seq2seq``, and
``tf.nn.seq2seq`` / ``tensorflow.models.rnn.seq2seq`` as TensorFlow before 1.0 named them."""

from tensorfleet.ops.legacy_seq2seq_attention import (  # noqa: F401
    attention_decoder, embedding_attention_decoder, embedding_attention_seq2seq)
from tensorfleet.ops.legacy_seq2seq_ops import (  # noqa: F401
    basic_rnn_seq2seq, embedding_rnn_decoder, embedding_rnn_seq2seq, model_with_buckets,
    rnn_decoder, tied_rnn_seq2seq)
from tensorfleet.ops.seq2seq_loss import legacy_sequence_loss as sequence_loss  # noqa: F401
from tensorfleet.ops.seq2seq_loss import sequence_loss_by_example  # noqa: F401

__all__ = ["sequence_loss", "sequence_loss_by_example", "rnn_decoder", "basic_rnn_seq2seq",
           "tied_rnn_seq2seq", "embedding_rnn_decoder", "embedding_rnn_seq2seq",
           "attention_decoder", "embedding_attention_decoder", "embedding_attention_seq2seq",
           "model_with_buckets"]
