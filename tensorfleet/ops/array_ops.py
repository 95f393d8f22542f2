"""Array ops: the whole family as one module (``tf.<name>``, ``array_ops.<name>``).

The ops are defined in ``array_ops_core`` (constants, packing, shapes, reshapes, casts),
``array_concat_ops`` (joining and splitting) and ``array_indexing_ops`` (slicing, gathering,
padding, masks, ranges, segment ops); this module re-exports them.
"""

from __future__ import annotations

from tensorfleet.ops.array_ops_core import (  # noqa: F401
    _axis_tensor, _norm_axis, _scalar_int, bitcast, cast, constant, convert_list, expand_dims,
    fill, guarantee_const, identity, invert_permutation, ones, ones_like, partial_values, placeholder,
    placeholder_with_default, rank, reshape, shape, shape_from_tensor, shape_tensor, size,
    squeeze, stack, stop_gradient, to_double, to_float, to_int32, to_int64, zeros, zeros_like)
from tensorfleet.ops.array_concat_ops import concat, split, unstack  # noqa: F401
from tensorfleet.ops.array_indexing_ops import (  # noqa: F401
    batch_gather, boolean_mask, dynamic_partition, dynamic_stitch, gather, newaxis, one_hot, pad, range,
    slice, strided_slice, tile, transpose, unsorted_segment_sum, where)

__all__ = [
    "constant", "stack", "placeholder", "placeholder_with_default", "identity",
    "stop_gradient", "fill", "zeros", "ones", "zeros_like", "ones_like", "shape", "size",
    "rank", "reshape", "expand_dims", "squeeze", "invert_permutation", "cast", "bitcast",
    "guarantee_const", "to_float", "to_double", "to_int32", "to_int64",
    "unstack", "concat", "split",
    "newaxis", "slice", "strided_slice", "gather", "batch_gather", "unsorted_segment_sum",
    "dynamic_partition", "dynamic_stitch", "one_hot", "tile", "pad", "range", "transpose",
    "where", "boolean_mask",
]
