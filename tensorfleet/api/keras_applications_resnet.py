"""``tf.keras.applications.resnet``: ResNet, its input preprocessing and
prediction decoding."""

from tensorfleet.keras.applications.resnet import (ResNet101, ResNet152, ResNet50,
    decode_predictions, preprocess_input)

__all__ = ["ResNet101", "ResNet152", "ResNet50", "decode_predictions", "preprocess_input"]
