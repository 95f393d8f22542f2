"""``tf.keras.datasets.boston_housing``: ``load_data`` from the file in the Keras cache."""

from tensorfleet.keras.datasets import load_boston_housing as load_data

__all__ = ["load_data"]
