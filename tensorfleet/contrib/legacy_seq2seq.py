"""``tf.contrib.legacy_seq2seq``: the list-of-steps seq2seq models and their losses."""

from tensorfleet.ops.legacy_seq2seq import *  # noqa: F401,F403
from tensorfleet.ops.legacy_seq2seq import __all__  # noqa: F401
