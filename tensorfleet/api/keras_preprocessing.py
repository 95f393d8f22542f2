"""``tf.keras.preprocessing``: image, sequence and text preprocessing."""

from tensorfleet.api import keras_preprocessing_image as image
from tensorfleet.api import keras_preprocessing_sequence as sequence
from tensorfleet.api import keras_preprocessing_text as text

__all__ = ["image", "sequence", "text"]
