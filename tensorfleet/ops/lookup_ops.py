"""Lookup tables: ``HashTable``, its initializers, ``index_table_from_tensor`` and
friends (``tf.contrib.lookup``), and ``tf.tables_initializer``.

A table is a resource of the task it is placed on, created by a ``HashTableV2``
op whose output is the table's handle, filled once by an initializer op (which
``tf.tables_initializer()`` groups) and read by ``LookupTableFindV2``. Kernels
are in ``kernels/numpy/lookup_kernels.py``.

Out-of-vocabulary buckets (``num_oov_buckets``) are computed inside the find
op: a missing key goes to ``vocab_size + Fingerprint64(key) % num_oov_buckets``
(integer keys are hashed as their decimal strings), TensorFlow's ``FastHashSpec``
ids.
"""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import (GraphKeys, Operation, Tensor, convert_to_tensor,
                                         get_default_graph, name_scope)
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.framework.tensor_shape import scalar
from tensorfleet.ops import array_ops, control_flow_ops, math_ops
from tensorfleet.ops import array_indexing_ops
from tensorfleet.ops.op_util import make_op, make_tensor, no_outputs

_KEY_TYPES = (_dtypes.string, _dtypes.int64, _dtypes.int32)
_VALUE_TYPES = (_dtypes.string, _dtypes.int64, _dtypes.int32, _dtypes.float32, _dtypes.float64)

register_op("HashTableV2", lambda op: [scalar()], stateful=True, ref_output=True)
register_op("InitializeTableV2", no_outputs, stateful=True, ref_inputs=(0,))
register_op("InitializeTableFromTextFileV2", no_outputs, stateful=True, ref_inputs=(0,))
register_op("LookupTableFindV2", lambda op: [op.inputs[1].shape], stateful=True,
            ref_inputs=(0,))
register_op("LookupTableSizeV2", lambda op: [scalar()], stateful=True, ref_inputs=(0,))


