"""``tf.lookup.experimental.MutableHashTable`` and ``DenseHashTable``: key -> value tables
that steps update (``insert``, ``remove``) and read (``lookup``, ``export``), saved by
``tf.train.Saver`` (as ``<name>-keys`` and ``<name>-values``, TensorFlow's names) when
``checkpoint=True``."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import (GraphKeys, Operation, Tensor, convert_to_tensor,
                                         get_default_graph, name_scope)
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.framework.static_value import get_static_value
from tensorfleet.framework.tensor_shape import TensorShape, scalar
from tensorfleet.ops.lookup_ops import LookupInterface
from tensorfleet.ops.op_util import make_op, make_tensor, no_outputs

register_op("MutableHashTableV2", lambda op: [scalar()], stateful=True, ref_output=True)
register_op("LookupTableInsertV2", no_outputs, stateful=True, ref_inputs=(0,))
register_op("LookupTableRemoveV2", no_outputs, stateful=True, ref_inputs=(0,))
register_op("LookupTableImportV2", no_outputs, stateful=True, ref_inputs=(0,))
register_op("LookupTableExportV2", lambda op: [TensorShape([None]), TensorShape([None])],
            stateful=True, ref_inputs=(0,))


class _ExportedTensor:
    """One tensor of a table's checkpoint (keys or values), shaped like a variable for
    ``tf.train.Saver``."""

    def __init__(self, table: "MutableHashTable", field: str, tensor: Tensor):
        self._table, self._field, self._tensor = table, field, tensor
        self.name = f"{table.name}-{field}"

    op = property(lambda self: self._table.resource_handle.op)
    graph = property(lambda self: self._tensor.graph)
    dtype = property(lambda self: self._tensor.dtype)

    def get_shape(self) -> TensorShape:
        return self._tensor.shape

    def _ref(self) -> Tensor:
        return self._tensor

    def value(self) -> Tensor:
        return self._tensor

    def _restore_group(self) -> Tuple[Any, str]:
        return self._table, self._field


class MutableHashTable(LookupInterface):
    """A mutable key -> value map (scalar values); missing keys give ``default_value``.

    Raises:
      ValueError: a ``default_value`` that is not a scalar.
    """

    _op_name = "MutableHashTable"

    def __init__(self, key_dtype: Any, value_dtype: Any, default_value: Any,
                 name: str = "MutableHashTable", checkpoint: bool = True,
                 experimental_is_anonymous: bool = False):
        if experimental_is_anonymous:
            raise ValueError(f"{type(self).__name__}: experimental_is_anonymous=True is not "
                             f"supported; tables are named graph resources")
        super().__init__(key_dtype, value_dtype, name)
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype,
                                                name="default_value")
        if self._default_value.shape.ndims != 0:
            raise ValueError(f"{type(self).__name__}: default_value must be a scalar (tables "
                             f"of vectors are not supported), got shape "
                             f"{self._default_value.shape}")
        self._handle = make_tensor("MutableHashTableV2", [], _dtypes.string,
                                   self._table_attrs(), name=name)
        self._name = self._handle.op.name
        if checkpoint:
            get_default_graph().add_to_collection(GraphKeys.SAVEABLE_OBJECTS, self)

    def _table_attrs(self) -> Dict[str, Any]:
        return {"key_dtype": self._key_dtype, "value_dtype": self._value_dtype,
                "container": "", "shared_name": "", "kind": "mutable"}

    @property
    def resource_handle(self) -> Tensor:
        return self._handle

    def size(self, name: Optional[str] = None) -> Tensor:
        """The number of entries (int64 scalar)."""
        with name_scope(name, f"{self._name}_Size"):
            return make_tensor("LookupTableSizeV2", [self._handle], _dtypes.int64, {})

    def _keys(self, keys: Any) -> Tensor:
        k = keys if isinstance(keys, Tensor) else convert_to_tensor(keys, dtype=self._key_dtype)
        if k.dtype is not self._key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype.name}, "
                            f"received: {k.dtype.name}")
        return k

    def lookup(self, keys: Any, dynamic_default_values: Any = None,
               name: Optional[str] = None) -> Any:
        """The value of each key (same shape); missing keys give the default."""
        if dynamic_default_values is not None:
            raise ValueError("lookup: dynamic_default_values is not supported")
        if isinstance(keys, SparseTensor):
            return SparseTensor(keys.indices, self.lookup(keys.values, name=name),
                                keys.dense_shape)
        with name_scope(name, f"{self._name}_lookup_table_find"):
            return make_tensor("LookupTableFindV2",
                               [self._handle, self._keys(keys), self._default_value],
                               self._value_dtype, {"num_oov_buckets": 0,
                                                   "Tin": self._key_dtype,
                                                   "Tout": self._value_dtype})

    def insert(self, keys: Any, values: Any, name: Optional[str] = None) -> Operation:
        """The op setting ``keys`` to ``values`` (same shape), replacing old values."""
        with name_scope(name, f"{self._name}_lookup_table_insert"):
            v = convert_to_tensor(values, dtype=self._value_dtype, name="values")
            return make_op("LookupTableInsertV2", [self._handle, self._keys(keys), v], [], {})

    def remove(self, keys: Any, name: Optional[str] = None) -> Operation:
        """The op deleting ``keys`` (absent keys are ignored)."""
        with name_scope(name, f"{self._name}_lookup_table_remove"):
            return make_op("LookupTableRemoveV2", [self._handle, self._keys(keys)], [], {})

    def export(self, name: Optional[str] = None) -> Tuple[Tensor, Tensor]:
        """``(keys, values)``: every entry, in key order."""
        with name_scope(name, f"{self._name}_lookup_table_export_values"):
            op = make_op("LookupTableExportV2", [self._handle],
                         [self._key_dtype, self._value_dtype], {})
            return op.outputs[0], op.outputs[1]

    def _checkpoint_items(self) -> List[Tuple[str, _ExportedTensor]]:
        keys, values = self.export()
        items = [_ExportedTensor(self, "keys", keys), _ExportedTensor(self, "values", values)]
        return [(i.name, i) for i in items]

    def _restore_from(self, tensors: Dict[str, Tensor]) -> Operation:
        """The op replacing the table's content with checkpoint ``tensors``."""
        return make_op("LookupTableImportV2", [self._handle, tensors["keys"],
                                               tensors["values"]], [], {})


