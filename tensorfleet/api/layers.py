"""``tf.layers``: the TF 1.x layers, as functions and as layer objects."""

from tensorfleet.nn_layers.functional import (BatchNormalization, average_pooling2d,
    batch_normalization, conv2d, dense, dropout, flatten, max_pooling2d)
from tensorfleet.nn_layers.objects import (AveragePooling1D, AveragePooling2D,
    AveragePooling3D, Conv1D, Conv2D, Conv2DTranspose, Conv3D, Dense, Dropout, Flatten, Layer,
    MaxPooling1D, MaxPooling2D, MaxPooling3D, SeparableConv2D, average_pooling1d,
    average_pooling3d, conv1d, conv2d_transpose, conv3d, deconv_output_length, max_pooling1d,
    max_pooling3d, separable_conv2d)
from tensorfleet.nn_layers.conv3d_transpose import Conv3DTranspose, conv3d_transpose
from tensorfleet.nn_layers.separable_conv1d import SeparableConv1D, separable_conv1d
from tensorfleet.keras.layers.input_spec import InputSpec
from tensorfleet.api import layers_experimental as experimental

__all__ = ["AveragePooling1D", "AveragePooling2D", "AveragePooling3D", "BatchNormalization",
           "Conv1D", "Conv2D", "Conv2DTranspose", "Conv3D", "Dense", "Dropout", "Flatten",
           "Layer", "MaxPooling1D", "MaxPooling2D", "MaxPooling3D", "SeparableConv2D",
           "average_pooling1d", "average_pooling2d", "average_pooling3d",
           "batch_normalization", "conv1d", "conv2d", "conv2d_transpose", "conv3d",
           "deconv_output_length", "dense", "dropout", "flatten", "max_pooling1d",
           "max_pooling2d", "max_pooling3d", "separable_conv2d",
           "Conv3DTranspose", "conv3d_transpose", "InputSpec", "SeparableConv1D",
           "separable_conv1d", "experimental"]
