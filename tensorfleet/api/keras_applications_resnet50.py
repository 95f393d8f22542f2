"""``tf.keras.applications.resnet50``: ResNet-50, its input preprocessing and
prediction decoding."""

from tensorfleet.keras.applications.resnet import (ResNet50, decode_predictions,
    preprocess_input)

__all__ = ["ResNet50", "decode_predictions", "preprocess_input"]
