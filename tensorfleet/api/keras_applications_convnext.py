"""``tf.keras.applications.convnext``: ConvNeXt, its input preprocessing and
prediction decoding."""

from tensorfleet.keras.applications.convnext import (ConvNeXtBase, ConvNeXtLarge,
    ConvNeXtSmall, ConvNeXtTiny, ConvNeXtXLarge, decode_predictions, preprocess_input)

__all__ = ["ConvNeXtBase", "ConvNeXtLarge", "ConvNeXtSmall", "ConvNeXtTiny", "ConvNeXtXLarge",
           "decode_predictions", "preprocess_input"]
