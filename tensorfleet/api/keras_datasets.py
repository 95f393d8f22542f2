"""``tf.keras.datasets``: the Keras data sets, read from the files Keras caches."""

from tensorfleet.api import keras_datasets_boston_housing as boston_housing
from tensorfleet.api import keras_datasets_cifar10 as cifar10
from tensorfleet.api import keras_datasets_cifar100 as cifar100
from tensorfleet.api import keras_datasets_fashion_mnist as fashion_mnist
from tensorfleet.api import keras_datasets_imdb as imdb
from tensorfleet.api import keras_datasets_mnist as mnist
from tensorfleet.api import keras_datasets_reuters as reuters

__all__ = ["boston_housing", "cifar10", "cifar100", "fashion_mnist", "imdb", "mnist",
           "reuters"]
