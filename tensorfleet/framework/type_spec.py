"""``tf.TypeSpec`` and its kinds: the type of a value, as opposed to the value.

A spec names what a value must be (``TensorSpec([None, 3], tf.float32)``), answers whether
a value or another spec fits it (``is_compatible_with``) and merges with another spec into
the most specific type both fit (``most_specific_compatible_type``).
``type_spec_from_value`` gives the spec of a value; ``tf.data.experimental.get_structure``
gives the specs of a data set's elements.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tensorfleet.framework.tensor_shape import TensorShape, as_shape


class TypeSpec:
    """The base of the specs; a spec is immutable and compared by its fields."""

    value_type: type = object

    def _fields(self) -> Tuple[Any, ...]:
        return ()

    def __eq__(self, other: Any) -> bool:
        return type(other) is type(self) and _key(self._fields()) == _key(other._fields())

    def __ne__(self, other: Any) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((type(self).__name__, repr(_key(self._fields()))))

    def __repr__(self) -> str:
        return f"{type(self).__name__}{self._fields()!r}"

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        """Whether ``spec_or_value`` (a spec or a value) could have this type."""
        other = spec_or_value if isinstance(spec_or_value, TypeSpec) \
            else type_spec_from_value(spec_or_value)
        return type(other) is type(self) and self._compatible(other)

    def _compatible(self, other: "TypeSpec") -> bool:
        return self == other

    def most_specific_compatible_type(self, other: "TypeSpec") -> "TypeSpec":
        """The most specific spec both this and ``other`` fit.

        Raises:
          ValueError: the specs are of different kinds or dtypes.
        """
        if type(other) is not type(self):
            raise ValueError(f"No TypeSpec is compatible with both {self!r} and {other!r}")
        return self._merge(other)

    def _merge(self, other: "TypeSpec") -> "TypeSpec":
        if self != other:
            raise ValueError(f"No TypeSpec is compatible with both {self!r} and {other!r}")
        return self


def _key(fields: Any) -> Any:
    return tuple(f.as_list() if isinstance(f, TensorShape) and f.ndims is not None
                 else (None if isinstance(f, TensorShape) else f) for f in fields)


def _dtype(dtype: Any) -> _dtypes.DType:
    return _dtypes.as_dtype(dtype)


class TensorSpec(TypeSpec):
    """The type of a ``tf.Tensor``: its ``shape`` (dimensions may be None), ``dtype`` and an
    optional ``name``."""

    value_type = Tensor

    def __init__(self, shape: Any, dtype: Any = _dtypes.float32, name: Optional[str] = None):
        self._shape = as_shape(shape)
        self._dtype = _dtype(dtype)
        if name is not None and not isinstance(name, str):
            raise TypeError(f"TensorSpec name must be a string, got {name!r}")
        self._name = name

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    name = property(lambda self: self._name)

    def _fields(self) -> Tuple[Any, ...]:
        return (self._shape, self._dtype, self._name)

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"

    @classmethod
    def from_spec(cls, spec: Any, name: Optional[str] = None) -> "TensorSpec":
        """A TensorSpec with the shape and dtype of ``spec`` (any spec with both)."""
        return cls(spec.shape, spec.dtype, name if name is not None else
                   getattr(spec, "name", None))

    @classmethod
    def from_tensor(cls, tensor: Any, name: Optional[str] = None) -> "TensorSpec":
        """The spec of ``tensor``; its op's name unless ``name`` is given."""
        if not isinstance(tensor, Tensor):
            raise ValueError(f"TensorSpec.from_tensor needs a Tensor, got {tensor!r}")
        return cls(tensor.shape, tensor.dtype, name if name is not None else tensor.op.name)

    def _compatible(self, other: TypeSpec) -> bool:
        return (self._dtype is other._dtype  # type: ignore[attr-defined]
                and self._shape.is_compatible_with(other._shape))  # type: ignore

    def _merge(self, other: TypeSpec) -> TypeSpec:
        if self._dtype is not other._dtype:  # type: ignore[attr-defined]
            raise ValueError(f"No TypeSpec is compatible with both {self!r} and {other!r}")
        return TensorSpec(self._shape.most_specific_compatible_shape(other._shape),  # type: ignore
                          self._dtype, self._name if self._name == other._name  # type: ignore
                          else None)


class _ShapedSpec(TypeSpec):
    def __init__(self, shape: Any = None, dtype: Any = _dtypes.float32):
        self._shape = as_shape(shape)
        self._dtype = _dtype(dtype)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)

    def _fields(self) -> Tuple[Any, ...]:
        return (self._shape, self._dtype)

    def _compatible(self, other: TypeSpec) -> bool:
        return (self._dtype is other._dtype  # type: ignore[attr-defined]
                and self._shape.is_compatible_with(other._shape))  # type: ignore

    def _merge(self, other: TypeSpec) -> TypeSpec:
        if self._dtype is not other._dtype:  # type: ignore[attr-defined]
            raise ValueError(f"No TypeSpec is compatible with both {self!r} and {other!r}")
        return type(self)(self._shape.most_specific_compatible_shape(other._shape),  # type: ignore
                          self._dtype)


class SparseTensorSpec(_ShapedSpec):
    """The type of a ``tf.SparseTensor``: its dense ``shape`` and ``dtype``."""

    value_type = SparseTensor

    @classmethod
    def from_value(cls, value: Any) -> "SparseTensorSpec":
        """The spec of a SparseTensor or SparseTensorValue."""
        if isinstance(value, SparseTensorValue):
            return cls(np.asarray(value.dense_shape).tolist(),
                       _dtypes.as_dtype(np.asarray(value.values).dtype))
        if isinstance(value, SparseTensor):
            return cls(value.shape, value.dtype)
        raise TypeError(f"SparseTensorSpec.from_value needs a SparseTensor, got {value!r}")


