"""``tf.keras.layers.experimental.preprocessing``: the preprocessing layers under their
earlier names."""

from tensorfleet.keras.layers.preprocessing import (CategoryEncoding, CenterCrop,
                                                    Discretization, Hashing, Normalization,
                                                    PreprocessingLayer, Rescaling, Resizing)

__all__ = ["CategoryEncoding", "CenterCrop", "Discretization", "Hashing", "Normalization",
           "PreprocessingLayer", "Rescaling", "Resizing"]
