"""``tf.keras.applications.densenet``: DenseNet, its input preprocessing and
prediction decoding."""

from tensorfleet.keras.applications.densenet import (DenseNet121, DenseNet169, DenseNet201,
    decode_predictions, preprocess_input)

__all__ = ["DenseNet121", "DenseNet169", "DenseNet201", "decode_predictions",
           "preprocess_input"]
