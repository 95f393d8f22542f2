"""``tf.summary``: scalar and histogram summaries and the event-file writer."""

from tensorfleet.ops.summary_ops import (audio, histogram, image, merge, merge_all,
    proto_class, scalar, text)
from tensorfleet.training.summary_io import (FileWriter, FileWriterCache)
from tensorfleet.ops.tensor_summary_ops import (all_v2_summary_ops, get_summary_description,
    tensor_summary)

__all__ = ["FileWriter", "FileWriterCache", "audio", "histogram", "image", "merge",
           "merge_all", "proto_class", "scalar", "text",
           "all_v2_summary_ops", "get_summary_description", "tensor_summary"]


def __getattr__(name: str):
    # The protobuf classes come from tensorboardX, which is slow to import; load it
    # only when a program asks for tf.summary.Summary and friends.
    from tensorfleet.ops import summary_ops
    return getattr(summary_ops, name)
