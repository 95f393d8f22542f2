"""tf.layers.experimental.keras_style_scope / set_keras_style: Keras-style tf.layers
own their variables (names as TensorFlow 2.21's tf.compat.v1.layers gives them)."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.nn_layers import keras_style


def _names():
    return [v.name for v in tf.global_variables()]


def test_keras_style_layers_own_their_variables():
    with tf.Graph().as_default():
        x = tf.constant(np.ones((2, 3), np.float32))
        with tf.layers.experimental.keras_style_scope():
            first, second = tf.layers.Dense(2, name="d"), tf.layers.Dense(2, name="d")
            first(x), second(x), first(x)
            assert _names() == ["d/kernel:0", "d/bias:0", "d_1/kernel:0", "d_1/bias:0"]
            assert first.name == second.name == "d"
            with pytest.raises(ValueError, match="reuse argument not allowed"):
                tf.layers.Dense(2, _reuse=True)
            with tf.variable_scope("o2", reuse=True):
                tf.layers.Dense(2, name="d")(x)   # the enclosing reuse does not apply
            assert _names()[-2:] == ["o2/d/kernel:0", "o2/d/bias:0"]
        with pytest.raises(ValueError, match="already exists"):
            tf.layers.Dense(2, name="d")(x)       # TF1 style again outside the scope
        assert len(tf.global_variables()) == 6


def test_set_keras_style_stays_on():
    try:
        keras_style_before = keras_style.keras_style_enabled()
        tf.layers.experimental.set_keras_style()
        with tf.Graph().as_default():
            x = tf.constant(np.ones((1, 3), np.float32))
            tf.layers.Dense(2, name="d")(x)
            tf.layers.Dense(2, name="d")(x)
            assert _names() == ["d/kernel:0", "d/bias:0", "d_1/kernel:0", "d_1/bias:0"]
    finally:
        keras_style._state["keras_style"] = keras_style_before
