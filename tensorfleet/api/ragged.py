"""``tf.ragged``: ragged tensors (rows of different lengths) and the functions on them."""

from tensorfleet.ops.ragged_ops import (boolean_mask, constant, constant_value, cross,
    cross_hashed, map_flat_values, placeholder, range, stack, stack_dynamic_partitions)
from tensorfleet.ops.ragged_tensor import (RaggedTensorValue, row_splits_to_segment_ids,
    segment_ids_to_row_splits)

__all__ = ["RaggedTensorValue", "boolean_mask", "constant", "constant_value", "cross",
           "cross_hashed", "map_flat_values", "placeholder", "range",
           "row_splits_to_segment_ids", "segment_ids_to_row_splits", "stack",
           "stack_dynamic_partitions"]
