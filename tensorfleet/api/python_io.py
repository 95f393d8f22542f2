"""``tf.python_io``: TFRecord files, written and read record by record."""

from tensorfleet.platform.tf_record import (TFRecordCompressionType, TFRecordOptions,
    TFRecordWriter, tf_record_iterator)

__all__ = ["TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter", "tf_record_iterator"]
