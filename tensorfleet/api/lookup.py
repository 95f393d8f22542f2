"""``tf.lookup``: immutable lookup tables and their initializers."""

from tensorfleet.ops.lookup_ops import (KeyValueTensorInitializer, StaticHashTable,
    StaticVocabularyTable, TextFileIndex, TextFileInitializer)
from tensorfleet.api import lookup_experimental as experimental

__all__ = ["KeyValueTensorInitializer", "StaticHashTable", "StaticVocabularyTable",
           "TextFileIndex", "TextFileInitializer",
           "experimental"]
