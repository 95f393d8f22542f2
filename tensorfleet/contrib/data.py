"""``tf.contrib.data``: the TF 1.4-1.12 home of the data set classes and the fused
transformations that later moved to ``tf.data.experimental``."""

from tensorfleet.data.dataset_ops import (  # noqa: F401
    Dataset, FixedLengthRecordDataset, TextLineDataset, TFRecordDataset)
from tensorfleet.data.experimental import (  # noqa: F401
    AUTOTUNE, Counter, CsvDataset, batch_and_drop_remainder, bucket_by_sequence_length,
    choose_from_datasets, enumerate_dataset, get_single_element, group_by_window,
    make_csv_dataset, map_and_batch, padded_batch_and_drop_remainder, parallel_interleave,
    sample_from_datasets, shuffle_and_repeat, unbatch, unique)

__all__ = ["AUTOTUNE", "Counter", "CsvDataset", "Dataset", "FixedLengthRecordDataset",
           "TextLineDataset", "TFRecordDataset", "batch_and_drop_remainder",
           "bucket_by_sequence_length", "choose_from_datasets", "enumerate_dataset",
           "get_single_element", "group_by_window", "make_csv_dataset", "map_and_batch",
           "padded_batch_and_drop_remainder", "parallel_interleave", "sample_from_datasets",
           "shuffle_and_repeat", "unbatch", "unique"]
