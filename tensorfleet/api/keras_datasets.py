"""``tf.keras.datasets``: the Keras data sets, read from the files Keras caches."""

from tensorfleet.api import keras_datasets_boston_housing as boston_housing
from tensorfleet.api import keras_datasets_fashion_mnist as fashion_mnist
from tensorfleet.api import keras_datasets_mnist as mnist

__all__ = ["boston_housing", "fashion_mnist", "mnist"]
