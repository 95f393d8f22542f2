"""``tf.keras.applications.xception``: Xception, its input preprocessing and
prediction decoding."""

from tensorfleet.keras.applications.xception import (Xception, decode_predictions,
    preprocess_input)

__all__ = ["Xception", "decode_predictions", "preprocess_input"]
