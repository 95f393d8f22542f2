"""``tf.contrib.legacy_seq2seq``: the sequence losses over lists of per-step tensors."""

from tensorfleet.ops.seq2seq_loss import legacy_sequence_loss as sequence_loss  # noqa: F401
from tensorfleet.ops.seq2seq_loss import sequence_loss_by_example  # noqa: F401

__all__ = ["sequence_loss", "sequence_loss_by_example"]
