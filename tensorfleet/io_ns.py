"""``tf.io``: file, record and parsing functions under the names TF 1.13+ gives them."""

from tensorfleet import io_gfile as gfile  # noqa: F401
from tensorfleet.io_tfrecord import (  # noqa: F401
    TFRecordCompressionType, TFRecordOptions, TFRecordWriter, tf_record_iterator)
from tensorfleet.ops.parsing_ops import (  # noqa: F401
    FixedLenFeature, FixedLenSequenceFeature, SparseFeature, VarLenFeature, parse_example,
    parse_single_example)
from tensorfleet.ops.parsing_sequence_ops import parse_single_sequence_example  # noqa: F401
from tensorfleet.ops.string_manip_ops import decode_base64, encode_base64, write_file  # noqa: F401
from tensorfleet.ops.data_flow_ops import (  # noqa: F401
    FIFOQueue, PaddingFIFOQueue, QueueBase, RandomShuffleQueue)
from tensorfleet.ops.io_readers import match_filenames_once  # noqa: F401
from tensorfleet.graph_util import write_graph  # noqa: F401
from tensorfleet.ops.io_readers import matching_files  # noqa: F401
from tensorfleet.ops.string_ops import decode_csv, decode_raw, read_file  # noqa: F401
from tensorfleet.image import (  # noqa: F401
    decode_image, decode_jpeg, decode_png, encode_jpeg, encode_png)