class IndexedSlicesSpec(TypeSpec):
    """The type of a ``tf.IndexedSlices``."""

    value_type = IndexedSlices

    def __init__(self, shape: Any = None, dtype: Any = _dtypes.float32,
                 indices_dtype: Any = _dtypes.int64, dense_shape_dtype: Any = None,
                 indices_shape: Any = None):
        self._shape = as_shape(shape)
        self._dtype = _dtype(dtype)
        self._indices_dtype = _dtype(indices_dtype)
        self._dense_shape_dtype = None if dense_shape_dtype is None else _dtype(
            dense_shape_dtype)
        self._indices_shape = as_shape([None] if indices_shape is None else indices_shape)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)

    def _fields(self) -> Tuple[Any, ...]:
        return (self._shape, self._dtype, self._indices_dtype, self._dense_shape_dtype,
                self._indices_shape)


class TensorArraySpec(TypeSpec):
    """The type of a ``tf.TensorArray``: its elements' shape and dtype."""

    def __init__(self, element_shape: Any = None, dtype: Any = _dtypes.float32,
                 dynamic_size: bool = False, infer_shape: bool = True):
        self._element_shape = as_shape(element_shape)
        self._dtype = _dtype(dtype)
        self._dynamic_size, self._infer_shape = bool(dynamic_size), bool(infer_shape)

    element_shape = property(lambda self: self._element_shape)
    dtype = property(lambda self: self._dtype)

    @property
    def value_type(self) -> type:  # type: ignore[override]
        from tensorfleet.ops.tensor_array_ops import TensorArray
        return TensorArray

    def _fields(self) -> Tuple[Any, ...]:
        return (self._element_shape, self._dtype, self._dynamic_size, self._infer_shape)

    def _compatible(self, other: TypeSpec) -> bool:
        o: TensorArraySpec = other  # type: ignore[assignment]
        return (self._dtype is o._dtype and self._dynamic_size == o._dynamic_size
                and self._element_shape.is_compatible_with(o._element_shape))


class NoneTensorSpec(TypeSpec):
    """The type of ``None`` where a value may be absent."""

    value_type = type(None)


class OptionalSpec(TypeSpec):
    """The type of an optional value holding ``element_spec`` (a nest of specs)."""

    def __init__(self, element_spec: Any):
        self._element_spec = element_spec

    element_spec = property(lambda self: self._element_spec)

    def _fields(self) -> Tuple[Any, ...]:
        return (self._element_spec,)


class DatasetSpec(TypeSpec):
    """The type of a ``tf.data.Dataset``: its elements' specs (``element_spec``)."""

    def __init__(self, element_spec: Any, dataset_shape: Any = ()):
        self._element_spec = element_spec
        self._dataset_shape = as_shape(dataset_shape)

    element_spec = property(lambda self: self._element_spec)

    @property
    def value_type(self) -> type:  # type: ignore[override]
        from tensorfleet.data.dataset_ops import Dataset
        return Dataset

    def _fields(self) -> Tuple[Any, ...]:
        return (self._element_spec, self._dataset_shape)

    @staticmethod
    def from_value(value: Any) -> "DatasetSpec":
        """The spec of the data set ``value``."""
        return DatasetSpec(dataset_structure(value))


def dataset_structure(dataset: Any) -> Any:
    """The specs of a data set's elements, nested like its elements."""
    from tensorfleet.data.dataset_ops import Dataset
    from tensorfleet.framework.nest import map_structure
    if not isinstance(dataset, Dataset):
        raise TypeError(f"get_structure needs a tf.data.Dataset, got {type(dataset).__name__}")
    return map_structure(lambda t, s: TensorSpec(s, t), dataset.output_types,
                         dataset.output_shapes)


def type_spec_from_value(value: Any) -> TypeSpec:
    """The spec of ``value``: a Tensor, SparseTensor(Value), IndexedSlices, Dataset, None,
    or anything ``tf.convert_to_tensor`` takes (numpy arrays, numbers, nested lists).

    Raises:
      TypeError: a value with no spec.
    """
    from tensorfleet.data.dataset_ops import Dataset
    if value is None:
        return NoneTensorSpec()
    if isinstance(value, Tensor):
        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, (SparseTensor, SparseTensorValue)):
        return SparseTensorSpec.from_value(value)
    if isinstance(value, IndexedSlices):
        return IndexedSlicesSpec(value.values.shape, value.values.dtype, value.indices.dtype)
    if isinstance(value, Dataset):
        return DatasetSpec.from_value(value)
    try:
        arr = np.asarray(value)
    except Exception as e:  # noqa: BLE001 - any failure means: no spec
        raise TypeError(f"Could not build a TypeSpec for {value!r}: {e}") from None
    if arr.dtype == object and not all(isinstance(v, (bytes, str)) for v in arr.flat):
        raise TypeError(f"Could not build a TypeSpec for {value!r} of type "
                        f"{type(value).__name__}")
    t = convert_to_tensor(value) if arr.dtype != object else None
    dtype = t.dtype if t is not None else _dtypes.string
    return TensorSpec(arr.shape, dtype)


__all__ = ["TypeSpec", "TensorSpec", "SparseTensorSpec", "IndexedSlicesSpec",
           "TensorArraySpec", "NoneTensorSpec", "OptionalSpec", "DatasetSpec",
           "type_spec_from_value", "dataset_structure"]
