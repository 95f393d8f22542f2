"""``tf.queue``: the queues of ``tf.*`` under their later namespace."""

from tensorfleet.ops.data_flow_ops import (FIFOQueue, PaddingFIFOQueue, QueueBase,
    RandomShuffleQueue)

__all__ = ["FIFOQueue", "PaddingFIFOQueue", "QueueBase", "RandomShuffleQueue"]
