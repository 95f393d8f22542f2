"""Lookup tables filled from a data set: ``tf.data.experimental.DatasetInitializer``,
``table_from_dataset`` and ``index_table_from_dataset``."""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.data.counter import enumerate_dataset
from tensorfleet.data.dataset_ops import Dataset
from tensorfleet.data.single_element import get_single_element
from tensorfleet.ops.lookup_ops import (FastHashSpec, KeyValueTensorInitializer,
    StaticHashTable, StaticVocabularyTable)

# Every element in one batch: the whole data set read when the initializer runs.
_ALL = 2 ** 31 - 1


class DatasetInitializer(KeyValueTensorInitializer):
    """Fills a table from a data set of ``(key, value)`` scalar pairs, read in full each
    time the initializer runs.

    Raises:
      ValueError: elements that are not pairs of scalars.
    """

    def __init__(self, dataset: Dataset):
        if not isinstance(dataset, Dataset):
            raise TypeError(f"DatasetInitializer needs a Dataset, got {type(dataset).__name__}")
        shapes = dataset.output_shapes
        if not isinstance(shapes, tuple) or len(shapes) != 2 or \
                any(s.ndims not in (None, 0) for s in shapes):
            raise ValueError(f"DatasetInitializer: elements must be (key, value) scalar pairs, "
                             f"got shapes {shapes}")
        keys, values = get_single_element(dataset.batch(_ALL))
        super().__init__(keys, values)


def _check_hasher(hasher_spec: Any) -> None:
    if hasher_spec is not FastHashSpec:
        raise ValueError("only FastHashSpec is supported for out-of-vocabulary buckets")


def table_from_dataset(dataset: Optional[Dataset] = None, num_oov_buckets: int = 0,
                       vocab_size: Optional[int] = None, default_value: Any = None,
                       hasher_spec: Any = FastHashSpec, key_dtype: Any = _dtypes.string,
                       name: Optional[str] = None) -> Any:
    """A table of the ``(key, value)`` pairs of ``dataset`` (the first ``vocab_size`` of
    them when given): missing keys give ``default_value``, or, with ``num_oov_buckets``,
    one of that many buckets after the vocabulary (then the values must be int64 ids).

    Raises:
      ValueError: no data set; both ``num_oov_buckets`` and ``default_value``.
    """
    if dataset is None:
        raise ValueError("table_from_dataset needs a dataset")
    _check_hasher(hasher_spec)
    if vocab_size is not None:
        dataset = dataset.take(vocab_size)
    init = DatasetInitializer(dataset)
    if init.key_dtype is not _dtypes.as_dtype(key_dtype):
        raise TypeError(f"table_from_dataset: the keys are {init.key_dtype.name}, key_dtype "
                        f"is {_dtypes.as_dtype(key_dtype).name}")
    if num_oov_buckets:
        if default_value is not None:
            raise ValueError("table_from_dataset: give num_oov_buckets or default_value, "
                             "not both")
        return StaticVocabularyTable(init, num_oov_buckets, name=name)
    if default_value is None:
        raise ValueError("table_from_dataset needs a default_value when num_oov_buckets is 0")
    return StaticHashTable(init, default_value, name=name)


def index_table_from_dataset(dataset: Optional[Dataset] = None, num_oov_buckets: int = 0,
                             vocab_size: Optional[int] = None, default_value: Any = -1,
                             hasher_spec: Any = FastHashSpec,
                             key_dtype: Any = _dtypes.string,
                             name: Optional[str] = None) -> Any:
    """A table mapping each key of ``dataset`` (a data set of scalar keys) to its position
    (int64); other keys give ``default_value`` or, with ``num_oov_buckets``, a bucket."""
    if dataset is None:
        raise ValueError("index_table_from_dataset needs a dataset")
    pairs = dataset.apply(enumerate_dataset()).map(lambda i, k: (k, i))
    return table_from_dataset(pairs, num_oov_buckets, vocab_size,
                              None if num_oov_buckets else default_value, hasher_spec,
                              key_dtype, name)


__all__ = ["DatasetInitializer", "table_from_dataset", "index_table_from_dataset"]
