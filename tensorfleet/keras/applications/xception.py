"""Xception (Chollet, 2017): depthwise separable convolutions throughout, in an entry
flow of strided residual blocks, eight middle-flow residual blocks and an exit flow."""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet.keras import layers
from tensorfleet.keras.applications import builder_arguments as args
from tensorfleet.keras.applications import imagenet_utils
from tensorfleet.keras.applications.pretrained_weights import published
from tensorfleet.keras.models import Model

decode_predictions = imagenet_utils.decode_predictions


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """Xception's input convention: pixels scaled to [-1, 1] (``tf``)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def _sep_bn(x: Any, filters: int, name: str) -> Any:
    x = layers.SeparableConv2D(filters, 3, padding="same", use_bias=False, name=name)(x)
    return layers.BatchNormalization(axis=-1, name=name + "_bn")(x)


def _strided_block(x: Any, filters: Any, block: int, first_relu: bool) -> Any:
    """Two separable convolutions and 3x3/2 max pooling, plus a strided 1x1 shortcut."""
    residual = layers.Conv2D(filters[1], 1, strides=2, padding="same", use_bias=False)(x)
    residual = layers.BatchNormalization(axis=-1)(residual)
    if first_relu:
        x = layers.Activation("relu", name=f"block{block}_sepconv1_act")(x)
    x = _sep_bn(x, filters[0], f"block{block}_sepconv1")
    x = layers.Activation("relu", name=f"block{block}_sepconv2_act")(x)
    x = _sep_bn(x, filters[1], f"block{block}_sepconv2")
    x = layers.MaxPooling2D(3, strides=2, padding="same", name=f"block{block}_pool")(x)
    return layers.Add()([x, residual])


def Xception(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
             input_shape: Any = None, pooling: Any = None, classes: int = 1000,
             classifier_activation: Any = "softmax") -> Model:
    """The Xception network (default input 299x299, at least 71x71)."""
    args.check_weights(weights, include_top, classes, "Xception")
    args.check_pooling(pooling)
    args.check_classifier_activation(classifier_activation, weights if include_top else None)
    shape = args.input_shape_for(input_shape, 299, 71, include_top, weights)
    img_input = args.image_input(input_tensor, shape)
    x = layers.Conv2D(32, 3, strides=2, use_bias=False, name="block1_conv1")(img_input)
    x = layers.BatchNormalization(axis=-1, name="block1_conv1_bn")(x)
    x = layers.Activation("relu", name="block1_conv1_act")(x)
    x = layers.Conv2D(64, 3, use_bias=False, name="block1_conv2")(x)
    x = layers.BatchNormalization(axis=-1, name="block1_conv2_bn")(x)
    x = layers.Activation("relu", name="block1_conv2_act")(x)
    x = _strided_block(x, (128, 128), 2, first_relu=False)
    x = _strided_block(x, (256, 256), 3, first_relu=True)
    x = _strided_block(x, (728, 728), 4, first_relu=True)
    for block in range(5, 13):
        residual = x
        for i in (1, 2, 3):
            x = layers.Activation("relu", name=f"block{block}_sepconv{i}_act")(x)
            x = _sep_bn(x, 728, f"block{block}_sepconv{i}")
        x = layers.Add()([x, residual])
    x = _strided_block(x, (728, 1024), 13, first_relu=True)
    x = _sep_bn(x, 1536, "block14_sepconv1")
    x = layers.Activation("relu", name="block14_sepconv1_act")(x)
    x = _sep_bn(x, 2048, "block14_sepconv2")
    x = layers.Activation("relu", name="block14_sepconv2_act")(x)
    if include_top:
        x = args.pooled_head(x, True, None, classes, classifier_activation)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D()(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D()(x)
    return args.finish(
        x, img_input, input_tensor, "xception", weights, include_top,
        published("xception", "xception_weights_tf_dim_ordering_tf_kernels.h5"),
        published("xception", "xception_weights_tf_dim_ordering_tf_kernels_notop.h5"))
