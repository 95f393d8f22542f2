"""EfficientNetV2 (Tan and Le, 2021): fused MBConv blocks (one regular convolution in
place of expansion and depthwise convolution) in the early stages and MBConv blocks with
squeeze-and-excitation later; B0-B3, S, M and L. The model rescales (and for B0-B3
normalizes) its input itself unless ``include_preprocessing=False``."""

from __future__ import annotations

import math
from typing import Any

from tensorfleet.keras import initializers, layers
from tensorfleet.keras.applications import builder_arguments as args
from tensorfleet.keras.applications import imagenet_utils
from tensorfleet.keras.applications.efficientnet import (CONV_KERNEL_INITIALIZER,
                                                          DENSE_KERNEL_INITIALIZER)
from tensorfleet.keras.applications.pretrained_weights import published
from tensorfleet.keras.models import Model

decode_predictions = imagenet_utils.decode_predictions
# the model rescales (and normalizes) its input itself
preprocess_input = imagenet_utils.preprocess_nothing

# (kernel, repeats, filters in, filters out, expansion, squeeze-excite ratio, stride,
#  fused) per stage
_B = ((3, 1, 32, 16, 1, 0, 1, True), (3, 2, 16, 32, 4, 0, 2, True),
      (3, 2, 32, 48, 4, 0, 2, True), (3, 3, 48, 96, 4, 0.25, 2, False),
      (3, 5, 96, 112, 6, 0.25, 1, False), (3, 8, 112, 192, 6, 0.25, 2, False))
BLOCKS = {
    "b0": _B, "b1": _B, "b2": _B, "b3": _B,
    "s": ((3, 2, 24, 24, 1, 0, 1, True), (3, 4, 24, 48, 4, 0, 2, True),
          (3, 4, 48, 64, 4, 0, 2, True), (3, 6, 64, 128, 4, 0.25, 2, False),
          (3, 9, 128, 160, 6, 0.25, 1, False), (3, 15, 160, 256, 6, 0.25, 2, False)),
    "m": ((3, 3, 24, 24, 1, 0, 1, True), (3, 5, 24, 48, 4, 0, 2, True),
          (3, 5, 48, 80, 4, 0, 2, True), (3, 7, 80, 160, 4, 0.25, 2, False),
          (3, 14, 160, 176, 6, 0.25, 1, False), (3, 18, 176, 304, 6, 0.25, 2, False),
          (3, 5, 304, 512, 6, 0.25, 1, False)),
    "l": ((3, 4, 32, 32, 1, 0, 1, True), (3, 7, 32, 64, 4, 0, 2, True),
          (3, 7, 64, 96, 4, 0, 2, True), (3, 10, 96, 192, 4, 0.25, 2, False),
          (3, 19, 192, 224, 6, 0.25, 1, False), (3, 25, 224, 384, 6, 0.25, 2, False),
          (3, 7, 384, 640, 6, 0.25, 1, False)),
}





def _init(config: dict) -> Any:
    return initializers.VarianceScaling(**config["config"])


def _bn(x: Any, momentum: float, name: str) -> Any:
    return layers.BatchNormalization(axis=3, momentum=momentum, name=name)(x)


def _squeeze_excite(x: Any, filters: int, filters_in: int, se_ratio: float,
                    activation: str, name: str) -> Any:
    se = layers.GlobalAveragePooling2D(name=name + "se_squeeze")(x)
    se = layers.Reshape((1, 1, filters), name=name + "se_reshape")(se)
    se = layers.Conv2D(max(1, int(filters_in * se_ratio)), 1, padding="same",
                       activation=activation, kernel_initializer=_init(CONV_KERNEL_INITIALIZER),
                       name=name + "se_reduce")(se)
    se = layers.Conv2D(filters, 1, padding="same", activation="sigmoid",
                       kernel_initializer=_init(CONV_KERNEL_INITIALIZER),
                       name=name + "se_expand")(se)
    return layers.Multiply(name=name + "se_excite")([x, se])


def _block(x: Any, fused: bool, filters_in: int, filters_out: int, expand_ratio: int,
           kernel_size: int, strides: int, se_ratio: float, bn_momentum: float,
           activation: str, drop_rate: float, name: str) -> Any:
    """An MBConv block (``fused=False``) or a fused MBConv block."""
    inputs = x
    conv_init = _init(CONV_KERNEL_INITIALIZER)
    filters = filters_in * expand_ratio
    if expand_ratio != 1:
        x = layers.Conv2D(filters, kernel_size if fused else 1, strides=strides if fused else 1,
                          kernel_initializer=conv_init, padding="same", use_bias=False,
                          name=name + "expand_conv")(x)
        x = layers.Activation(activation, name=name + "expand_activation")(
            _bn(x, bn_momentum, name + "expand_bn"))
    if not fused:
        x = layers.DepthwiseConv2D(kernel_size, strides=strides,
                                   depthwise_initializer=conv_init, padding="same",
                                   use_bias=False, name=name + "dwconv2")(x)
        x = layers.Activation(activation, name=name + "activation")(
            _bn(x, bn_momentum, name + "bn"))
    if 0 < se_ratio <= 1:
        x = _squeeze_excite(x, filters, filters_in, se_ratio, activation, name)
    plain_projection = not fused or expand_ratio != 1
    x = layers.Conv2D(filters_out, 1 if plain_projection else kernel_size,
                      strides=1 if plain_projection else strides,
                      kernel_initializer=conv_init, padding="same", use_bias=False,
                      name=name + "project_conv")(x)
    x = _bn(x, bn_momentum, name + "project_bn")
    if fused and expand_ratio == 1:
        x = layers.Activation(activation, name=name + "project_activation")(x)
    if strides == 1 and filters_in == filters_out:
        if drop_rate:
            x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=name + "drop")(x)
        x = layers.Add(name=name + "add")([x, inputs])
    return x


