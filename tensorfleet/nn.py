"""``tf.nn``: neural-network ops."""

from tensorfleet.ops.nn_ops import *  # noqa: F401,F403
from tensorfleet.ops.embedding_ops import embedding_lookup, embedding_lookup_sparse  # noqa: F401,E402
