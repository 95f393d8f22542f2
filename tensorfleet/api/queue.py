"""``tf.queue``: the queues of ``tf.*`` under their later namespace."""

from tensorfleet.ops.data_flow_ops import (FIFOQueue, PaddingFIFOQueue, QueueBase,
    RandomShuffleQueue)
from tensorfleet.ops.priority_queue_ops import PriorityQueue

__all__ = ["FIFOQueue", "PaddingFIFOQueue", "QueueBase", "RandomShuffleQueue",
           "PriorityQueue"]
