"""``tf.keras.applications.inception_v3``: Inception-v3, its input preprocessing and
prediction decoding."""

from tensorfleet.keras.applications.inceptionv3 import (InceptionV3, decode_predictions,
    preprocess_input)

__all__ = ["InceptionV3", "decode_predictions", "preprocess_input"]
