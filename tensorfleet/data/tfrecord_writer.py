"""``tf.data.experimental.TFRecordWriter``: writes a data set of strings to a TFRecord file
when the op ``write`` returns runs."""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.data.dataset_ops import Dataset
from tensorfleet.data.single_element import get_single_element
from tensorfleet.framework.graph import Operation, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.ops.op_util import make_op, no_outputs
from tensorfleet.platform.tf_record import compression_kind

register_op("WriteTFRecords", no_outputs, stateful=True)

# Every element in one batch: the data set is read in full when the op runs.
_ALL = 2 ** 31 - 1


class TFRecordWriter:
    """Args:
      filename: the file to write (a string or string scalar tensor).
      compression_type: None or "" (no compression), "ZLIB" or "GZIP".

    Raises:
      ValueError: an unknown compression type.
    """

    def __init__(self, filename: Any, compression_type: Optional[str] = None):
        compression_kind(compression_type)
        self._filename = filename
        self._compression = compression_type or ""

    def write(self, dataset: Dataset) -> Operation:
        """The op writing every element of ``dataset`` (string scalars) as one record each,
        in order, replacing the file.

        Raises:
          TypeError: elements that are not string scalars.
        """
        if not isinstance(dataset, Dataset):
            raise TypeError(f"TFRecordWriter.write needs a Dataset, got "
                            f"{type(dataset).__name__}")
        if dataset.output_types is not _dtypes.string or \
                dataset.output_shapes.ndims not in (None, 0):
            raise TypeError(f"TFRecordWriter.write needs a data set of string scalars, got "
                            f"{dataset.output_types} {dataset.output_shapes}")
        records = get_single_element(dataset.batch(_ALL))
        name = convert_to_tensor(self._filename, dtype=_dtypes.string, name="filename")
        return make_op("WriteTFRecords", [name, records], [],
                       {"compression_type": self._compression}, name="WriteTFRecords")


__all__ = ["TFRecordWriter"]
