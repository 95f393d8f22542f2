"""``tf.data.experimental`` (and ``tf.contrib.data``): the fused transformations of TF
1.x input pipelines, each a function of a ``Dataset`` for ``dataset.apply(...)``.

tensorfleet's pipelines already run map and batch in one iterator stage, so the fused
forms are the plain transformations in sequence, with the same elements in the same
order. ``AUTOTUNE`` is accepted wherever a parallelism or buffer size is.
"""

from __future__ import annotations

from typing import Any, Callable, Optional as _Maybe

from tensorfleet.data.dataset_ops import Dataset

from tensorfleet.data.cardinality import (AUTOTUNE, INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY, cardinality)
from tensorfleet.data.grouping import bucket_by_sequence_length, group_by_window
from tensorfleet.data.counter import Counter, enumerate_dataset
from tensorfleet.data.selection import take_while, unique
from tensorfleet.data.single_element import get_single_element
from tensorfleet.data.example_parsing import make_batched_features_dataset, parse_example_dataset
from tensorfleet.data.csv_dataset import CsvDataset, make_csv_dataset
from tensorfleet.data.sampling import choose_from_datasets, sample_from_datasets
from tensorfleet.data.from_list import from_list
from tensorfleet.data.device_placement import copy_to_device, prefetch_to_device
from tensorfleet.data.random_dataset import RandomDataset
from tensorfleet.data.sql_dataset import SqlDataset
from tensorfleet.data.stateful_reduction import Reducer, group_by_reducer, scan
from tensorfleet.data.cardinality_checks import assert_cardinality, pad_to_cardinality
from tensorfleet.data.optional_ops import Optional, get_next_as_optional
from tensorfleet.data.error_tolerance import ignore_errors
from tensorfleet.data.debug_mode import enable_debug_mode
from tensorfleet.data.rejection_resampling import rejection_resample
from tensorfleet.data.snapshot import snapshot
from tensorfleet.data.iterator_saveable import make_saveable_from_iterator
from tensorfleet.data.tfrecord_writer import TFRecordWriter
from tensorfleet.data.table_initialization import (DatasetInitializer,
    index_table_from_dataset, table_from_dataset)
from tensorfleet.data.options import (AutoShardPolicy, AutotuneAlgorithm, AutotuneOptions,
    DistributeOptions, ExternalStatePolicy, OptimizationOptions, SHARD_HINT, ServiceOptions,
    ThreadingOptions)
from tensorfleet.framework.type_spec import (DatasetSpec as DatasetStructure,
    OptionalSpec as OptionalStructure, TypeSpec as Structure,
    dataset_structure as get_structure)
from tensorfleet.data.structures import (RaggedTensorStructure, SparseTensorStructure,
    TensorArrayStructure, TensorStructure)

Transformation = Callable[[Dataset], Dataset]


def _check_dataset(ds: Any, what: str) -> Dataset:
    if not isinstance(ds, Dataset):
        raise TypeError(f"{what} is a transformation for Dataset.apply; it was applied to "
                        f"{type(ds).__name__}")
    return ds


def _parallelism(value: Any, what: str) -> None:
    if value is None or value == AUTOTUNE:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{what} must be a positive integer or AUTOTUNE, got {value!r}")


def map_and_batch(map_func: Callable[..., Any], batch_size: Any,
                  num_parallel_batches: _Maybe[int] = None, drop_remainder: bool = False,
                  num_parallel_calls: _Maybe[int] = None) -> Transformation:
    """``map(map_func)`` then ``batch(batch_size, drop_remainder)``.

    Raises:
      ValueError: both ``num_parallel_batches`` and ``num_parallel_calls`` given, or one
        that is not a positive integer (or AUTOTUNE).
    """
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("map_and_batch: give num_parallel_batches or num_parallel_calls, "
                         "not both")
    _parallelism(num_parallel_batches, "num_parallel_batches")
    _parallelism(num_parallel_calls, "num_parallel_calls")

    def apply(ds: Dataset) -> Dataset:
        return _check_dataset(ds, "map_and_batch").map(map_func).batch(
            batch_size, drop_remainder=drop_remainder)
    return apply


