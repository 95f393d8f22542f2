"""``tf.contrib.layers``: layers, regularizers, initializers and summaries of TF 1.x."""

from tensorfleet.ops.embedding_ops import safe_embedding_lookup_sparse  # noqa: F401
