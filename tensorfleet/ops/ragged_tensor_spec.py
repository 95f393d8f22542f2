"""``RaggedTensorSpec``: the type of a ``tf.RaggedTensor`` -- its shape (ragged dimensions
None), dtype, ragged rank and row-splits dtype."""

from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.tensor_shape import TensorShape, as_shape
from tensorfleet.framework.type_spec import TypeSpec
from tensorfleet.ops.ragged_tensor import RaggedTensor, RaggedTensorValue


class RaggedTensorSpec(TypeSpec):
    """The type of a ragged tensor. ``ragged_rank`` defaults to the rank less one."""

    value_type = RaggedTensor

    def __init__(self, shape: Any = None, dtype: Any = _dtypes.float32,
                 ragged_rank: Optional[int] = None, row_splits_dtype: Any = _dtypes.int64,
                 flat_values_spec: Any = None):
        self._shape = as_shape(shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._row_splits_dtype = _dtypes.as_dtype(row_splits_dtype)
        if self._row_splits_dtype not in (_dtypes.int32, _dtypes.int64):
            raise ValueError(f"RaggedTensorSpec: row_splits_dtype must be int32 or int64, got "
                             f"{self._row_splits_dtype.name}")
        if flat_values_spec is not None:
            raise ValueError("RaggedTensorSpec: flat_values_spec is not supported; the flat "
                             "values are a dense tensor of the spec's dtype")
        rank = self._shape.ndims
        if ragged_rank is None:
            if rank is None:
                raise ValueError("RaggedTensorSpec: give ragged_rank when the shape's rank is "
                                 "unknown")
            ragged_rank = rank - 1
        if isinstance(ragged_rank, bool) or not isinstance(ragged_rank, (int, np.integer)) \
                or ragged_rank < 0:
            raise ValueError(f"RaggedTensorSpec: ragged_rank must be a non-negative int, got "
                             f"{ragged_rank!r}")
        if rank is not None and ragged_rank >= rank:
            raise ValueError(f"Argument `ragged_rank` ({ragged_rank}) must be less than rank "
                             f"({rank}).")
        self._ragged_rank = int(ragged_rank)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    ragged_rank = property(lambda self: self._ragged_rank)
    row_splits_dtype = property(lambda self: self._row_splits_dtype)
    flat_values_spec = property(lambda self: None)

    def _fields(self) -> Tuple[Any, ...]:
        return (self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype)

    def __repr__(self) -> str:
        return (f"RaggedTensorSpec({self._shape}, {self._dtype!r}, {self._ragged_rank}, "
                f"{self._row_splits_dtype!r})")

    @classmethod
    def from_value(cls, value: Any) -> "RaggedTensorSpec":
        """The spec of a RaggedTensor or RaggedTensorValue."""
        if isinstance(value, RaggedTensor):
            return cls(value.shape, value.dtype, value.ragged_rank, value.row_splits_dtype)
        if isinstance(value, RaggedTensorValue):
            splits = value.nested_row_splits[0]
            return cls(list(value.shape), _dtypes.as_dtype(np.asarray(value.flat_values).dtype),
                       value.ragged_rank, _dtypes.as_dtype(np.asarray(splits).dtype))
        raise TypeError(f"RaggedTensorSpec.from_value needs a RaggedTensor, got {value!r}")

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        """Whether ``spec_or_value`` (a spec, RaggedTensor or RaggedTensorValue) could have
        this type."""
        other = spec_or_value
        if isinstance(other, (RaggedTensor, RaggedTensorValue)):
            other = RaggedTensorSpec.from_value(other)
        return type(other) is type(self) and self._compatible(other)

    def _compatible(self, other: TypeSpec) -> bool:
        o: RaggedTensorSpec = other  # type: ignore[assignment]
        return (self._dtype is o._dtype and self._ragged_rank == o._ragged_rank
                and self._row_splits_dtype is o._row_splits_dtype
                and self._shape.is_compatible_with(o._shape))

    def _merge(self, other: TypeSpec) -> TypeSpec:
        o: RaggedTensorSpec = other  # type: ignore[assignment]
        if not (self._dtype is o._dtype and self._ragged_rank == o._ragged_rank
                and self._row_splits_dtype is o._row_splits_dtype):
            raise ValueError(f"No TypeSpec is compatible with both {self!r} and {other!r}")
        shape: TensorShape = self._shape.most_specific_compatible_shape(o._shape)
        return RaggedTensorSpec(shape, self._dtype, self._ragged_rank, self._row_splits_dtype)


__all__ = ["RaggedTensorSpec"]
