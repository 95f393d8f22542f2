"""``tf.io``: file, record and parsing functions under the names TF 1.13+ gives them."""

from tensorfleet.framework.graph_util import write_graph
from tensorfleet.ops.data_flow_ops import (FIFOQueue, PaddingFIFOQueue, QueueBase,
    RandomShuffleQueue)
from tensorfleet.ops.priority_queue_ops import PriorityQueue
from tensorfleet.ops.image_ops import (decode_bmp, decode_gif, decode_image, decode_jpeg,
    decode_png, encode_jpeg, encode_png, extract_jpeg_shape)
from tensorfleet.ops.image_jpeg_ops import decode_and_crop_jpeg, decode_webp, is_jpeg
from tensorfleet.ops.proto_ops import decode_proto, encode_proto
from tensorfleet.ops.io_readers import (match_filenames_once, matching_files)
from tensorfleet.ops.parsing_ops import (FixedLenFeature, FixedLenSequenceFeature,
    SparseFeature, VarLenFeature, parse_example, parse_single_example)
from tensorfleet.ops.parsing_sequence_ops import parse_single_sequence_example
from tensorfleet.ops.parsing_sequence_batch_ops import parse_sequence_example
from tensorfleet.ops.parsing_ragged_feature import RaggedFeature
from tensorfleet.ops.string_manip_ops import (decode_base64, encode_base64, write_file)
from tensorfleet.ops.string_ops import (decode_csv, decode_raw, read_file)
from tensorfleet.platform.tf_record import (TFRecordCompressionType, TFRecordOptions,
    TFRecordWriter, tf_record_iterator)

from tensorfleet.api import io_gfile as gfile

from tensorfleet.ops.tensor_serialization_ops import (parse_tensor, serialize_tensor)

from tensorfleet.ops.decode_compressed_ops import decode_compressed
from tensorfleet.ops.json_example_ops import decode_json_example
from tensorfleet.ops.sparse_serialization_ops import (deserialize_many_sparse,
    serialize_many_sparse, serialize_sparse)

__all__ = ["decode_base64", "decode_compressed", "decode_csv", "decode_image", "decode_jpeg",
           "decode_png", "decode_raw", "encode_base64", "encode_jpeg", "encode_png",
           "FIFOQueue", "FixedLenFeature", "FixedLenSequenceFeature", "gfile",
           "match_filenames_once", "matching_files", "PaddingFIFOQueue", "parse_example",
           "parse_single_example", "parse_single_sequence_example", "parse_tensor",
           "QueueBase", "RandomShuffleQueue", "read_file", "serialize_tensor", "SparseFeature",
           "tf_record_iterator", "TFRecordCompressionType", "TFRecordOptions",
           "TFRecordWriter", "VarLenFeature", "write_file", "write_graph",
           "decode_json_example", "deserialize_many_sparse", "serialize_many_sparse",
           "serialize_sparse",
           "PriorityQueue",
           "decode_and_crop_jpeg", "decode_bmp", "decode_gif", "decode_webp",
           "extract_jpeg_shape", "is_jpeg", "decode_proto", "encode_proto",
           "parse_sequence_example", "RaggedFeature"]
