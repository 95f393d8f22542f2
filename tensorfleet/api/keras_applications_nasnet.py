"""``tf.keras.applications.nasnet``: NASNet, its input preprocessing and
prediction decoding."""

from tensorfleet.keras.applications.nasnet import (NASNetLarge, NASNetMobile,
    decode_predictions, preprocess_input)

__all__ = ["NASNetLarge", "NASNetMobile", "decode_predictions", "preprocess_input"]