class TextFileIndex:
    """Special column indices of ``TextFileInitializer``."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


class HasherSpec:
    """How out-of-vocabulary keys are hashed into buckets; only ``FastHashSpec``
    (FarmHash Fingerprint64) exists here."""

    def __init__(self, hasher: str, key: Any = None):
        self.hasher = hasher
        self.key = key


FastHashSpec = HasherSpec("fasthash")


def _check_dtype(dt: Any, allowed: tuple, what: str) -> _dtypes.DType:
    dt = _dtypes.as_dtype(dt)
    if dt not in allowed:
        raise TypeError(f"{what} must be one of {[a.name for a in allowed]}, got {dt.name}")
    return dt


class TableInitializerBase:
    """Fills a table once; ``initialize(table)`` returns the initializer op."""

    def __init__(self, key_dtype: Any, value_dtype: Any):
        self._key_dtype = _check_dtype(key_dtype, _KEY_TYPES, "key_dtype")
        self._value_dtype = _check_dtype(value_dtype, _VALUE_TYPES, "value_dtype")

    @property
    def key_dtype(self) -> _dtypes.DType:
        """The dtype of the keys."""
        return self._key_dtype

    @property
    def value_dtype(self) -> _dtypes.DType:
        """The dtype of the values."""
        return self._value_dtype

    def initialize(self, table: "InitializableLookupTableBase") -> Operation:
        """Builds the op that fills ``table``."""
        raise TypeError(f"{type(self).__name__} does not define initialize()")

    def _check_table(self, table: "InitializableLookupTableBase") -> None:
        if (table.key_dtype, table.value_dtype) != (self._key_dtype, self._value_dtype):
            raise TypeError(f"Initializer of ({self._key_dtype.name}, {self._value_dtype.name})"
                            f" cannot fill a table of ({table.key_dtype.name}, "
                            f"{table.value_dtype.name})")


class KeyValueTensorInitializer(TableInitializerBase):
    """Fills a table from a 1-D tensor of keys and one of values."""

    def __init__(self, keys: Any, values: Any, key_dtype: Any = None, value_dtype: Any = None,
                 name: Optional[str] = None):
        with name_scope(name, "key_value_init") as scope:
            self._keys = convert_to_tensor(keys, dtype=key_dtype, name="keys")
            self._values = convert_to_tensor(values, dtype=value_dtype, name="values")
        self._scope = scope
        if self._keys.shape.ndims not in (None, 1) or self._values.shape.ndims not in (None, 1):
            raise ValueError(f"keys and values must be 1-D, got shapes {self._keys.shape} and "
                             f"{self._values.shape}")
        if not self._keys.shape.is_compatible_with(self._values.shape):
            raise ValueError(f"keys and values must have the same length, got "
                             f"{self._keys.shape} and {self._values.shape}")
        super().__init__(self._keys.dtype, self._values.dtype)

    def initialize(self, table: "InitializableLookupTableBase") -> Operation:
        """The ``InitializeTableV2`` op (added to ``TABLE_INITIALIZERS``)."""
        self._check_table(table)
        with name_scope(self._scope):
            op = make_op("InitializeTableV2", [table.resource_handle, self._keys, self._values],
                         [], {"Tkey": self._key_dtype, "Tval": self._value_dtype})
        get_default_graph().add_to_collection(GraphKeys.TABLE_INITIALIZERS, op)
        return op


class TextFileInitializer(TableInitializerBase):
    """Fills a table from a text file: one entry per line, key and value taken from
    columns split on ``delimiter`` (or the whole line / the line number)."""

    def __init__(self, filename: Any, key_dtype: Any, key_index: int, value_dtype: Any,
                 value_index: int, vocab_size: Optional[int] = None, delimiter: str = "\t",
                 name: Optional[str] = None):
        super().__init__(key_dtype, value_dtype)
        for what, idx, dt in (("key_index", key_index, self._key_dtype),
                              ("value_index", value_index, self._value_dtype)):
            if not isinstance(idx, int) or idx < TextFileIndex.WHOLE_LINE:
                raise ValueError(f"Invalid {what} {idx!r}")
            if idx == TextFileIndex.LINE_NUMBER and dt not in (_dtypes.int64, _dtypes.int32):
                raise ValueError(f"Signature mismatch: {what} is the line number, so its dtype "
                                 f"must be int64, got {dt.name}")
            if idx == TextFileIndex.WHOLE_LINE and dt is not _dtypes.string:
                raise ValueError(f"Signature mismatch: {what} is the whole line, so its dtype "
                                 f"must be string, got {dt.name}")
        if vocab_size is not None and (not isinstance(vocab_size, int) or vocab_size <= 0):
            raise ValueError(f"Invalid vocab_size {vocab_size!r}")
        if not isinstance(delimiter, str) or len(delimiter) != 1:
            raise ValueError(f"delimiter must be one character, got {delimiter!r}")
        self._filename = filename
        self._key_index, self._value_index = key_index, value_index
        self._vocab_size = vocab_size
        self._delimiter = delimiter
        self._name = name

    def initialize(self, table: "InitializableLookupTableBase") -> Operation:
        """The ``InitializeTableFromTextFileV2`` op (added to ``TABLE_INITIALIZERS``)."""
        self._check_table(table)
        with name_scope(self._name, "text_file_init"):
            fname = convert_to_tensor(self._filename, dtype=_dtypes.string, name="filename")
            op = make_op("InitializeTableFromTextFileV2", [table.resource_handle, fname], [],
                         {"key_index": self._key_index, "value_index": self._value_index,
                          "vocab_size": -1 if self._vocab_size is None else self._vocab_size,
                          "delimiter": self._delimiter, "Tkey": self._key_dtype,
                          "Tval": self._value_dtype})
        get_default_graph().add_to_collection(GraphKeys.TABLE_INITIALIZERS, op)
        return op


class LookupInterface:
    """What every table offers: ``key_dtype``, ``value_dtype``, ``lookup``, ``size``."""

    def __init__(self, key_dtype: Any, value_dtype: Any, name: str):
        self._key_dtype = _dtypes.as_dtype(key_dtype)
        self._value_dtype = _dtypes.as_dtype(value_dtype)
        self._name = name

    @property
    def key_dtype(self) -> _dtypes.DType:
        """The dtype of the keys."""
        return self._key_dtype

    @property
    def value_dtype(self) -> _dtypes.DType:
        """The dtype of the values."""
        return self._value_dtype

    @property
    def name(self) -> str:
        """The table's name."""
        return self._name


