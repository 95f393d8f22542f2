"""``tf.keras.applications.efficientnet``: EfficientNet, its input preprocessing and
prediction decoding."""

from tensorfleet.keras.applications.efficientnet import (EfficientNetB0, EfficientNetB1,
    EfficientNetB2, EfficientNetB3, EfficientNetB4, EfficientNetB5, EfficientNetB6,
    EfficientNetB7, decode_predictions, preprocess_input)

__all__ = ["EfficientNetB0", "EfficientNetB1", "EfficientNetB2", "EfficientNetB3",
           "EfficientNetB4", "EfficientNetB5", "EfficientNetB6", "EfficientNetB7",
           "decode_predictions", "preprocess_input"]
