"""``tf.RaggedTensorSpec``: the type of a ``tf.RaggedTensor`` -- its shape (ragged
dimensions None), dtype, ragged rank (how many dimensions after the first are ragged;
``rank - 1`` by default) and the dtype of its row splits."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.tensor_shape import as_shape
from tensorfleet.framework.type_spec import TensorSpec, TypeSpec
from tensorfleet.ops.ragged_tensor import RaggedTensor, RaggedTensorValue


class RaggedTensorSpec(TypeSpec):
    """The type of a ``RaggedTensor``.

    Raises:
      ValueError: neither ``ragged_rank`` nor a shape of known rank, a ``ragged_rank``
        not below the rank, or row splits that are not int32 / int64.
    """

    value_type = RaggedTensor

    def __init__(self, shape: Any = None, dtype: Any = _dtypes.float32,
                 ragged_rank: Optional[int] = None, row_splits_dtype: Any = _dtypes.int64,
                 flat_values_spec: Optional[TypeSpec] = None):
        self._shape = as_shape(shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._row_splits_dtype = _dtypes.as_dtype(row_splits_dtype)
        if self._row_splits_dtype not in (_dtypes.int32, _dtypes.int64):
            raise ValueError(f"row_splits_dtype must be int32 or int64, got "
                             f"{self._row_splits_dtype.name}")
        rank = self._shape.ndims
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        if not isinstance(ragged_rank, int) or isinstance(ragged_rank, bool) or \
                ragged_rank < 0:
            raise ValueError(f"ragged_rank must be a non-negative int, got {ragged_rank!r}")
        if rank is not None and ragged_rank >= rank:
            raise ValueError(f"Argument `ragged_rank` ({ragged_rank}) must be less than rank "
                             f"({rank}).")
        if flat_values_spec is not None and not isinstance(flat_values_spec, TensorSpec):
            raise TypeError(f"flat_values_spec must be a TensorSpec, got {flat_values_spec!r}")
        if flat_values_spec is not None and flat_values_spec.dtype is not self._dtype:
            raise ValueError(f"dtype {self._dtype.name} differs from flat_values_spec's "
                             f"{flat_values_spec.dtype.name}")
        self._ragged_rank = ragged_rank
        self._flat_values_spec = flat_values_spec

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    ragged_rank = property(lambda self: self._ragged_rank)
    row_splits_dtype = property(lambda self: self._row_splits_dtype)
    flat_values_spec = property(lambda self: self._flat_values_spec)

    def _fields(self) -> Tuple[Any, ...]:
        return (self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype)

    def __repr__(self) -> str:
        return (f"RaggedTensorSpec({self._shape!r}, {self._dtype!r}, {self._ragged_rank}, "
                f"{self._row_splits_dtype!r})")

    @classmethod
    def from_value(cls, value: Any) -> "RaggedTensorSpec":
        """The spec of a ``RaggedTensor`` (or ``RaggedTensorValue``)."""
        if isinstance(value, RaggedTensor):
            return cls(value.shape, value.dtype, value.ragged_rank, value.row_splits_dtype)
        if isinstance(value, RaggedTensorValue):
            return cls(list(value.shape), _dtypes.as_dtype(value.flat_values.dtype),
                       value.ragged_rank, _dtypes.as_dtype(value.row_splits.dtype))
        raise TypeError(f"RaggedTensorSpec.from_value needs a RaggedTensor, got {value!r}")

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        """Whether a spec or ragged value could have this type."""
        other = spec_or_value
        if isinstance(other, (RaggedTensor, RaggedTensorValue)):
            other = RaggedTensorSpec.from_value(other)
        if not isinstance(other, RaggedTensorSpec):
            return False
        return (self._dtype is other._dtype and self._ragged_rank == other._ragged_rank and
                self._row_splits_dtype is other._row_splits_dtype and
                self._shape.is_compatible_with(other._shape))

    def _merge(self, other: TypeSpec) -> TypeSpec:
        o: RaggedTensorSpec = other  # type: ignore[assignment]
        if (self._dtype, self._ragged_rank, self._row_splits_dtype) != \
                (o._dtype, o._ragged_rank, o._row_splits_dtype):
            raise ValueError(f"No TypeSpec is compatible with both {self!r} and {other!r}")
        return RaggedTensorSpec(self._shape.most_specific_compatible_shape(o._shape),
                                self._dtype, self._ragged_rank, self._row_splits_dtype)


__all__ = ["RaggedTensorSpec"]
