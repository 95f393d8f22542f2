"""``tf.manip``: the array manipulations TensorFlow 1.x also listed under this name."""

from tensorfleet.ops.array_indexing_ops import tile
from tensorfleet.ops.array_ops_core import reshape
from tensorfleet.ops.array_transform_ops import (batch_to_space_nd, roll,
    space_to_batch_nd)
from tensorfleet.ops.scatter_ops import gather_nd, scatter_nd
from tensorfleet.ops.sort_ops import reverse

__all__ = ["batch_to_space_nd", "gather_nd", "reshape", "reverse", "roll", "scatter_nd",
           "space_to_batch_nd", "tile"]
