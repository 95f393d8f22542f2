"""``tf.keras.datasets.fashion_mnist``: ``load_data`` from the file in the Keras cache."""

from tensorfleet.keras.datasets import load_fashion_mnist as load_data

__all__ = ["load_data"]
