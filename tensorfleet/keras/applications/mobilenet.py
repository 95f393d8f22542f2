"""MobileNet (Howard et al., 2017): a stem convolution and thirteen depthwise separable
blocks (3x3 depthwise, 1x1 pointwise, each with batch norm and ReLU6), its width scaled by
``alpha`` and its depthwise convolutions' channels by ``depth_multiplier``."""

from __future__ import annotations

import logging
from typing import Any, Optional

from tensorfleet.keras import layers
from tensorfleet.keras.applications import builder_arguments as args
from tensorfleet.keras.applications import imagenet_utils
from tensorfleet.keras.applications.pretrained_weights import published
from tensorfleet.keras.models import Model

logger = logging.getLogger(__name__)
decode_predictions = imagenet_utils.decode_predictions

_SIZES = (128, 160, 192, 224)
_ALPHA_TEXT = {0.25: "2_5", 0.5: "5_0", 0.75: "7_5", 1.0: "1_0"}
# (pointwise filters, stride) of the thirteen separable blocks
_BLOCKS = ((64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1),
           (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1))


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """MobileNet's input convention: pixels scaled to [-1, 1] (``tf``)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def _separable_block(x: Any, filters: int, alpha: float, depth_multiplier: int,
                     stride: int, block_id: int) -> Any:
    if stride != 1:
        x = layers.ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(x)
    x = layers.DepthwiseConv2D(3, padding="same" if stride == 1 else "valid",
                               depth_multiplier=depth_multiplier, strides=stride,
                               use_bias=False, name=f"conv_dw_{block_id}")(x)
    x = layers.BatchNormalization(axis=-1, name=f"conv_dw_{block_id}_bn")(x)
    x = layers.ReLU(6.0, name=f"conv_dw_{block_id}_relu")(x)
    x = layers.Conv2D(int(filters * alpha), 1, padding="same", use_bias=False,
                      name=f"conv_pw_{block_id}")(x)
    x = layers.BatchNormalization(axis=-1, name=f"conv_pw_{block_id}_bn")(x)
    return layers.ReLU(6.0, name=f"conv_pw_{block_id}_relu")(x)


def MobileNet(input_shape: Any = None, alpha: float = 1.0, depth_multiplier: int = 1,
              dropout: float = 1e-3, include_top: bool = True, weights: Any = "imagenet",
              input_tensor: Any = None, pooling: Any = None, classes: int = 1000,
              classifier_activation: Any = "softmax", **kwargs: Any) -> Model:
    """MobileNet at width ``alpha``; ImageNet weights exist for ``alpha`` 0.25, 0.5, 0.75
    and 1.0 at square inputs of 128, 160, 192 or 224 pixels (others load the 224 ones)."""
    if kwargs:
        raise ValueError(f"MobileNet: unknown arguments {sorted(kwargs)}")
    args.check_weights(weights, include_top, classes, "MobileNet")
    args.check_pooling(pooling)
    args.check_classifier_activation(classifier_activation, weights if include_top else None)
    default_size = 224
    if input_shape is not None and input_shape[0] == input_shape[1] \
            and input_shape[0] in _SIZES:
        default_size = input_shape[0]
    shape = args.input_shape_for(input_shape, default_size, 32, include_top, weights)
    rows = shape[0]
    if weights == "imagenet":
        if depth_multiplier != 1:
            raise ValueError(f"If imagenet weights are being loaded, depth multiplier must "
                             f"be 1. Received depth_multiplier={depth_multiplier}")
        if alpha not in _ALPHA_TEXT:
            raise ValueError(f"If imagenet weights are being loaded, alpha can be one of "
                             f"`0.25`, `0.50`, `0.75` or `1.0` only. Received alpha={alpha}")
        if rows != shape[1] or rows not in _SIZES:
            logger.warning("input_shape is undefined or non-square, or rows is not in %s; "
                           "the weights for 224x224 inputs are loaded", _SIZES)
            rows = 224
    img_input = args.image_input(input_tensor, shape)
    x = layers.Conv2D(int(32 * alpha), 3, padding="same", use_bias=False, strides=2,
                      name="conv1")(img_input)
    x = layers.BatchNormalization(axis=-1, name="conv1_bn")(x)
    x = layers.ReLU(6.0, name="conv1_relu")(x)
    for block_id, (filters, stride) in enumerate(_BLOCKS, start=1):
        x = _separable_block(x, filters, alpha, depth_multiplier, stride, block_id)
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Dropout(dropout, name="dropout")(x)
        x = layers.Conv2D(classes, 1, padding="same", name="conv_preds")(x)
        x = layers.Reshape((classes,), name="reshape_2")(x)
        x = layers.Activation(classifier_activation, name="predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D()(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D()(x)
    text = _ALPHA_TEXT.get(alpha, "")
    return args.finish(
        x, img_input, input_tensor, f"mobilenet_{alpha:0.2f}_{rows}", weights, include_top,
        published("mobilenet", f"mobilenet_{text}_{rows}_tf.h5"),
        published("mobilenet", f"mobilenet_{text}_{rows}_tf_no_top.h5"))
