"""Inception-v3 (Szegedy et al., 2016): a convolutional stem, then eleven Inception
modules (``mixed0`` to ``mixed10``) of parallel 1x1, factorised 7x7 (1x7 then 7x1),
3x3 and pooling branches concatenated."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from tensorfleet.keras import layers
from tensorfleet.keras.applications import builder_arguments as args
from tensorfleet.keras.applications import imagenet_utils
from tensorfleet.keras.applications.pretrained_weights import published
from tensorfleet.keras.models import Model

decode_predictions = imagenet_utils.decode_predictions


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """Inception-v3's input convention: pixels scaled to [-1, 1] (``tf``)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def conv_bn(x: Any, filters: int, rows: int, cols: int, padding: str = "same",
            strides: Any = (1, 1)) -> Any:
    """Convolution without bias, batch norm without scale, ReLU."""
    x = layers.Conv2D(filters, (rows, cols), strides=strides, padding=padding,
                      use_bias=False)(x)
    x = layers.BatchNormalization(axis=3, scale=False)(x)
    return layers.Activation("relu")(x)


def _chain(x: Any, convs: Sequence[tuple]) -> Any:
    for filters, rows, cols in convs:
        x = conv_bn(x, filters, rows, cols)
    return x


def _avg_branch(x: Any, filters: int) -> Any:
    x = layers.AveragePooling2D(3, strides=1, padding="same")(x)
    return conv_bn(x, filters, 1, 1)


def InceptionV3(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
                input_shape: Any = None, pooling: Any = None, classes: int = 1000,
                classifier_activation: Any = "softmax") -> Model:
    """The Inception-v3 network (default input 299x299, at least 75x75)."""
    args.check_weights(weights, include_top, classes, "InceptionV3")
    args.check_pooling(pooling)
    args.check_classifier_activation(classifier_activation, weights if include_top else None)
    shape = args.input_shape_for(input_shape, 299, 75, include_top, weights)
    img_input = args.image_input(input_tensor, shape)
    x = conv_bn(img_input, 32, 3, 3, strides=(2, 2), padding="valid")
    x = conv_bn(x, 32, 3, 3, padding="valid")
    x = conv_bn(x, 64, 3, 3)
    x = layers.MaxPooling2D(3, strides=2)(x)
    x = conv_bn(x, 80, 1, 1, padding="valid")
    x = conv_bn(x, 192, 3, 3, padding="valid")
    x = layers.MaxPooling2D(3, strides=2)(x)
    # mixed0-2: 35x35 modules
    for i, pool_filters in enumerate((32, 64, 64)):
        x = layers.Concatenate(axis=3, name=f"mixed{i}")([
            conv_bn(x, 64, 1, 1), _chain(x, [(48, 1, 1), (64, 5, 5)]),
            _chain(x, [(64, 1, 1), (96, 3, 3), (96, 3, 3)]), _avg_branch(x, pool_filters)])
    # mixed3: down to 17x17
    b3 = conv_bn(x, 384, 3, 3, strides=(2, 2), padding="valid")
    bd = _chain(x, [(64, 1, 1), (96, 3, 3)])
    bd = conv_bn(bd, 96, 3, 3, strides=(2, 2), padding="valid")
    x = layers.Concatenate(axis=3, name="mixed3")([b3, bd, layers.MaxPooling2D(3, strides=2)(x)])
    # mixed4-7: 17x17 modules with factorised 7x7 convolutions
    for i, c in enumerate((128, 160, 160, 192), start=4):
        x = layers.Concatenate(axis=3, name=f"mixed{i}")([
            conv_bn(x, 192, 1, 1), _chain(x, [(c, 1, 1), (c, 1, 7), (192, 7, 1)]),
            _chain(x, [(c, 1, 1), (c, 7, 1), (c, 1, 7), (c, 7, 1), (192, 1, 7)]),
            _avg_branch(x, 192)])
    # mixed8: down to 8x8
    b3 = conv_bn(conv_bn(x, 192, 1, 1), 320, 3, 3, strides=(2, 2), padding="valid")
    b7 = _chain(x, [(192, 1, 1), (192, 1, 7), (192, 7, 1)])
    b7 = conv_bn(b7, 192, 3, 3, strides=(2, 2), padding="valid")
    x = layers.Concatenate(axis=3, name="mixed8")([b3, b7, layers.MaxPooling2D(3, strides=2)(x)])
    # mixed9-10: 8x8 modules with split 1x3/3x1 branches
    for i in range(2):
        b1 = conv_bn(x, 320, 1, 1)
        b3 = conv_bn(x, 384, 1, 1)
        b3 = layers.Concatenate(axis=3, name=f"mixed9_{i}")(
            [conv_bn(b3, 384, 1, 3), conv_bn(b3, 384, 3, 1)])
        bd = _chain(x, [(448, 1, 1), (384, 3, 3)])
        bd = layers.Concatenate(axis=3)([conv_bn(bd, 384, 1, 3), conv_bn(bd, 384, 3, 1)])
        x = layers.Concatenate(axis=3, name=f"mixed{9 + i}")([b1, b3, bd, _avg_branch(x, 192)])
    x = args.pooled_head(x, include_top, pooling, classes, classifier_activation)
    return args.finish(
        x, img_input, input_tensor, "inception_v3", weights, include_top,
        published("inception_v3", "inception_v3_weights_tf_dim_ordering_tf_kernels.h5"),
        published("inception_v3",
                  "inception_v3_weights_tf_dim_ordering_tf_kernels_notop.h5"))