def map_and_batch_with_legacy_function(map_func: Callable[..., Any], batch_size: Any,
                                       num_parallel_batches: _Maybe[int] = None,
                                       drop_remainder: bool = False,
                                       num_parallel_calls: _Maybe[int] = None
                                       ) -> Transformation:
    """``map_and_batch``: TensorFlow's "legacy function" tracing mode has one form here,
    the one every map function is traced with."""
    return map_and_batch(map_func, batch_size, num_parallel_batches, drop_remainder,
                         num_parallel_calls)


def parallel_interleave(map_func: Callable[[Any], Dataset], cycle_length: Any,
                        block_length: Any = 1, sloppy: bool = False,
                        buffer_output_elements: _Maybe[int] = None,
                        prefetch_input_elements: _Maybe[int] = None) -> Transformation:
    """``interleave(map_func, cycle_length, block_length)`` over a data set of file names.

    The order is always the deterministic one, which ``sloppy=True`` also permits.
    """
    _parallelism(buffer_output_elements, "buffer_output_elements")
    if prefetch_input_elements is not None and (not isinstance(prefetch_input_elements, int)
                                                or prefetch_input_elements < 0):
        raise ValueError(f"prefetch_input_elements must be a non-negative integer, got "
                         f"{prefetch_input_elements!r}")

    def apply(ds: Dataset) -> Dataset:
        return _check_dataset(ds, "parallel_interleave").interleave(
            map_func, cycle_length=cycle_length, block_length=block_length)
    return apply


def shuffle_and_repeat(buffer_size: Any, count: Any = None,
                       seed: _Maybe[int] = None) -> Transformation:
    """``shuffle(buffer_size, seed)`` then ``repeat(count)``: every repetition is
    shuffled anew."""
    def apply(ds: Dataset) -> Dataset:
        return _check_dataset(ds, "shuffle_and_repeat").shuffle(buffer_size, seed=seed) \
            .repeat(count)
    return apply


def batch_and_drop_remainder(batch_size: Any) -> Transformation:
    """``batch(batch_size, drop_remainder=True)``: only full batches, static batch size."""
    def apply(ds: Dataset) -> Dataset:
        return _check_dataset(ds, "batch_and_drop_remainder").batch(batch_size,
                                                                     drop_remainder=True)
    return apply


def padded_batch_and_drop_remainder(batch_size: Any, padded_shapes: Any,
                                    padding_values: Any = None) -> Transformation:
    """``padded_batch(..., drop_remainder=True)``."""
    def apply(ds: Dataset) -> Dataset:
        return _check_dataset(ds, "padded_batch_and_drop_remainder").padded_batch(
            batch_size, padded_shapes, padding_values, drop_remainder=True)
    return apply


def unbatch() -> Transformation:
    """``Dataset.unbatch()`` as a transformation."""
    def apply(ds: Dataset) -> Dataset:
        return _check_dataset(ds, "unbatch").unbatch()
    return apply


__all__ = ["make_batched_features_dataset", "parse_example_dataset", "AUTOTUNE", "batch_and_drop_remainder", "bucket_by_sequence_length", "cardinality",
           "choose_from_datasets", "Counter", "CsvDataset", "enumerate_dataset",
           "get_single_element", "group_by_window", "INFINITE_CARDINALITY", "make_csv_dataset",
           "map_and_batch", "padded_batch_and_drop_remainder", "parallel_interleave",
           "sample_from_datasets", "shuffle_and_repeat", "take_while", "unbatch", "unique",
           "UNKNOWN_CARDINALITY",
           "DatasetStructure", "OptionalStructure", "SparseTensorStructure",
           "TensorArrayStructure", "TensorStructure", "Structure", "get_structure",
           "AutoShardPolicy", "AutotuneAlgorithm", "AutotuneOptions", "DistributeOptions",
           "ExternalStatePolicy", "OptimizationOptions", "SHARD_HINT", "ServiceOptions",
           "ThreadingOptions",
           "from_list", "copy_to_device", "prefetch_to_device", "RandomDataset",
           "SqlDataset", "DatasetInitializer", "index_table_from_dataset",
           "table_from_dataset",
           "map_and_batch_with_legacy_function",
           "TFRecordWriter",
           "Optional", "get_next_as_optional", "ignore_errors",
           "enable_debug_mode", "RaggedTensorStructure", "rejection_resample",
           "snapshot", "make_saveable_from_iterator",
           "Reducer", "assert_cardinality", "group_by_reducer", "pad_to_cardinality", "scan"]
