"""``tf.edit_distance``: the Levenshtein distance between the sequences of two sparse
tensors, one distance per position of their leading dimensions."""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tensorfleet.framework.graph import Tensor
from tensorfleet.framework.tensor_shape import TensorShape, unknown_shape
from tensorfleet.ops.op_util import make_tensor


def _edit_distance_shape(op: Any) -> List[TensorShape]:
    rank = op.inputs[2].shape
    if rank.ndims == 1 and rank[0] is not None:
        return [unknown_shape(rank[0] - 1)]
    return [unknown_shape()]


register_op("EditDistance", _edit_distance_shape)


def _sparse(x: Any, what: str) -> SparseTensor:
    if isinstance(x, SparseTensorValue):
        x = SparseTensor.from_value(x)
    if not isinstance(x, SparseTensor):
        raise TypeError(f"edit_distance: {what} must be a SparseTensor, got "
                        f"{type(x).__name__}")
    return x


def edit_distance(hypothesis: Any, truth: Any, normalize: bool = True,
                  name: str = "edit_distance") -> Tensor:
    """For every position of the leading dimensions, the Levenshtein distance between the
    sequence ``hypothesis`` holds there (its values along the last dimension, in index
    order) and the one ``truth`` holds; divided by the truth's length with ``normalize``
    (a missing truth then gives ``inf``, or 0 when the hypothesis is missing too).

    The result is float32, shaped like the larger of the two leading shapes.

    Raises:
      TypeError: inputs that are not SparseTensors, or whose values differ in dtype.
    """
    h, t = _sparse(hypothesis, "hypothesis"), _sparse(truth, "truth")
    if h.dtype is not t.dtype:
        raise TypeError(f"edit_distance: hypothesis ({h.dtype.name}) and truth "
                        f"({t.dtype.name}) must have the same dtype")
    return make_tensor("EditDistance", [h.indices, h.values, h.dense_shape, t.indices,
                                        t.values, t.dense_shape], _dtypes.float32,
                       {"normalize": bool(normalize), "T": h.dtype}, name=name)
