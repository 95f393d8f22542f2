"""Gradients of the segment reductions (``ops/segment_ops.py``), composed of gathers and
segment sums.

A max or min sends the gradient of a segment to the rows that hold its extreme value,
split evenly between ties. A product sends each row the product of the other rows of
its segment, computed without dividing by zero: with one zero in the segment only
the zero row gets a gradient (the product of the rest), with two or more none does.
"""

from __future__ import annotations

import functools
from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor
from tensorfleet.gradients.registry import register_gradient
from tensorfleet.ops import array_ops, math_ops, segment_ops


def _num(op: Operation) -> Tensor:
    return op.inputs[2] if len(op.inputs) > 2 else array_ops.shape(op.outputs[0])[0]


def _broadcast_mask(mask: Tensor, like: Tensor, dtype: _dtypes.DType) -> Tensor:
    extra = array_ops.rank(like) - array_ops.rank(mask)
    shape = array_ops.concat([array_ops.shape(mask),
                              array_ops.ones(array_ops.expand_dims(extra, 0), _dtypes.int32)], 0)
    return array_ops.reshape(array_ops.cast(mask, dtype), shape)


def _gather(x: Tensor, ids: Tensor, unsorted: bool) -> Tensor:
    """``x[ids]``; rows of negative ids (dropped by the unsorted ops) give zeros."""
    if not unsorted:
        return array_ops.gather(x, ids)
    keep = math_ops.greater_equal(ids, array_ops.zeros_like(ids))
    rows = array_ops.gather(x, math_ops.maximum(ids, array_ops.zeros_like(ids)))
    return rows * _broadcast_mask(keep, rows, rows.dtype)


def _segment_total(x: Tensor, ids: Tensor, num: Any) -> Tensor:
    return array_ops.unsorted_segment_sum(x, ids, num)


@register_gradient("SegmentSum")
def _segment_sum_grad(op: Operation, grad: Any) -> List[Optional[Any]]:
    return [array_ops.gather(grad, op.inputs[1]), None]


@register_gradient("SegmentMean")
def _segment_mean_grad(op: Operation, grad: Any) -> List[Optional[Any]]:
    ids = op.inputs[1]
    ones = array_ops.ones_like(ids, dtype=grad.dtype)
    counts = _segment_total(ones, ids, _num(op))
    scaled = grad / _broadcast_mask(counts, grad, grad.dtype)
    return [array_ops.gather(scaled, ids), None]


def _extreme_grad(op: Operation, grad: Any, unsorted: bool) -> List[Optional[Any]]:
    data, ids = op.inputs[0], op.inputs[1]
    chosen = math_ops.equal(data, _gather(op.outputs[0], ids, unsorted))
    if unsorted:
        keep = math_ops.greater_equal(ids, array_ops.zeros_like(ids))
        chosen = math_ops.logical_and(chosen, array_ops.cast(
            _broadcast_mask(keep, data, data.dtype), _dtypes.bool))
    ties = _segment_total(array_ops.cast(chosen, grad.dtype), ids, _num(op))
    share = grad / math_ops.maximum(ties, array_ops.ones_like(ties))
    g = array_ops.where(chosen, _gather(share, ids, unsorted), array_ops.zeros_like(data))
    return [g, None] + ([None] if unsorted else [])


def _prod_grad(op: Operation, grad: Any, unsorted: bool) -> List[Optional[Any]]:
    data, ids = op.inputs[0], op.inputs[1]
    num = _num(op)
    zero = math_ops.equal(data, array_ops.zeros_like(data))
    zeros_in_segment = _segment_total(array_ops.cast(zero, _dtypes.int32), ids, num)
    safe = array_ops.where(zero, array_ops.ones_like(data), data)
    if unsorted:
        rest_prod = segment_ops.unsorted_segment_prod(safe, ids, num)
    else:
        rest_prod = segment_ops.segment_prod(safe, ids)
    only_zero = math_ops.equal(_gather(zeros_in_segment, ids, unsorted),
                               array_ops.ones_like(data, dtype=_dtypes.int32))
    others = array_ops.where(
        zero, array_ops.where(only_zero, _gather(rest_prod, ids, unsorted),
                              array_ops.zeros_like(data)),
        _gather(op.outputs[0], ids, unsorted) / safe)
    return [_gather(grad, ids, unsorted) * others, None] + ([None] if unsorted else [])


# The sorted and unsorted forms share their gradient; it only gathers differently.
for _type, _rule, _unsorted in (("SegmentMax", _extreme_grad, False),
                                ("SegmentMin", _extreme_grad, False),
                                ("UnsortedSegmentMax", _extreme_grad, True),
                                ("UnsortedSegmentMin", _extreme_grad, True),
                                ("SegmentProd", _prod_grad, False),
                                ("UnsortedSegmentProd", _prod_grad, True)):
    register_gradient(_type)(functools.partial(_rule, unsorted=_unsorted))
