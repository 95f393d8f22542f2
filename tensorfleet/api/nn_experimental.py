"""``tf.nn.experimental``: dropout with explicit randomness."""

from tensorfleet.ops.nn_dropout_variants import (general_dropout, stateless_dropout)

__all__ = ["general_dropout", "stateless_dropout"]
