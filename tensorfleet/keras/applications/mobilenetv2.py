"""MobileNetV2 (Sandler et al., 2018): inverted residual blocks (1x1 expansion, 3x3
depthwise, linear 1x1 projection, a residual connection where shapes allow), width scaled
by ``alpha``."""

from __future__ import annotations

import logging
from typing import Any, Optional

from tensorfleet.keras import layers
from tensorfleet.keras.applications import builder_arguments as args
from tensorfleet.keras.applications import imagenet_utils
from tensorfleet.keras.applications.mobile_blocks import correct_pad, make_divisible
from tensorfleet.keras.applications.pretrained_weights import published
from tensorfleet.keras.models import Model

logger = logging.getLogger(__name__)
decode_predictions = imagenet_utils.decode_predictions

_SIZES = (96, 128, 160, 192, 224)
_ALPHAS = (0.35, 0.50, 0.75, 1.0, 1.3, 1.4)
# (filters, stride, expansion) of the seventeen inverted residual blocks
_BLOCKS = ((16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6),
           (64, 2, 6), (64, 1, 6), (64, 1, 6), (64, 1, 6), (96, 1, 6), (96, 1, 6),
           (96, 1, 6), (160, 2, 6), (160, 1, 6), (160, 1, 6), (320, 1, 6))


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """MobileNetV2's input convention: pixels scaled to [-1, 1] (``tf``)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def _bn(x: Any, name: str) -> Any:
    return layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name=name)(x)


def _inverted_residual(x: Any, expansion: int, stride: int, alpha: float, filters: int,
                       block_id: int) -> Any:
    inputs = x
    in_channels = x.shape.as_list()[-1]
    pointwise = make_divisible(int(filters * alpha), 8)
    prefix = f"block_{block_id}_" if block_id else "expanded_conv_"
    if block_id:
        x = layers.Conv2D(expansion * in_channels, 1, padding="same", use_bias=False,
                          name=prefix + "expand")(x)
        x = layers.ReLU(6.0, name=prefix + "expand_relu")(_bn(x, prefix + "expand_BN"))
    if stride == 2:
        x = layers.ZeroPadding2D(padding=correct_pad(x, 3), name=prefix + "pad")(x)
    x = layers.DepthwiseConv2D(3, strides=stride, use_bias=False,
                               padding="same" if stride == 1 else "valid",
                               name=prefix + "depthwise")(x)
    x = layers.ReLU(6.0, name=prefix + "depthwise_relu")(_bn(x, prefix + "depthwise_BN"))
    x = layers.Conv2D(pointwise, 1, padding="same", use_bias=False,
                      name=prefix + "project")(x)
    x = _bn(x, prefix + "project_BN")
    if in_channels == pointwise and stride == 1:
        return layers.Add(name=prefix + "add")([inputs, x])
    return x


def MobileNetV2(input_shape: Any = None, alpha: float = 1.0, include_top: bool = True,
                weights: Any = "imagenet", input_tensor: Any = None, pooling: Any = None,
                classes: int = 1000, classifier_activation: Any = "softmax",
                **kwargs: Any) -> Model:
    """MobileNetV2 at width ``alpha``; ImageNet weights exist for ``alpha`` 0.35, 0.5,
    0.75, 1.0, 1.3 and 1.4 at square inputs of 96 to 224 pixels (others load the 224
    ones)."""
    if kwargs:
        raise ValueError(f"MobileNetV2: unknown arguments {sorted(kwargs)}")
    args.check_weights(weights, include_top, classes, "MobileNetV2")
    args.check_pooling(pooling)
    args.check_classifier_activation(classifier_activation, weights if include_top else None)
    given = input_shape
    if given is None and input_tensor is not None:
        given = tuple(input_tensor.shape.as_list()[1:])
    default_size = 224
    if given is not None and given[0] == given[1] and given[0] in _SIZES:
        default_size = given[0]
    shape = args.input_shape_for(input_shape if input_shape is not None else
                                 (given if input_tensor is not None else None),
                                 default_size, 32, include_top, weights)
    rows = shape[0]
    if weights == "imagenet":
        if alpha not in _ALPHAS:
            raise ValueError(f"If imagenet weights are being loaded, alpha must be one of "
                             f"`0.35`, `0.50`, `0.75`, `1.0`, `1.3` or `1.4` only; Received "
                             f"`alpha={alpha}`")
        if rows != shape[1] or rows not in _SIZES:
            logger.warning("input_shape is undefined or non-square, or rows is not in %s; "
                           "the weights for 224x224 inputs are loaded", _SIZES)
            rows = 224
    img_input = args.image_input(input_tensor, shape)
    x = layers.Conv2D(make_divisible(32 * alpha, 8), 3, strides=2, padding="same",
                      use_bias=False, name="Conv1")(img_input)
    x = layers.ReLU(6.0, name="Conv1_relu")(_bn(x, "bn_Conv1"))
    for block_id, (filters, stride, expansion) in enumerate(_BLOCKS):
        x = _inverted_residual(x, expansion, stride, alpha, filters, block_id)
    last = make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = layers.Conv2D(last, 1, use_bias=False, name="Conv_1")(x)
    x = layers.ReLU(6.0, name="out_relu")(_bn(x, "Conv_1_bn"))
    if include_top:
        x = layers.GlobalAveragePooling2D()(x)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D()(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D()(x)
    stem = f"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{float(alpha)}_{rows}"
    return args.finish(
        x, img_input, input_tensor, f"mobilenetv2_{alpha:0.2f}_{rows}", weights, include_top,
        published("mobilenet_v2", stem + ".h5"), published("mobilenet_v2", stem + "_no_top.h5"))
