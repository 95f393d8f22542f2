"""EfficientNet B0-B7 (Tan and Le, 2019): MBConv blocks (expansion, depthwise
convolution, squeeze-and-excitation, projection) scaled in width, depth and resolution by
a compound coefficient. The model rescales and normalizes its input itself."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tensorfleet.keras import initializers, layers
from tensorfleet.keras.applications import builder_arguments as args
from tensorfleet.keras.applications import imagenet_utils
from tensorfleet.keras.applications.mobile_blocks import correct_pad
from tensorfleet.keras.applications.pretrained_weights import WeightsFile
from tensorfleet.keras.models import Model

decode_predictions = imagenet_utils.decode_predictions
# the model rescales (and normalizes) its input itself
preprocess_input = imagenet_utils.preprocess_nothing

_BASE_URL = "https://storage.googleapis.com/keras-applications/"
_IMAGENET_STDDEV_RGB = (0.229, 0.224, 0.225)
# (kernel, repeats, filters in, filters out, expansion, stride) of the seven stages
_STAGES = ((3, 1, 32, 16, 1, 1), (3, 2, 16, 24, 6, 2), (5, 2, 24, 40, 6, 2),
           (3, 3, 40, 80, 6, 2), (5, 3, 80, 112, 6, 1), (5, 4, 112, 192, 6, 2),
           (3, 1, 192, 320, 6, 1))
CONV_KERNEL_INITIALIZER = {"class_name": "VarianceScaling",
                           "config": {"scale": 2.0, "mode": "fan_out",
                                      "distribution": "truncated_normal"}}
DENSE_KERNEL_INITIALIZER = {"class_name": "VarianceScaling",
                            "config": {"scale": 1.0 / 3.0, "mode": "fan_out",
                                       "distribution": "uniform"}}




def _initializer(config: dict) -> Any:
    return initializers.VarianceScaling(**config["config"])


def _scale_by_inverse_sqrt_std(x: Any) -> Any:
    return x * np.array([1.0 / math.sqrt(s) for s in _IMAGENET_STDDEV_RGB],
                        np.float32).reshape(1, 1, 1, 3)


def mbconv(x: Any, activation: str, drop_rate: float, name: str, filters_in: int,
           filters_out: int, kernel_size: int, strides: int, expand_ratio: int,
           se_ratio: float = 0.25, id_skip: bool = True) -> Any:
    """One MBConv block: 1x1 expansion (unless ``expand_ratio`` is 1), depthwise
    convolution, squeeze-and-excitation, 1x1 projection, and the residual connection
    (with stochastic depth ``drop_rate``) when shapes allow."""
    inputs = x
    conv_init = _initializer(CONV_KERNEL_INITIALIZER)
    filters = filters_in * expand_ratio
    if expand_ratio != 1:
        x = layers.Conv2D(filters, 1, padding="same", use_bias=False,
                          kernel_initializer=conv_init, name=name + "expand_conv")(x)
        x = layers.BatchNormalization(axis=3, name=name + "expand_bn")(x)
        x = layers.Activation(activation, name=name + "expand_activation")(x)
    if strides == 2:
        x = layers.ZeroPadding2D(padding=correct_pad(x, kernel_size),
                                 name=name + "dwconv_pad")(x)
    x = layers.DepthwiseConv2D(kernel_size, strides=strides,
                               padding="valid" if strides == 2 else "same", use_bias=False,
                               depthwise_initializer=conv_init, name=name + "dwconv")(x)
    x = layers.BatchNormalization(axis=3, name=name + "bn")(x)
    x = layers.Activation(activation, name=name + "activation")(x)
    if 0 < se_ratio <= 1:
        se = layers.GlobalAveragePooling2D(name=name + "se_squeeze")(x)
        se = layers.Reshape((1, 1, filters), name=name + "se_reshape")(se)
        se = layers.Conv2D(max(1, int(filters_in * se_ratio)), 1, padding="same",
                           activation=activation, kernel_initializer=conv_init,
                           name=name + "se_reduce")(se)
        se = layers.Conv2D(filters, 1, padding="same", activation="sigmoid",
                           kernel_initializer=conv_init, name=name + "se_expand")(se)
        x = layers.Multiply(name=name + "se_excite")([x, se])
    x = layers.Conv2D(filters_out, 1, padding="same", use_bias=False,
                      kernel_initializer=conv_init, name=name + "project_conv")(x)
    x = layers.BatchNormalization(axis=3, name=name + "project_bn")(x)
    if id_skip and strides == 1 and filters_in == filters_out:
        if drop_rate > 0:
            x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=name + "drop")(x)
        x = layers.Add(name=name + "add")([x, inputs])
    return x


def EfficientNet(width_coefficient: float, depth_coefficient: float, default_size: int,
                 dropout_rate: float = 0.2, drop_connect_rate: float = 0.2,
                 depth_divisor: int = 8, activation: str = "swish",
                 model_name: str = "efficientnet", include_top: bool = True,
                 weights: Any = "imagenet", input_tensor: Any = None, input_shape: Any = None,
                 pooling: Any = None, classes: int = 1000,
                 classifier_activation: Any = "softmax") -> Model:
    """An EfficientNet of the given width and depth coefficients."""
    args.check_weights(weights, include_top, classes, model_name)
    args.check_pooling(pooling)
    args.check_classifier_activation(classifier_activation, weights if include_top else None)
    shape = args.input_shape_for(input_shape, default_size, 32, include_top, weights)
    img_input = args.image_input(input_tensor, shape)

    def round_filters(filters: float) -> int:
        filters *= width_coefficient
        new = max(depth_divisor, int(filters + depth_divisor / 2) // depth_divisor
                  * depth_divisor)
        return int(new + depth_divisor if new < 0.9 * filters else new)

    def round_repeats(repeats: int) -> int:
        return int(math.ceil(depth_coefficient * repeats))

    x = layers.Rescaling(1.0 / 255.0)(img_input)
    x = layers.Normalization(axis=3, mean=np.zeros(3), variance=np.ones(3))(x)
    if weights == "imagenet":
        # the published weights were trained dividing by the variance, the Normalization
        # layer divides by its square root: the remaining factor is applied here, as
        # Keras applies it
        x = layers.Lambda(_scale_by_inverse_sqrt_std)(x)
    conv_init = _initializer(CONV_KERNEL_INITIALIZER)
    x = layers.ZeroPadding2D(padding=correct_pad(x, 3), name="stem_conv_pad")(x)
    x = layers.Conv2D(round_filters(32), 3, strides=2, padding="valid", use_bias=False,
                      kernel_initializer=conv_init, name="stem_conv")(x)
    x = layers.BatchNormalization(axis=3, name="stem_bn")(x)
    x = layers.Activation(activation, name="stem_activation")(x)
    total = float(sum(round_repeats(s[1]) for s in _STAGES))
    b = 0
    for i, (kernel, repeats, f_in, f_out, expand, stride) in enumerate(_STAGES):
        f_in, f_out = round_filters(f_in), round_filters(f_out)
        for j in range(round_repeats(repeats)):
            x = mbconv(x, activation, drop_connect_rate * b / total,
                       f"block{i + 1}{chr(j + 97)}_", f_in if j == 0 else f_out, f_out,
                       kernel, stride if j == 0 else 1, expand)
            b += 1
    x = layers.Conv2D(round_filters(1280), 1, padding="same", use_bias=False,
                      kernel_initializer=conv_init, name="top_conv")(x)
    x = layers.BatchNormalization(axis=3, name="top_bn")(x)
    x = layers.Activation(activation, name="top_activation")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        x = layers.Dense(classes, activation=classifier_activation,
                         kernel_initializer=_initializer(DENSE_KERNEL_INITIALIZER),
                         name="predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D(name="max_pool")(x)
    return args.finish(x, img_input, input_tensor, model_name, weights, include_top,
                       WeightsFile(model_name + ".h5", _BASE_URL + model_name + ".h5"),
                       WeightsFile(model_name + "_notop.h5",
                                   _BASE_URL + model_name + "_notop.h5"))


def _variant(name: str, width: float, depth: float, size: int, dropout: float):
    def builder(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
                input_shape: Any = None, pooling: Any = None, classes: int = 1000,
                classifier_activation: Any = "softmax", **kwargs: Any) -> Model:
        if kwargs:
            raise ValueError(f"{name}: unknown arguments {sorted(kwargs)}")
        return EfficientNet(width, depth, size, dropout, model_name=name.lower(),
                            include_top=include_top, weights=weights,
                            input_tensor=input_tensor, input_shape=input_shape,
                            pooling=pooling, classes=classes,
                            classifier_activation=classifier_activation)
    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = (f"{name}: width x{width}, depth x{depth}, {size}x{size} inputs by "
                       f"default, dropout {dropout} before the classifier.")
    return builder


EfficientNetB0 = _variant("EfficientNetB0", 1.0, 1.0, 224, 0.2)
EfficientNetB1 = _variant("EfficientNetB1", 1.0, 1.1, 240, 0.2)
EfficientNetB2 = _variant("EfficientNetB2", 1.1, 1.2, 260, 0.3)
EfficientNetB3 = _variant("EfficientNetB3", 1.2, 1.4, 300, 0.3)
EfficientNetB4 = _variant("EfficientNetB4", 1.4, 1.8, 380, 0.4)
EfficientNetB5 = _variant("EfficientNetB5", 1.6, 2.2, 456, 0.4)
EfficientNetB6 = _variant("EfficientNetB6", 1.8, 2.6, 528, 0.5)
EfficientNetB7 = _variant("EfficientNetB7", 2.0, 3.1, 600, 0.5)
