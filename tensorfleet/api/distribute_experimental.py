"""``tf.distribute.experimental``: the multi-worker strategies of TensorFlow 1.x."""

from tensorfleet.collectives.communication_options import (CollectiveHints,
    CommunicationImplementation, CommunicationOptions)
from tensorfleet.training.parameter_server_strategy import (CentralStorageStrategy,
    ParameterServerStrategy)
from tensorfleet.collectives.strategy import (CollectiveAllReduceStrategy,
    CollectiveCommunication, MultiWorkerMirroredStrategy)

__all__ = ["CollectiveAllReduceStrategy", "CollectiveCommunication",
           "MultiWorkerMirroredStrategy", "CollectiveHints", "CommunicationImplementation",
           "CommunicationOptions", "CentralStorageStrategy", "ParameterServerStrategy"]