class DenseHashTable(MutableHashTable):
    """``MutableHashTable`` with TensorFlow's open-addressing interface: ``empty_key`` and
    ``deleted_key`` (which must differ) mark free slots there, so they cannot be inserted,
    removed or looked up (an InvalidArgumentError when run); the bucket count is a
    capacity hint only.

    Raises:
      ValueError: ``empty_key`` equal to ``deleted_key``.
    """

    def __init__(self, key_dtype: Any, value_dtype: Any, default_value: Any, empty_key: Any,
                 deleted_key: Any, initial_num_buckets: Optional[int] = None,
                 name: str = "MutableDenseHashTable", checkpoint: bool = True,
                 experimental_is_anonymous: bool = False):
        if initial_num_buckets is not None and (
                isinstance(initial_num_buckets, bool) or initial_num_buckets < 1 or
                initial_num_buckets & (initial_num_buckets - 1)):
            raise ValueError(f"initial_num_buckets must be a power of two, got "
                             f"{initial_num_buckets!r}")
        self._empty_key = convert_to_tensor(empty_key, dtype=key_dtype)
        self._deleted_key = convert_to_tensor(deleted_key, dtype=key_dtype)
        e, d = get_static_value(self._empty_key), get_static_value(self._deleted_key)
        if e is not None and d is not None and (e == d).all():
            raise ValueError("DenseHashTable: empty_key and deleted_key must differ")
        self._reserved = (e, d)
        super().__init__(key_dtype, value_dtype, default_value, name=name,
                         checkpoint=checkpoint,
                         experimental_is_anonymous=experimental_is_anonymous)

    def _table_attrs(self) -> Dict[str, Any]:
        reserved = [v.tolist() if hasattr(v, "tolist") else v for v in self._reserved]
        reserved = [r.decode() if isinstance(r, bytes) else r for r in reserved]
        return dict(super()._table_attrs(), kind="dense", reserved_keys=reserved)


__all__ = ["MutableHashTable", "DenseHashTable"]
