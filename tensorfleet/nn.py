"""``tf.nn``: neural-network ops."""

from tensorfleet.ops.nn_ops import *  # noqa: F401,F403
from tensorfleet.ops.embedding_ops import (  # noqa: F401,E402
    embedding_lookup, embedding_lookup_sparse, safe_embedding_lookup_sparse)
