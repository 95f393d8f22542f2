"""Segment reductions beside ``tf.unsorted_segment_sum``: ``tf.segment_sum``,
``segment_mean``, ``segment_max``, ``segment_min``, ``segment_prod`` (sorted ids) and
``tf.unsorted_segment_max``, ``_min``, ``_prod``, ``_mean``, ``_sqrt_n``.

Sorted segment ops take 1-D ids that never decrease (checked at run time) and give
``max(id) + 1`` rows; an empty segment is 0 (1 for the product). Unsorted ops take
ids of any rank that prefix ``data``'s shape and ``num_segments`` rows; ids below 0
drop their rows, and an empty segment is the dtype's lowest value for max, its
highest for min and 1 for prod, as in TensorFlow. ``unsorted_segment_mean`` and
``_sqrt_n`` divide the sums by the row counts (or their square roots), counting an
empty segment as 1.
"""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, unknown_shape
from tensorfleet.ops.array_ops import concat, ones, ones_like, reshape, unsorted_segment_sum
from tensorfleet.ops.math_ops import maximum, realdiv, sqrt
from tensorfleet.ops.op_util import const_value, make_tensor

_SORTED = {"SegmentSum": "segment_sum", "SegmentMean": "segment_mean",
           "SegmentMax": "segment_max", "SegmentMin": "segment_min",
           "SegmentProd": "segment_prod"}
_UNSORTED = {"UnsortedSegmentMax": "unsorted_segment_max",
             "UnsortedSegmentMin": "unsorted_segment_min",
             "UnsortedSegmentProd": "unsorted_segment_prod"}


def _sorted_shape(op: Any) -> List[TensorShape]:
    data, ids = op.inputs
    if ids.shape.ndims is not None and ids.shape.ndims != 1:
        raise ValueError(f"segment_ids must be a vector, got shape {ids.shape}")
    if data.shape.ndims is None:
        return [unknown_shape()]
    if data.shape.ndims == 0:
        raise ValueError("data must have rank at least 1 for a segment reduction")
    if not TensorShape(data.shape.as_list()[:1]).is_compatible_with(ids.shape):
        raise ValueError(f"segment_ids shape {ids.shape} does not match the first dimension "
                         f"of data shape {data.shape}")
    return [TensorShape([None] + data.shape.as_list()[1:])]


def _unsorted_shape(op: Any) -> List[TensorShape]:
    data, ids, n = op.inputs
    if data.shape.ndims is None or ids.shape.ndims is None:
        return [unknown_shape()]
    if not TensorShape(data.shape.as_list()[:ids.shape.ndims]).is_compatible_with(ids.shape):
        raise ValueError(f"segment_ids shape {ids.shape} must be a prefix of data shape "
                         f"{data.shape}")
    num = const_value(n)
    return [TensorShape([None if num is None else int(num)]
                        + data.shape.as_list()[ids.shape.ndims:])]


for _t in _SORTED:
    register_op(_t, _sorted_shape)
for _t in _UNSORTED:
    register_op(_t, _unsorted_shape)


def _check_ids(ids: Tensor, op_type: str) -> None:
    if ids.dtype not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"segment_ids of {op_type} must be int32 or int64, got "
                        f"{ids.dtype.name}")


def _check_data(data: Tensor, op_type: str, kinds: str) -> None:
    if data.dtype.np.kind not in kinds:
        raise TypeError(f"Value passed to parameter 'data' of op '{op_type}' has DataType "
                        f"{data.dtype.name} not in the list of allowed types for it")


def _sorted(op_type: str, data: Any, segment_ids: Any, name: Optional[str],
            kinds: str = "iuf") -> Tensor:
    d, ids = convert_to_tensor(data), convert_to_tensor(segment_ids)
    _check_data(d, op_type, kinds)
    _check_ids(ids, op_type)
    return make_tensor(op_type, [d, ids], d.dtype, name=name or op_type)


def _num_segments(num_segments: Any, ids: Tensor) -> Tensor:
    if isinstance(num_segments, Tensor):
        return num_segments
    return convert_to_tensor(num_segments, dtype=ids.dtype)


def _unsorted(op_type: str, data: Any, segment_ids: Any, num_segments: Any,
              name: Optional[str]) -> Tensor:
    d, ids = convert_to_tensor(data), convert_to_tensor(segment_ids)
    _check_data(d, op_type, "iuf")
    _check_ids(ids, op_type)
    n = _num_segments(num_segments, ids)
    return make_tensor(op_type, [d, ids, n], d.dtype, name=name or op_type)


