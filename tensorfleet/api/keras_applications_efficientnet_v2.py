"""``tf.keras.applications.efficientnet_v2``: EfficientNetV2, its input preprocessing and
prediction decoding."""

from tensorfleet.keras.applications.efficientnetv2 import (EfficientNetV2B0, EfficientNetV2B1,
    EfficientNetV2B2, EfficientNetV2B3, EfficientNetV2L, EfficientNetV2M, EfficientNetV2S,
    decode_predictions, preprocess_input)

__all__ = ["EfficientNetV2B0", "EfficientNetV2B1", "EfficientNetV2B2", "EfficientNetV2B3",
           "EfficientNetV2L", "EfficientNetV2M", "EfficientNetV2S", "decode_predictions",
           "preprocess_input"]
