"""``tf.data``: declarative input pipelines (``Dataset``) and their iterators."""

from tensorfleet.data.dataset_ops import (  # noqa: F401
    Dataset, FixedLengthRecordDataset, TextLineDataset, TFRecordDataset)
from tensorfleet.data.cardinality import (  # noqa: F401
    AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY)
from tensorfleet.data.iterator_ops import (  # noqa: F401
    Iterator, get_output_classes, get_output_shapes, get_output_types, make_initializable_iterator,
    make_one_shot_iterator)
from tensorfleet.data import experimental  # noqa: F401,E402  (tf.data.experimental)
from tensorfleet.framework.type_spec import DatasetSpec  # noqa: F401,E402
from tensorfleet.data.options import Options, ThreadingOptions  # noqa: F401,E402
from tensorfleet.data.numpy_iterator import NumpyIterator  # noqa: F401,E402

__all__ = ["AUTOTUNE", "Dataset", "FixedLengthRecordDataset", "INFINITE_CARDINALITY",
           "UNKNOWN_CARDINALITY", "TextLineDataset", "TFRecordDataset", "Iterator",
           "make_one_shot_iterator", "make_initializable_iterator", "get_output_types",
           "get_output_shapes", "get_output_classes",
           "DatasetSpec",
           "Options", "ThreadingOptions", "NumpyIterator"]
