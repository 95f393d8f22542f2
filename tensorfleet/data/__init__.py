"""``tf.data``: declarative input pipelines (``Dataset``) and their iterators."""

from tensorfleet.data.dataset_ops import Dataset, TextLineDataset, TFRecordDataset  # noqa: F401
from tensorfleet.data.iterator_ops import (  # noqa: F401
    Iterator, get_output_shapes, get_output_types, make_initializable_iterator,
    make_one_shot_iterator)
from tensorfleet.data import experimental  # noqa: F401,E402  (tf.data.experimental)

__all__ = ["Dataset", "TextLineDataset", "TFRecordDataset", "Iterator",
           "make_one_shot_iterator", "make_initializable_iterator", "get_output_types",
           "get_output_shapes"]
