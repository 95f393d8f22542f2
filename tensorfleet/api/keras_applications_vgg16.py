"""``tf.keras.applications.vgg16``: VGG16, its input preprocessing and
prediction decoding."""

from tensorfleet.keras.applications.vgg import (VGG16, decode_predictions, preprocess_input)

__all__ = ["VGG16", "decode_predictions", "preprocess_input"]
