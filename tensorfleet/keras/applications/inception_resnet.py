"""Inception-ResNet-v2 (Szegedy et al., 2017): Inception modules whose concatenated
branches, projected by a 1x1 convolution and scaled down, are added to their input."""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet.keras import layers
from tensorfleet.keras.applications import builder_arguments as args
from tensorfleet.keras.applications import imagenet_utils
from tensorfleet.keras.applications.pretrained_weights import published
from tensorfleet.keras.models import Model

decode_predictions = imagenet_utils.decode_predictions


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """Inception-ResNet-v2's input convention: pixels scaled to [-1, 1] (``tf``)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def conv_bn(x: Any, filters: int, kernel_size: Any, strides: int = 1, padding: str = "same",
            activation: Optional[str] = "relu", use_bias: bool = False,
            name: Optional[str] = None) -> Any:
    """Convolution; without bias it is followed by batch norm (no scale); then
    ``activation``."""
    x = layers.Conv2D(filters, kernel_size, strides=strides, padding=padding,
                      use_bias=use_bias, name=name)(x)
    if not use_bias:
        x = layers.BatchNormalization(axis=3, scale=False,
                                      name=None if name is None else name + "_bn")(x)
    if activation is not None:
        x = layers.Activation(activation, name=None if name is None else name + "_ac")(x)
    return x


def _scaled_sum(inputs: Any, scale: float) -> Any:
    return inputs[0] + inputs[1] * scale


def inception_resnet_block(x: Any, scale: float, block_type: str, block_idx: int,
                           activation: Optional[str] = "relu") -> Any:
    """One residual Inception block: ``block35`` (35x35), ``block17`` or ``block8``."""
    if block_type == "block35":
        branches = [conv_bn(x, 32, 1), conv_bn(conv_bn(x, 32, 1), 32, 3),
                    conv_bn(conv_bn(conv_bn(x, 32, 1), 48, 3), 64, 3)]
    elif block_type == "block17":
        branches = [conv_bn(x, 192, 1),
                    conv_bn(conv_bn(conv_bn(x, 128, 1), 160, (1, 7)), 192, (7, 1))]
    elif block_type == "block8":
        branches = [conv_bn(x, 192, 1),
                    conv_bn(conv_bn(conv_bn(x, 192, 1), 224, (1, 3)), 256, (3, 1))]
    else:
        raise ValueError(f"Unknown Inception-ResNet block type. Expects 'block35', "
                         f"'block17' or 'block8', but got: {block_type!r}")
    name = f"{block_type}_{block_idx}"
    mixed = layers.Concatenate(axis=3, name=name + "_mixed")(branches)
    up = conv_bn(mixed, x.shape.as_list()[3], 1, activation=None, use_bias=True,
                 name=name + "_conv")
    x = layers.Lambda(_scaled_sum, arguments={"scale": scale}, name=name)([x, up])
    if activation is not None:
        x = layers.Activation(activation, name=name + "_ac")(x)
    return x


def InceptionResNetV2(include_top: bool = True, weights: Any = "imagenet",
                      input_tensor: Any = None, input_shape: Any = None, pooling: Any = None,
                      classes: int = 1000, classifier_activation: Any = "softmax",
                      **kwargs: Any) -> Model:
    """The Inception-ResNet-v2 network (default input 299x299, at least 75x75)."""
    if kwargs:
        raise ValueError(f"InceptionResNetV2: unknown arguments {sorted(kwargs)}")
    args.check_weights(weights, include_top, classes, "InceptionResNetV2")
    args.check_pooling(pooling)
    args.check_classifier_activation(classifier_activation, weights if include_top else None)
    shape = args.input_shape_for(input_shape, 299, 75, include_top, weights)
    img_input = args.image_input(input_tensor, shape)
    x = conv_bn(img_input, 32, 3, strides=2, padding="valid")
    x = conv_bn(x, 32, 3, padding="valid")
    x = conv_bn(x, 64, 3)
    x = layers.MaxPooling2D(3, strides=2)(x)
    x = conv_bn(x, 80, 1, padding="valid")
    x = conv_bn(x, 192, 3, padding="valid")
    x = layers.MaxPooling2D(3, strides=2)(x)
    pool = conv_bn(layers.AveragePooling2D(3, strides=1, padding="same")(x), 64, 1)
    x = layers.Concatenate(axis=3, name="mixed_5b")([
        conv_bn(x, 96, 1), conv_bn(conv_bn(x, 48, 1), 64, 5),
        conv_bn(conv_bn(conv_bn(x, 64, 1), 96, 3), 96, 3), pool])
    for i in range(1, 11):
        x = inception_resnet_block(x, 0.17, "block35", i)
    x = layers.Concatenate(axis=3, name="mixed_6a")([
        conv_bn(x, 384, 3, strides=2, padding="valid"),
        conv_bn(conv_bn(conv_bn(x, 256, 1), 256, 3), 384, 3, strides=2, padding="valid"),
        layers.MaxPooling2D(3, strides=2, padding="valid")(x)])
    for i in range(1, 21):
        x = inception_resnet_block(x, 0.1, "block17", i)
    x = layers.Concatenate(axis=3, name="mixed_7a")([
        conv_bn(conv_bn(x, 256, 1), 384, 3, strides=2, padding="valid"),
        conv_bn(conv_bn(x, 256, 1), 288, 3, strides=2, padding="valid"),
        conv_bn(conv_bn(conv_bn(x, 256, 1), 288, 3), 320, 3, strides=2, padding="valid"),
        layers.MaxPooling2D(3, strides=2, padding="valid")(x)])
    for i in range(1, 10):
        x = inception_resnet_block(x, 0.2, "block8", i)
    x = inception_resnet_block(x, 1.0, "block8", 10, activation=None)
    x = conv_bn(x, 1536, 1, name="conv_7b")
    if include_top:
        x = args.pooled_head(x, True, None, classes, classifier_activation)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D()(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D()(x)
    folder = "inception_resnet_v2"
    return args.finish(
        x, img_input, input_tensor, "inception_resnet_v2", weights, include_top,
        published(folder, "inception_resnet_v2_weights_tf_dim_ordering_tf_kernels.h5"),
        published(folder, "inception_resnet_v2_weights_tf_dim_ordering_tf_kernels_notop.h5"))
