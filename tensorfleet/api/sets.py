"""``tf.sets``: set operations along the last dimension, under both TF 1.x names."""

from tensorfleet.ops.sets_ops import (set_difference, set_difference as difference,
    set_intersection, set_intersection as intersection, set_size, set_size as size,
    set_union, set_union as union)

__all__ = ["difference", "intersection", "set_difference", "set_intersection", "set_size",
           "set_union", "size", "union"]
