"""``tf.keras.applications.mobilenet``: MobileNet, its input preprocessing and
prediction decoding."""

from tensorfleet.keras.applications.mobilenet import (MobileNet, decode_predictions,
    preprocess_input)

__all__ = ["MobileNet", "decode_predictions", "preprocess_input"]
