"""``tf.keras.callbacks``: hooks into ``fit`` and ``evaluate``.

``fit`` always adds a ``History`` (returned to the caller) and, when ``verbose`` is set,
a ``ProgbarLogger``. Epoch logs hold the sample-weighted means of the loss and metrics
over the epoch (stateful metrics: their value at the epoch's end), and ``val_``-prefixed
ones when validating.
"""

from tensorfleet.keras import callbacks_experimental as experimental
from tensorfleet.keras.fit_callbacks import (Callback, CallbackList, EarlyStopping, History,
                                             LambdaCallback, LearningRateScheduler,
                                             ModelCheckpoint, ProgbarLogger, TensorBoard,
                                             TerminateOnNaN)
from tensorfleet.keras.monitoring_callbacks import (BaseLogger, CSVLogger, ReduceLROnPlateau,
                                                    RemoteMonitor,
                                                    SidecarEvaluatorModelExport)

__all__ = ["Callback", "CallbackList", "History", "ProgbarLogger", "EarlyStopping",
           "ModelCheckpoint", "TensorBoard", "LambdaCallback", "LearningRateScheduler",
           "TerminateOnNaN", "BaseLogger", "CSVLogger", "ReduceLROnPlateau", "RemoteMonitor",
           "SidecarEvaluatorModelExport", "experimental"]