def EfficientNetV2(width_coefficient: float, depth_coefficient: float, default_size: int,
                   dropout_rate: float = 0.2, drop_connect_rate: float = 0.2,
                   depth_divisor: int = 8, min_depth: int = 8, bn_momentum: float = 0.9,
                   activation: str = "swish", blocks_args: Any = "default",
                   model_name: str = "efficientnetv2", include_top: bool = True,
                   weights: Any = "imagenet", input_tensor: Any = None,
                   input_shape: Any = None, pooling: Any = None, classes: int = 1000,
                   classifier_activation: Any = "softmax",
                   include_preprocessing: bool = True) -> Model:
    """An EfficientNetV2 of the given coefficients; ``blocks_args='default'`` takes the
    stage table of ``model_name`` (``efficientnetv2-b0`` ... ``-l``)."""
    if blocks_args == "default":
        key = model_name.rsplit("-", 1)[-1]
        if key not in BLOCKS:
            raise ValueError(f"EfficientNetV2: no stage table for model_name "
                             f"{model_name!r}; give blocks_args")
        blocks_args = BLOCKS[key]
    args.check_weights(weights, include_top, classes, model_name)
    args.check_pooling(pooling)
    args.check_classifier_activation(classifier_activation, weights if include_top else None)
    shape = args.input_shape_for(input_shape, default_size, 32, include_top, weights)
    img_input = args.image_input(input_tensor, shape)

    def round_filters(filters: float) -> int:
        filters *= width_coefficient
        return int(max(min_depth or depth_divisor,
                       int(filters + depth_divisor / 2) // depth_divisor * depth_divisor))

    x = img_input
    if include_preprocessing:
        if model_name.split("-")[-1].startswith("b") and shape[-1] == 3:
            x = layers.Rescaling(scale=1.0 / 255)(x)
            # fixed statistics: constants, not weights (as Keras's Normalization given them)
            x = layers.Lambda(imagenet_utils.normalize_imagenet_unit_range, name="normalization")(x)
        else:
            x = layers.Rescaling(scale=1.0 / 128.0, offset=-1)(x)
    conv_init = _init(CONV_KERNEL_INITIALIZER)
    x = layers.Conv2D(round_filters(blocks_args[0][2]), 3, strides=2,
                      kernel_initializer=conv_init, padding="same", use_bias=False,
                      name="stem_conv")(x)
    x = layers.Activation(activation, name="stem_activation")(_bn(x, bn_momentum, "stem_bn"))
    total = float(sum(b[1] for b in blocks_args))
    b = 0
    for i, (kernel, repeats, f_in, f_out, expand, se_ratio, stride, fused) in \
            enumerate(blocks_args):
        f_in, f_out = round_filters(f_in), round_filters(f_out)
        for j in range(int(math.ceil(depth_coefficient * repeats))):
            x = _block(x, fused, f_in if j == 0 else f_out, f_out, expand, kernel,
                       stride if j == 0 else 1, se_ratio, bn_momentum, activation,
                       drop_connect_rate * b / total, f"block{i + 1}{chr(j + 97)}_")
            b += 1
    x = layers.Conv2D(round_filters(1280), 1, strides=1, kernel_initializer=conv_init,
                      padding="same", use_bias=False, name="top_conv")(x)
    x = layers.Activation(activation, name="top_activation")(_bn(x, bn_momentum, "top_bn"))
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        x = layers.Dense(classes, activation=classifier_activation,
                         kernel_initializer=_init(DENSE_KERNEL_INITIALIZER),
                         bias_initializer="zeros", name="predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D(name="max_pool")(x)
    return args.finish(x, img_input, input_tensor, model_name, weights, include_top,
                       published("efficientnet_v2", model_name + ".h5"),
                       published("efficientnet_v2", model_name + "_notop.h5"))


def _variant(key: str, width: float, depth: float, size: int):
    name = "EfficientNetV2" + key.upper()

    def builder(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
                input_shape: Any = None, pooling: Any = None, classes: int = 1000,
                classifier_activation: Any = "softmax",
                include_preprocessing: bool = True) -> Model:
        return EfficientNetV2(width, depth, size, model_name="efficientnetv2-" + key,
                              include_top=include_top, weights=weights,
                              input_tensor=input_tensor, input_shape=input_shape,
                              pooling=pooling, classes=classes,
                              classifier_activation=classifier_activation,
                              include_preprocessing=include_preprocessing)
    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = (f"{name}: width x{width}, depth x{depth}, {size}x{size} inputs by "
                       f"default.")
    return builder


EfficientNetV2B0 = _variant("b0", 1.0, 1.0, 224)
EfficientNetV2B1 = _variant("b1", 1.0, 1.1, 240)
EfficientNetV2B2 = _variant("b2", 1.1, 1.2, 260)
EfficientNetV2B3 = _variant("b3", 1.2, 1.4, 300)
EfficientNetV2S = _variant("s", 1.0, 1.0, 384)
EfficientNetV2M = _variant("m", 1.0, 1.0, 480)
EfficientNetV2L = _variant("l", 1.0, 1.0, 480)
