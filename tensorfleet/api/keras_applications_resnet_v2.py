"""``tf.keras.applications.resnet_v2``: ResNetV2, its input preprocessing and
prediction decoding."""

from tensorfleet.keras.applications.resnetv2 import (ResNet101V2, ResNet152V2, ResNet50V2,
    decode_predictions, preprocess_input)

__all__ = ["ResNet101V2", "ResNet152V2", "ResNet50V2", "decode_predictions",
           "preprocess_input"]
