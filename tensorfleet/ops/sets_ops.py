"""``tf.sets``: set operations along the last dimension of tensors.

Each row (all dimensions but the last) of ``a`` and ``b`` is a set of its values; the
result is a ``SparseTensor`` whose row ``r`` lists the members of the result set for
``r`` in ascending order, and whose last dimension is the size of the largest such set.
``a`` and ``b`` may be dense or sparse, except a sparse ``a`` with a dense ``b`` (as in
TensorFlow; swap them, and use ``aminusb=False`` for a difference).
"""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.framework.tensor_shape import TensorShape, unknown_shape
from tensorfleet.ops.array_transform_ops import convert_to_tensor_or_sparse_tensor
from tensorfleet.ops.op_util import make_op, make_tensor

_VALID = (_dtypes.int8, _dtypes.int16, _dtypes.int32, _dtypes.int64, _dtypes.uint8,
          _dtypes.uint16, _dtypes.string)


def _set_outputs(op: Any) -> List[TensorShape]:
    return [TensorShape([None, None]), TensorShape([None]), TensorShape([None])]


def _set_size_shape(op: Any) -> List[TensorShape]:
    shape = op.inputs[2].shape
    if shape.ndims == 1 and shape[0] is not None:
        return [unknown_shape(shape[0] - 1)]
    return [unknown_shape()]


for _t in ("DenseToDenseSetOperation", "DenseToSparseSetOperation",
           "SparseToSparseSetOperation"):
    register_op(_t, _set_outputs)
register_op("SetSize", _set_size_shape)


def _operands(a: Any, b: Any) -> tuple:
    a = convert_to_tensor_or_sparse_tensor(a, name="a")
    if a.dtype not in _VALID:
        raise TypeError(f"sets: invalid dtype {a.dtype.name}; expected one of "
                        f"{[d.name for d in _VALID]}")
    b = convert_to_tensor_or_sparse_tensor(b, name="b") if isinstance(b, SparseTensor) \
        else convert_to_tensor_or_sparse_tensor(b, dtype=a.dtype, name="b")
    if b.dtype is not a.dtype:
        raise TypeError(f"sets: types of a and b differ: {a.dtype.name} vs {b.dtype.name}")
    for what, t in (("a", a), ("b", b)):
        rank = t.dense_shape.shape[0] if isinstance(t, SparseTensor) else t.shape.ndims
        if rank is not None and rank < 2:
            raise ValueError(f"sets: {what} must have rank >= 2 (the last dimension holds "
                             f"each set), got rank {rank}")
    flipped = isinstance(a, SparseTensor) and not isinstance(b, SparseTensor)
    return (b, a, True) if flipped else (a, b, False)


def _set_operation(a: Any, b: Any, operation: str, validate_indices: bool,
                   name: Optional[str], default: str) -> SparseTensor:
    with name_scope(name, default):
        dtype = a.dtype
        attrs = {"set_operation": operation, "validate_indices": bool(validate_indices),
                 "T": dtype}
        out = [_dtypes.int64, dtype, _dtypes.int64]
        if isinstance(a, SparseTensor):
            op = make_op("SparseToSparseSetOperation",
                         [a.indices, a.values, a.dense_shape, b.indices, b.values,
                          b.dense_shape], out, attrs)
        elif isinstance(b, SparseTensor):
            op = make_op("DenseToSparseSetOperation",
                         [a, b.indices, b.values, b.dense_shape], out, attrs)
        else:
            op = make_op("DenseToDenseSetOperation", [a, b], out, attrs)
        return SparseTensor(*op.outputs)


def set_intersection(a: Any, b: Any, validate_indices: bool = True,
                     name: Optional[str] = None) -> SparseTensor:
    """The values in both ``a`` and ``b``, row by row (a ``SparseTensor``)."""
    a, b, _ = _operands(a, b)
    return _set_operation(a, b, "intersection", validate_indices, name, "set_intersection")


def set_union(a: Any, b: Any, validate_indices: bool = True,
              name: Optional[str] = None) -> SparseTensor:
    """The values in ``a`` or ``b``, row by row (a ``SparseTensor``)."""
    a, b, _ = _operands(a, b)
    return _set_operation(a, b, "union", validate_indices, name, "set_union")


def set_difference(a: Any, b: Any, aminusb: bool = True, validate_indices: bool = True,
                   name: Optional[str] = None) -> SparseTensor:
    """The values of ``a`` not in ``b`` (``b`` not in ``a`` when ``aminusb`` is False),
    row by row (a ``SparseTensor``)."""
    a, b, flipped = _operands(a, b)
    if flipped:
        aminusb = not aminusb
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices, name,
                          "set_difference")


def set_size(a: Any, validate_indices: bool = True, name: Optional[str] = None) -> Tensor:
    """The number of distinct values in each row of the ``SparseTensor`` ``a`` (int32, of
    ``a``'s shape without its last dimension).

    Raises:
      TypeError: ``a`` is not a SparseTensor, or of a dtype sets do not hold.
    """
    if not isinstance(a, SparseTensor):
        raise TypeError(f"set_size: expected a SparseTensor, got {type(a).__name__}")
    if a.dtype not in _VALID:
        raise TypeError(f"set_size: invalid dtype {a.dtype.name}")
    return make_tensor("SetSize", [a.indices, a.values, a.dense_shape], _dtypes.int32,
                       {"validate_indices": bool(validate_indices), "T": a.dtype},
                       name=name or "SetSize")
