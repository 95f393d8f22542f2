"""``tf.keras.layers``: the Keras layers, in TF 1.x graph mode."""

from tensorfleet.keras.layers.base import Input, InputLayer, Layer  # noqa: F401
from tensorfleet.keras.layers.core import *  # noqa: F401,F403
from tensorfleet.keras.layers.conv import *  # noqa: F401,F403
from tensorfleet.keras.layers.rnn import *  # noqa: F401,F403
from tensorfleet.keras.layers.conv import (  # noqa: F401  (the short Keras aliases)
    AveragePooling1D as AvgPool1D, AveragePooling2D as AvgPool2D,
    Conv1D as Convolution1D, Conv2D as Convolution2D,
    Conv2DTranspose as Convolution2DTranspose, GlobalAveragePooling1D as GlobalAvgPool1D,
    GlobalAveragePooling2D as GlobalAvgPool2D, GlobalMaxPooling1D as GlobalMaxPool1D,
    GlobalMaxPooling2D as GlobalMaxPool2D, MaxPooling1D as MaxPool1D,
    MaxPooling2D as MaxPool2D, SeparableConv2D as SeparableConvolution2D)