class InitializableLookupTableBase(LookupInterface):
    """A table filled once by an initializer; missing keys give ``default_value``."""

    _default_name = "table"
    _num_oov_buckets = 0

    def __init__(self, initializer: TableInitializerBase, default_value: Any,
                 shared_name: Optional[str] = None, name: Optional[str] = None):
        if not isinstance(initializer, TableInitializerBase):
            raise TypeError(f"initializer must be a table initializer, got "
                            f"{type(initializer).__name__}")
        op_name = name or self._default_name
        super().__init__(initializer.key_dtype, initializer.value_dtype, op_name)
        self._handle = make_tensor("HashTableV2", [], _dtypes.string,
                                   {"key_dtype": self._key_dtype,
                                    "value_dtype": self._value_dtype, "container": "",
                                    "shared_name": shared_name or ""}, name=op_name)
        self._name = self._handle.op.name
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype,
                                                name="default_value")
        if self._default_value.shape.ndims not in (None, 0):
            raise ValueError(f"default_value must be a scalar, got shape "
                             f"{self._default_value.shape}")
        self._init = initializer.initialize(self)

    @property
    def resource_handle(self) -> Tensor:
        """The table's handle (the ``HashTableV2`` output)."""
        return self._handle

    @property
    def init(self) -> Operation:
        """The initializer op."""
        return self._init

    initializer = init

    @property
    def default_value(self) -> Tensor:
        """What missing keys map to."""
        return self._default_value

    def size(self, name: Optional[str] = None) -> Tensor:
        """The number of entries (int64 scalar)."""
        with name_scope(name, f"{self._name}_Size"):
            return make_tensor("LookupTableSizeV2", [self._handle], _dtypes.int64, {})

    def lookup(self, keys: Any, name: Optional[str] = None) -> Any:
        """The value of each key (same shape; a SparseTensor maps its values).

        Raises:
          TypeError: keys of another dtype than the table's.
        """
        if isinstance(keys, SparseTensor):
            return SparseTensor(keys.indices, self.lookup(keys.values, name), keys.dense_shape)
        with name_scope(name, f"{self._name}_Lookup"):
            if not isinstance(keys, Tensor):
                keys = convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
            if keys.dtype is not self._key_dtype:
                raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype.name}, "
                                f"received: {keys.dtype.name}")
            return make_tensor("LookupTableFindV2", [self._handle, keys, self._default_value],
                               self._value_dtype, {"num_oov_buckets": self._num_oov_buckets,
                                                   "Tin": self._key_dtype,
                                                   "Tout": self._value_dtype})


class HashTable(InitializableLookupTableBase):
    """``tf.contrib.lookup.HashTable``: an immutable key -> value map.

    ``HashTable(KeyValueTensorInitializer(keys, values), default_value)``; run
    ``tf.tables_initializer()`` (or ``table.init``) before looking anything up.
    """

    _default_name = "hash_table"


class _IndexTable(HashTable):
    """A HashTable whose missing keys go to hash buckets after the vocabulary."""

    def __init__(self, initializer: TableInitializerBase, default_value: Any,
                 num_oov_buckets: int):
        self._num_oov_buckets = num_oov_buckets
        super().__init__(initializer, default_value)

    def size(self, name: Optional[str] = None) -> Tensor:
        """The vocabulary size plus the number of out-of-vocabulary buckets."""
        n = super().size(name)
        if not self._num_oov_buckets:
            return n
        return math_ops.add(n, array_ops.constant(self._num_oov_buckets, _dtypes.int64))


class StaticHashTable(HashTable):
    """``tf.lookup.StaticHashTable``: an immutable key -> value map filled by an initializer
    when ``tf.tables_initializer()`` runs; missing keys give ``default_value``."""

    def __init__(self, initializer: TableInitializerBase, default_value: Any,
                 name: Optional[str] = None, experimental_is_anonymous: bool = False):
        """Raises ValueError for ``experimental_is_anonymous=True`` (an eager-mode table
        without a name, which graph programs have no use for)."""
        if experimental_is_anonymous:
            raise ValueError("StaticHashTable: experimental_is_anonymous=True is not "
                             "supported; tables are named graph resources")
        super().__init__(initializer, default_value, name=name)


