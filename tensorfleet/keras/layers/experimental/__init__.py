"""``tf.keras.layers.experimental``: ``EinsumDense``, ``RandomFourierFeatures`` and the
preprocessing layers (``experimental.preprocessing``)."""

from tensorfleet.keras.layers.einsum_dense import EinsumDense
from tensorfleet.keras.layers.experimental import preprocessing
from tensorfleet.keras.layers.kernel_approximation import RandomFourierFeatures

__all__ = ["EinsumDense", "RandomFourierFeatures", "preprocessing"]
