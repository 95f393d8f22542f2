"""DenseNet (Huang et al., 2017): dense blocks, where each layer's 32 new feature maps
are concatenated to all before them, joined by transition layers that halve the maps
and the resolution."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from tensorfleet.keras import layers
from tensorfleet.keras.applications import builder_arguments as args
from tensorfleet.keras.applications import imagenet_utils
from tensorfleet.keras.applications.pretrained_weights import published
from tensorfleet.keras.models import Model

decode_predictions = imagenet_utils.decode_predictions
_EPS = 1.001e-5
_GROWTH = 32


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """DenseNet's input convention: [0, 1], then ImageNet mean and deviation (``torch``)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="torch")


def _bn_relu(x: Any, name: str) -> Any:
    x = layers.BatchNormalization(axis=3, epsilon=_EPS, name=name + "_bn")(x)
    return layers.Activation("relu", name=name + "_relu")(x)


def _conv_block(x: Any, name: str) -> Any:
    y = _bn_relu(x, name + "_0")
    y = layers.Conv2D(4 * _GROWTH, 1, use_bias=False, name=name + "_1_conv")(y)
    y = _bn_relu(y, name + "_1")
    y = layers.Conv2D(_GROWTH, 3, padding="same", use_bias=False, name=name + "_2_conv")(y)
    return layers.Concatenate(axis=3, name=name + "_concat")([x, y])


def _transition(x: Any, name: str) -> Any:
    x = _bn_relu(x, name)
    x = layers.Conv2D(int(x.shape.as_list()[3] * 0.5), 1, use_bias=False,
                      name=name + "_conv")(x)
    return layers.AveragePooling2D(2, strides=2, name=name + "_pool")(x)


def DenseNet(blocks: Sequence[int], include_top: bool = True, weights: Any = "imagenet",
             input_tensor: Any = None, input_shape: Any = None, pooling: Any = None,
             classes: int = 1000, classifier_activation: Any = "softmax") -> Model:
    """A DenseNet of four dense blocks of ``blocks`` layers each.

    ImageNet weights exist for the block counts of DenseNet121, 169 and 201 only.
    """
    blocks = tuple(int(b) for b in blocks)
    if len(blocks) != 4:
        raise ValueError(f"DenseNet: blocks must list four block sizes, got {blocks}")
    name = {(6, 12, 24, 16): "densenet121", (6, 12, 32, 32): "densenet169",
            (6, 12, 48, 32): "densenet201"}.get(blocks)
    args.check_weights(weights, include_top, classes, "DenseNet")
    if weights == "imagenet" and name is None:
        raise ValueError(f"DenseNet: ImageNet weights exist for DenseNet121, 169 and 201 "
                         f"only, not for blocks={blocks}")
    args.check_pooling(pooling)
    args.check_classifier_activation(classifier_activation, weights if include_top else None)
    shape = args.input_shape_for(input_shape, 224, 32, include_top, weights)
    img_input = args.image_input(input_tensor, shape)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)))(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=False, name="conv1/conv")(x)
    x = layers.BatchNormalization(axis=3, epsilon=_EPS, name="conv1/bn")(x)
    x = layers.Activation("relu", name="conv1/relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1")(x)
    for stage, n in enumerate(blocks, start=2):
        for i in range(1, n + 1):
            x = _conv_block(x, f"conv{stage}_block{i}")
        if stage < 5:
            x = _transition(x, f"pool{stage}")
    x = layers.BatchNormalization(axis=3, epsilon=_EPS, name="bn")(x)
    x = layers.Activation("relu", name="relu")(x)
    x = args.pooled_head(x, include_top, pooling, classes, classifier_activation)
    name = name or "densenet"
    return args.finish(
        x, img_input, input_tensor, name, weights, include_top,
        published("densenet", f"{name}_weights_tf_dim_ordering_tf_kernels.h5"),
        published("densenet", f"{name}_weights_tf_dim_ordering_tf_kernels_notop.h5"))


def DenseNet121(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
                input_shape: Any = None, pooling: Any = None, classes: int = 1000,
                classifier_activation: Any = "softmax") -> Model:
    """DenseNet-121: dense blocks of 6, 12, 24 and 16 layers."""
    return DenseNet((6, 12, 24, 16), include_top, weights, input_tensor, input_shape,
                    pooling, classes, classifier_activation)


def DenseNet169(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
                input_shape: Any = None, pooling: Any = None, classes: int = 1000,
                classifier_activation: Any = "softmax") -> Model:
    """DenseNet-169: dense blocks of 6, 12, 32 and 32 layers."""
    return DenseNet((6, 12, 32, 32), include_top, weights, input_tensor, input_shape,
                    pooling, classes, classifier_activation)


def DenseNet201(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
                input_shape: Any = None, pooling: Any = None, classes: int = 1000,
                classifier_activation: Any = "softmax") -> Model:
    """DenseNet-201: dense blocks of 6, 12, 48 and 32 layers."""
    return DenseNet((6, 12, 48, 32), include_top, weights, input_tensor, input_shape,
                    pooling, classes, classifier_activation)
