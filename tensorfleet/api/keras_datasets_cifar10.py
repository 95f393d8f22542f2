"""``tf.keras.datasets.cifar10``: ``load_data`` from the unpacked archive in the Keras cache."""

from tensorfleet.keras.cifar_datasets import load_cifar10 as load_data

__all__ = ["load_data"]
