"""``tf.lookup.experimental``: the mutable tables."""

from tensorfleet.ops.mutable_lookup_ops import DenseHashTable, MutableHashTable

__all__ = ["DenseHashTable", "MutableHashTable"]
