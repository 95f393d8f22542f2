"""``tf.keras.layers.experimental``: ``EinsumDense``, ``RandomFourierFeatures``, the
dynamic-vocabulary layers and the preprocessing layers (``experimental.preprocessing``)."""

from tensorfleet.keras.layers.dynamic_embedding import DynamicEmbedding, DynamicLookup
from tensorfleet.keras.layers.einsum_dense import EinsumDense
from tensorfleet.keras.layers.experimental import preprocessing
from tensorfleet.keras.layers.kernel_approximation import RandomFourierFeatures

__all__ = ["DynamicEmbedding", "DynamicLookup", "EinsumDense", "RandomFourierFeatures",
           "preprocessing"]
