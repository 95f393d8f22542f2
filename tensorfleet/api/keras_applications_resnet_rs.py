"""``tf.keras.applications.resnet_rs``: ResNet-RS, its input preprocessing and
prediction decoding."""

from tensorfleet.keras.applications.resnet_rs import (ResNetRS101, ResNetRS152, ResNetRS200,
    ResNetRS270, ResNetRS350, ResNetRS420, ResNetRS50, decode_predictions, preprocess_input)

__all__ = ["ResNetRS101", "ResNetRS152", "ResNetRS200", "ResNetRS270", "ResNetRS350",
           "ResNetRS420", "ResNetRS50", "decode_predictions", "preprocess_input"]
