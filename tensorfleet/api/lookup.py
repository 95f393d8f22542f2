"""``tf.lookup``: immutable lookup tables and their initializers."""

from tensorfleet.ops.lookup_ops import (KeyValueTensorInitializer, StaticHashTable,
    StaticVocabularyTable, TextFileIndex, TextFileInitializer)

__all__ = ["KeyValueTensorInitializer", "StaticHashTable", "StaticVocabularyTable",
           "TextFileIndex", "TextFileInitializer"]