class StaticVocabularyTable(_IndexTable):
    """``tf.lookup.StaticVocabularyTable``: keys of the vocabulary map to their ids (the
    initializer's int64 values), any other key to ``vocab_size + fingerprint64(key) %
    num_oov_buckets`` (integer keys hashed as their decimal string), as TensorFlow does."""

    def __init__(self, initializer: TableInitializerBase, num_oov_buckets: int,
                 lookup_key_dtype: Any = None, name: Optional[str] = None,
                 experimental_is_anonymous: bool = False):
        """Raises:
          ValueError: ``num_oov_buckets`` not a positive int; an anonymous table.
          TypeError: values that are not int64, keys that are not string or int64, or a
            ``lookup_key_dtype`` that does not fit the keys.
        """
        if experimental_is_anonymous:
            raise ValueError("StaticVocabularyTable: experimental_is_anonymous=True is not "
                             "supported; tables are named graph resources")
        if isinstance(num_oov_buckets, bool) or not isinstance(num_oov_buckets, int) \
                or num_oov_buckets <= 0:
            raise ValueError(f"num_oov_buckets must be > 0, got {num_oov_buckets!r}")
        if not isinstance(initializer, TableInitializerBase):
            raise TypeError(f"initializer must be a table initializer, got "
                            f"{type(initializer).__name__}")
        if initializer.value_dtype is not _dtypes.int64:
            raise TypeError(f"Invalid value dtype, expected int64 but got "
                            f"{initializer.value_dtype.name}")
        if initializer.key_dtype not in (_dtypes.string, _dtypes.int64):
            raise TypeError(f"Invalid key dtype, expected string or int64 but got "
                            f"{initializer.key_dtype.name}")
        self._lookup_key_dtype = _dtypes.as_dtype(lookup_key_dtype or initializer.key_dtype)
        allowed = (_dtypes.string,) if initializer.key_dtype is _dtypes.string else (
            _dtypes.int32, _dtypes.int64)
        if self._lookup_key_dtype not in allowed:
            raise TypeError(f"lookup_key_dtype {self._lookup_key_dtype.name} does not fit "
                            f"keys of {initializer.key_dtype.name}")
        super().__init__(initializer, -1, num_oov_buckets)
        if name:
            self._name = name

    def lookup(self, keys: Any, name: Optional[str] = None) -> Any:
        """The id of each key; int32 keys are widened when ``lookup_key_dtype`` is int32."""
        if isinstance(keys, SparseTensor):
            return SparseTensor(keys.indices, self.lookup(keys.values, name), keys.dense_shape)
        keys = convert_to_tensor(keys, dtype=self._lookup_key_dtype, name="keys")
        if keys.dtype is not self._lookup_key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._lookup_key_dtype.name}, "
                            f"received: {keys.dtype.name}")
        if keys.dtype is _dtypes.int32:
            keys = array_ops.cast(keys, _dtypes.int64)
        return super().lookup(keys, name)


def _check_hasher(hasher_spec: Any) -> None:
    if not isinstance(hasher_spec, HasherSpec) or hasher_spec.hasher != "fasthash":
        raise ValueError(f"Only FastHashSpec is supported as hasher_spec, got {hasher_spec!r}")


def _check_oov(num_oov_buckets: Any) -> int:
    if not isinstance(num_oov_buckets, int) or num_oov_buckets < 0:
        raise ValueError(f"num_oov_buckets must be a non-negative int, got {num_oov_buckets!r}")
    return num_oov_buckets


