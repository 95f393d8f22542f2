"""``tf.keras.optimizers.legacy``: the optimizers under their legacy namespace (the
graph-mode optimizers here are the legacy ones)."""

from tensorfleet.keras.optimizer_classes import SGD, Adagrad, Adam, RMSprop
from tensorfleet.keras.optimizer_variants import Adadelta, Adamax, Ftrl, Nadam
from tensorfleet.training.optimizer import Optimizer

__all__ = ["SGD", "Adagrad", "Adam", "RMSprop", "Adadelta", "Adamax", "Ftrl", "Nadam",
           "Optimizer"]
