"""``tf.nest``: nested structures flattened to their leaves and rebuilt."""

from tensorfleet.framework.nest import (assert_same_structure, flatten, is_nested,
    is_nested as is_sequence, map_structure, pack_sequence_as)

__all__ = ["assert_same_structure", "flatten", "is_nested", "is_sequence", "map_structure",
           "pack_sequence_as"]