def index_table_from_tensor(mapping: Any, num_oov_buckets: int = 0, default_value: int = -1,
                            hasher_spec: HasherSpec = FastHashSpec, dtype: Any = _dtypes.string,
                            name: Optional[str] = None) -> HashTable:
    """A table mapping each element of the 1-D ``mapping`` to its position (int64).

    Keys not in ``mapping`` get ``default_value`` or, with ``num_oov_buckets``, an
    id in ``[len(mapping), len(mapping) + num_oov_buckets)`` from their hash.
    """
    _check_hasher(hasher_spec)
    n_oov = _check_oov(num_oov_buckets)
    dtype = _check_dtype(dtype, _KEY_TYPES, "dtype")
    if mapping is None:
        raise ValueError("mapping must be specified.")
    with name_scope(name, "string_to_index"):
        keys = convert_to_tensor(mapping, dtype=dtype, name="Const")
        if keys.dtype is _dtypes.int32:
            raise TypeError("index_table_from_tensor: integer keys must be int64")
        ids = array_indexing_ops.range(0, array_ops.size(keys, out_type=_dtypes.int64))
        init = KeyValueTensorInitializer(keys, ids, name="table_init")
        return _IndexTable(init, -1 if n_oov else default_value, n_oov)


def index_table_from_file(vocabulary_file: Any = None, num_oov_buckets: int = 0,
                          vocab_size: Optional[int] = None, default_value: int = -1,
                          hasher_spec: HasherSpec = FastHashSpec,
                          key_dtype: Any = _dtypes.string, name: Optional[str] = None,
                          key_column_index: int = TextFileIndex.WHOLE_LINE,
                          value_column_index: int = TextFileIndex.LINE_NUMBER,
                          delimiter: str = "\t") -> HashTable:
    """A table mapping each line of ``vocabulary_file`` (or one of its columns) to its
    line number (int64); unknown keys as in ``index_table_from_tensor``."""
    _check_hasher(hasher_spec)
    n_oov = _check_oov(num_oov_buckets)
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("vocabulary_file must be specified and must not be empty.")
    key_dtype = _check_dtype(key_dtype, (_dtypes.string, _dtypes.int64), "key_dtype")
    with name_scope(name, "string_to_index"):
        init = TextFileInitializer(vocabulary_file, key_dtype, key_column_index, _dtypes.int64,
                                   value_column_index, vocab_size, delimiter,
                                   name="table_init")
        return _IndexTable(init, -1 if n_oov else default_value, n_oov)


def index_to_string_table_from_tensor(mapping: Any, default_value: Any = "UNK",
                                      name: Optional[str] = None) -> HashTable:
    """A table mapping int64 positions to the elements of the 1-D string ``mapping``."""
    if mapping is None:
        raise ValueError("mapping must be specified.")
    with name_scope(name, "index_to_string"):
        values = convert_to_tensor(mapping, dtype=_dtypes.string, name="Const")
        ids = array_indexing_ops.range(0, array_ops.size(values, out_type=_dtypes.int64))
        init = KeyValueTensorInitializer(ids, values, name="table_init")
        return HashTable(init, default_value)


def index_to_string_table_from_file(vocabulary_file: Any, vocab_size: Optional[int] = None,
                                    default_value: Any = "UNK", name: Optional[str] = None,
                                    key_column_index: int = TextFileIndex.LINE_NUMBER,
                                    value_column_index: int = TextFileIndex.WHOLE_LINE,
                                    delimiter: str = "\t") -> HashTable:
    """A table mapping int64 line numbers to the lines (or a column) of the file."""
    with name_scope(name, "index_to_string"):
        init = TextFileInitializer(vocabulary_file, _dtypes.int64, key_column_index,
                                   _dtypes.string, value_column_index, vocab_size, delimiter,
                                   name="table_init")
        return HashTable(init, default_value)


def tables_initializer(name: str = "init_all_tables") -> Operation:
    """One op running every table initializer of the default graph."""
    inits: List[Operation] = get_default_graph().get_collection(GraphKeys.TABLE_INITIALIZERS)
    if inits:
        return control_flow_ops.group(*inits, name=name)
    return control_flow_ops.no_op(name=name)


initialize_all_tables = tables_initializer

__all__ = ["TextFileIndex", "HasherSpec", "FastHashSpec", "TableInitializerBase",
           "KeyValueTensorInitializer", "TextFileInitializer", "LookupInterface",
           "InitializableLookupTableBase", "HashTable", "index_table_from_tensor",
           "index_table_from_file", "index_to_string_table_from_tensor",
           "index_to_string_table_from_file", "tables_initializer", "initialize_all_tables"]
