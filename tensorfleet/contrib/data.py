"""``tf.contrib.data``: the TF 1.4-1.12 home of the data set classes and the fused
transformations that later moved to ``tf.data.experimental``."""

from tensorfleet.data.dataset_ops import Dataset, TextLineDataset, TFRecordDataset  # noqa: F401
from tensorfleet.data.experimental import (  # noqa: F401
    AUTOTUNE, batch_and_drop_remainder, map_and_batch, padded_batch_and_drop_remainder,
    parallel_interleave, shuffle_and_repeat, unbatch)

__all__ = ["Dataset", "TextLineDataset", "TFRecordDataset", "AUTOTUNE",
           "batch_and_drop_remainder", "map_and_batch", "padded_batch_and_drop_remainder",
           "parallel_interleave", "shuffle_and_repeat", "unbatch"]
