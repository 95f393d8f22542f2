"""``tf.io``: file, record and parsing functions under the names TF 1.13+ gives them."""

from tensorfleet import io_gfile as gfile  # noqa: F401
from tensorfleet.io_tfrecord import (  # noqa: F401
    TFRecordCompressionType, TFRecordOptions, TFRecordWriter, tf_record_iterator)
from tensorfleet.ops.parsing_ops import (  # noqa: F401
    FixedLenFeature, SparseFeature, VarLenFeature, parse_example, parse_single_example)
from tensorfleet.ops.string_ops import decode_csv, decode_raw, read_file  # noqa: F401
from tensorfleet.image import (  # noqa: F401
    decode_image, decode_jpeg, decode_png, encode_jpeg, encode_png)
