"""``tf.layers.experimental``: Keras-style ``tf.layers`` layers."""

from tensorfleet.nn_layers.keras_style import keras_style_scope, set_keras_style

__all__ = ["keras_style_scope", "set_keras_style"]
