"""``tf.keras.applications.inception_resnet_v2``: Inception-ResNet-v2, its input preprocessing and
prediction decoding."""

from tensorfleet.keras.applications.inception_resnet import (InceptionResNetV2,
    decode_predictions, preprocess_input)

__all__ = ["InceptionResNetV2", "decode_predictions", "preprocess_input"]
