"""``tf.distribute.experimental``: the multi-worker strategies of TensorFlow 1.x."""

from tensorfleet.collectives.strategy import (CollectiveAllReduceStrategy,
    CollectiveCommunication, MultiWorkerMirroredStrategy)

__all__ = ["CollectiveAllReduceStrategy", "CollectiveCommunication",
           "MultiWorkerMirroredStrategy"]
