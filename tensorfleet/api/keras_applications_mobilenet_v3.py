"""``tf.keras.applications.mobilenet_v3``: MobileNetV3 (the builders are tf.keras.applications.MobileNetV3Small/Large), its input preprocessing and
prediction decoding."""

from tensorfleet.keras.applications.mobilenetv3 import (decode_predictions, preprocess_input)

__all__ = ["decode_predictions", "preprocess_input"]
