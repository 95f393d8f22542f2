"""``tf.keras.applications.mobilenet_v2``: MobileNetV2, its input preprocessing and
prediction decoding."""

from tensorfleet.keras.applications.mobilenetv2 import (MobileNetV2, decode_predictions,
    preprocess_input)

__all__ = ["MobileNetV2", "decode_predictions", "preprocess_input"]
