"""``tf.keras.applications.imagenet_utils``: ImageNet input preprocessing and
prediction decoding."""

from tensorfleet.keras.applications.imagenet_utils import (decode_predictions,
    preprocess_input)

__all__ = ["decode_predictions", "preprocess_input"]
