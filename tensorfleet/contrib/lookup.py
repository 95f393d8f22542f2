"""``tf.contrib.lookup``: lookup tables (see ``tensorfleet.ops.lookup_ops``)."""

from tensorfleet.ops.lookup_ops import (  # noqa: F401
    FastHashSpec, HashTable, HasherSpec, InitializableLookupTableBase, KeyValueTensorInitializer,
    LookupInterface, TableInitializerBase, TextFileIndex, TextFileInitializer,
    index_table_from_file, index_table_from_tensor, index_to_string_table_from_file,
    index_to_string_table_from_tensor)

__all__ = ["FastHashSpec", "HashTable", "HasherSpec", "InitializableLookupTableBase",
           "KeyValueTensorInitializer", "LookupInterface", "TableInitializerBase",
           "TextFileIndex", "TextFileInitializer", "index_table_from_file",
           "index_table_from_tensor", "index_to_string_table_from_file",
           "index_to_string_table_from_tensor"]
