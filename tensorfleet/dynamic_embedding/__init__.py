"""``tensorfleet.dynamic_embedding`` (also ``tf.contrib.dynamic_embedding``): embeddings
whose rows are created on first use, with a frequency filter and eviction."""

from tensorfleet.dynamic_embedding.ops import (  # noqa: F401
    DynamicEmbeddingShard, DynamicEmbeddingVariable, embedding_lookup, embedding_lookup_sparse,
    get_variable)
from tensorfleet.dynamic_embedding.optimizer import DynamicEmbeddingOptimizer  # noqa: F401

__all__ = ["DynamicEmbeddingShard", "DynamicEmbeddingVariable", "DynamicEmbeddingOptimizer",
           "embedding_lookup", "embedding_lookup_sparse", "get_variable"]
