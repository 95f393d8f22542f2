"""``tf.io.serialize_sparse``, ``serialize_many_sparse`` and ``deserialize_many_sparse``: a
SparseTensor as three serialized ``TensorProto`` strings (indices, values, dense shape), as
TensorFlow writes them, e.g. to pass sparse data through a queue of strings."""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops.array_transform_ops import convert_to_tensor_or_sparse_tensor
from tensorfleet.ops.op_util import make_op, make_tensor

register_op("SerializeSparse", lambda op: [TensorShape([3])])
register_op("SerializeManySparse", lambda op: [TensorShape([None, 3])])
register_op("DeserializeManySparse", lambda op: [TensorShape([None, None]), TensorShape([None]),
                                                 TensorShape([None])])


def _sparse(sp_input: Any, what: str) -> SparseTensor:
    sp = convert_to_tensor_or_sparse_tensor(sp_input)
    if not isinstance(sp, SparseTensor):
        raise TypeError(f"{what} needs a SparseTensor, got {type(sp_input).__name__}")
    return sp


def _check_out_type(out_type: Any, what: str) -> None:
    if _dtypes.as_dtype(out_type) is not _dtypes.string:
        raise ValueError(f"{what}: only out_type=tf.string is supported (tensorfleet has no "
                         f"variant tensors), got {out_type!r}")


def serialize_sparse(sp_input: Any, name: Optional[str] = None,
                     out_type: Any = _dtypes.string) -> Any:
    """A string vector of 3: the serialized indices, values and dense shape."""
    _check_out_type(out_type, "serialize_sparse")
    sp = _sparse(sp_input, "serialize_sparse")
    return make_tensor("SerializeSparse", [sp.indices, sp.values, sp.dense_shape],
                       _dtypes.string, {"T": sp.values.dtype}, name=name or "SerializeSparse")


def serialize_many_sparse(sp_input: Any, name: Optional[str] = None,
                          out_type: Any = _dtypes.string) -> Any:
    """A ``[N, 3]`` string matrix: row ``i`` is ``serialize_sparse`` of minibatch entry ``i``
    (the first dimension of ``sp_input``, of rank 2 or more)."""
    _check_out_type(out_type, "serialize_many_sparse")
    sp = _sparse(sp_input, "serialize_many_sparse")
    return make_tensor("SerializeManySparse", [sp.indices, sp.values, sp.dense_shape],
                       _dtypes.string, {"T": sp.values.dtype},
                       name=name or "SerializeManySparse")


def deserialize_many_sparse(serialized_sparse: Any, dtype: Any, rank: Optional[int] = None,
                            name: Optional[str] = None) -> SparseTensor:
    """The SparseTensor of the ``[N, 3]`` serialized rows stacked along a new first
    dimension of size N; the other dimensions are the largest among the rows.

    Raises:
      InvalidArgumentError: (when run) rows of different ranks, values not of ``dtype``,
        or bytes that are not serialized tensors.
    """
    with name_scope(name or "DeserializeManySparse"):
        s = convert_to_tensor(serialized_sparse, dtype=_dtypes.string)
        dt = _dtypes.as_dtype(dtype)
        op = make_op("DeserializeManySparse", [s], [_dtypes.int64, dt, _dtypes.int64],
                     {"dtype": dt})
        indices, values, shape = op.outputs
        if rank is not None:
            indices.set_shape([None, rank])
            shape.set_shape([rank])
        return SparseTensor(indices, values, shape)


__all__ = ["serialize_sparse", "serialize_many_sparse", "deserialize_many_sparse"]