def segment_sum(data: Any, segment_ids: Any, name: Optional[str] = None) -> Tensor:
    """Sums of ``data`` rows over runs of equal, non-decreasing ``segment_ids``."""
    return _sorted("SegmentSum", data, segment_ids, name)


def segment_mean(data: Any, segment_ids: Any, name: Optional[str] = None) -> Tensor:
    """Means of ``data`` rows per sorted segment (truncated for integers); 0 when empty."""
    return _sorted("SegmentMean", data, segment_ids, name)


def segment_max(data: Any, segment_ids: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise maxima of ``data`` rows per sorted segment; 0 for an empty segment."""
    return _sorted("SegmentMax", data, segment_ids, name)


def segment_min(data: Any, segment_ids: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise minima of ``data`` rows per sorted segment; 0 for an empty segment."""
    return _sorted("SegmentMin", data, segment_ids, name)


def segment_prod(data: Any, segment_ids: Any, name: Optional[str] = None) -> Tensor:
    """Products of ``data`` rows per sorted segment; 1 for an empty segment."""
    return _sorted("SegmentProd", data, segment_ids, name)


def unsorted_segment_max(data: Any, segment_ids: Any, num_segments: Any,
                         name: Optional[str] = None) -> Tensor:
    """Elementwise maxima of ``data`` rows grouped by ``segment_ids`` (any order)."""
    return _unsorted("UnsortedSegmentMax", data, segment_ids, num_segments, name)


def unsorted_segment_min(data: Any, segment_ids: Any, num_segments: Any,
                         name: Optional[str] = None) -> Tensor:
    """Elementwise minima of ``data`` rows grouped by ``segment_ids`` (any order)."""
    return _unsorted("UnsortedSegmentMin", data, segment_ids, num_segments, name)


def unsorted_segment_prod(data: Any, segment_ids: Any, num_segments: Any,
                          name: Optional[str] = None) -> Tensor:
    """Products of ``data`` rows grouped by ``segment_ids`` (any order)."""
    return _unsorted("UnsortedSegmentProd", data, segment_ids, num_segments, name)


def _segment_counts(data: Tensor, ids: Tensor, n: Tensor) -> Tensor:
    """Rows per segment (at least 1), shaped to broadcast against the sums."""
    counts = unsorted_segment_sum(ones_like(ids, dtype=data.dtype), ids, n)
    counts = maximum(counts, ones_like(counts))
    inner = data.shape.ndims - ids.shape.ndims if data.shape.ndims is not None and \
        ids.shape.ndims is not None else None
    if inner is None:
        raise ValueError("unsorted segment means need data and segment_ids of known rank")
    return reshape(counts, concat([reshape(n, [1]), ones([inner], _dtypes.int32)
                                   if n.dtype is _dtypes.int32
                                   else ones([inner], n.dtype)], 0))


def _unsorted_average(data: Any, segment_ids: Any, num_segments: Any, root: bool,
                      name: Optional[str], default: str) -> Tensor:
    d, ids = convert_to_tensor(data), convert_to_tensor(segment_ids)
    _check_data(d, default, "f")
    _check_ids(ids, default)
    n = _num_segments(num_segments, ids)
    counts = _segment_counts(d, ids, n)
    totals = unsorted_segment_sum(d, ids, n)
    return realdiv(totals, sqrt(counts) if root else counts, name=name or default)


def unsorted_segment_mean(data: Any, segment_ids: Any, num_segments: Any,
                          name: Optional[str] = None) -> Tensor:
    """Means of ``data`` rows grouped by ``segment_ids``; 0 for an empty segment."""
    return _unsorted_average(data, segment_ids, num_segments, False, name,
                             "UnsortedSegmentMean")


def unsorted_segment_sqrt_n(data: Any, segment_ids: Any, num_segments: Any,
                            name: Optional[str] = None) -> Tensor:
    """Sums of ``data`` rows per segment divided by the square root of the row count."""
    return _unsorted_average(data, segment_ids, num_segments, True, name,
                             "UnsortedSegmentSqrtN")


__all__ = [
    "segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod",
    "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod",
    "unsorted_segment_mean", "unsorted_segment_sqrt_n",
]
