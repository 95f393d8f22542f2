"""``tf.keras.applications.vgg19``: VGG19, its input preprocessing and
prediction decoding."""

from tensorfleet.keras.applications.vgg import (VGG19, decode_predictions, preprocess_input)

__all__ = ["VGG19", "decode_predictions", "preprocess_input"]
