"""ResNet-RS (Bello et al., 2021, "Revisiting ResNets"): ResNet-D stems and shortcuts
with squeeze-and-excitation bottlenecks and stochastic depth, at depths 50 to 420. The
model rescales and normalizes its input itself unless ``include_preprocessing=False``.
ImageNet weights exist for several training resolutions (``weights='imagenet-i160'``
...); ``'imagenet'`` picks the largest."""

from __future__ import annotations

import os
from typing import Any

from tensorfleet.keras import initializers, layers
from tensorfleet.keras.applications import builder_arguments as args
from tensorfleet.keras.applications import imagenet_utils
from tensorfleet.keras.applications.pretrained_weights import published
from tensorfleet.keras.models import Model

decode_predictions = imagenet_utils.decode_predictions
# the model rescales (and normalizes) its input itself
preprocess_input = imagenet_utils.preprocess_nothing

# depth: the training resolutions of the published weights
DEPTH_TO_WEIGHT_VARIANTS = {50: (160,), 101: (160, 192), 152: (192, 224, 256), 200: (256,),
                            270: (256,), 350: (256, 320), 420: (320,)}
# depth: blocks per stage (the stages have 64, 128, 256 and 512 bottleneck filters)
BLOCK_ARGS = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3), 152: (3, 8, 36, 3),
              200: (3, 24, 36, 3), 270: (4, 29, 53, 4), 350: (4, 36, 72, 4),
              420: (4, 44, 87, 4)}





def _conv(x: Any, filters: int, kernel_size: int, strides: int, name: str) -> Any:
    """A convolution padded independently of the input size when strided."""
    if strides > 1:
        begin = (kernel_size - 1) // 2
        end = kernel_size - 1 - begin
        x = layers.ZeroPadding2D(padding=((begin, end), (begin, end)))(x)
    return layers.Conv2D(filters, kernel_size, strides=strides,
                         padding="same" if strides == 1 else "valid", use_bias=False,
                         kernel_initializer=initializers.VarianceScaling(
                             scale=2.0, mode="fan_out", distribution="truncated_normal"),
                         name=name)(x)


def _bn(x: Any, momentum: float, epsilon: float, name: str) -> Any:
    return layers.BatchNormalization(axis=3, momentum=momentum, epsilon=epsilon, name=name)(x)


def _bottleneck(x: Any, filters: int, strides: int, use_projection: bool, momentum: float,
                epsilon: float, activation: str, se_ratio: float, drop_rate: float,
                name: str) -> Any:
    shortcut = x
    if use_projection:
        if strides == 2:
            shortcut = layers.AveragePooling2D(2, strides=2, padding="same",
                                               name=name + "_projection_pooling")(x)
            shortcut = _conv(shortcut, filters * 4, 1, 1, name + "_projection_conv")
        else:
            shortcut = _conv(x, filters * 4, 1, strides, name + "_projection_conv")
        shortcut = _bn(shortcut, momentum, epsilon, name + "_projection_batch_norm")
    y = _conv(x, filters, 1, 1, name + "_conv_1")
    y = layers.Activation(activation, name=name + "_act_1")(
        _bn(y, momentum, epsilon, name + "batch_norm_1"))
    y = _conv(y, filters, 3, strides, name + "_conv_2")
    y = layers.Activation(activation, name=name + "_act_2")(
        _bn(y, momentum, epsilon, name + "_batch_norm_2"))
    y = _conv(y, filters * 4, 1, 1, name + "_conv_3")
    y = _bn(y, momentum, epsilon, name + "_batch_norm_3")
    if 0 < se_ratio < 1:
        se_name = name + "_se"
        se = layers.GlobalAveragePooling2D(name=se_name + "_se_squeeze")(y)
        se = layers.Reshape((1, 1, filters * 4), name=se_name + "_se_reshape")(se)
        conv_init = initializers.VarianceScaling(scale=2.0, mode="fan_out",
                                                 distribution="truncated_normal")
        se = layers.Conv2D(max(1, int(filters * 4 * se_ratio)), 1, padding="same",
                           activation="relu", kernel_initializer=conv_init,
                           name=se_name + "_se_reduce")(se)
        se = layers.Conv2D(filters * 4, 1, padding="same", activation="sigmoid",
                           kernel_initializer=conv_init, name=se_name + "_se_expand")(se)
        y = layers.Multiply(name=se_name + "_se_excite")([y, se])
    if drop_rate:
        y = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=name + "_drop")(y)
    y = layers.Add()([y, shortcut])
    return layers.Activation(activation, name=name + "_output_act")(y)


def ResNetRS(depth: int, input_shape: Any = None, bn_momentum: float = 0.0,
             bn_epsilon: float = 1e-5, activation: str = "relu", se_ratio: float = 0.25,
             dropout_rate: float = 0.25, drop_connect_rate: float = 0.2,
             include_top: bool = True, block_args: Any = None,
             model_name: str = "resnet-rs", pooling: Any = None, weights: Any = "imagenet",
             input_tensor: Any = None, classes: int = 1000,
             classifier_activation: Any = "softmax",
             include_preprocessing: bool = True) -> Model:
    """A ResNet-RS of ``depth`` (50, 101, 152, 200, 270, 350 or 420) or of the stage sizes
    ``block_args``.

    Raises:
      ValueError: an unknown depth, or a ``weights`` other than ``None``, ``'imagenet'``,
        ``'imagenet-i<size>'`` of a published size, or an existing file.
    """
    if depth not in BLOCK_ARGS:
        raise ValueError(f"ResNetRS: depth must be one of {sorted(BLOCK_ARGS)}, got {depth}")
    sizes = DEPTH_TO_WEIGHT_VARIANTS[depth]
    if weights == "imagenet":
        weights = f"imagenet-i{max(sizes)}"
    allowed = [f"imagenet-i{s}" for s in sizes]
    if not (weights is None or weights in allowed or
            (isinstance(weights, str) and os.path.exists(weights))):
        raise ValueError(f"The `weights` argument should be either `None` (random "
                         f"initialization), `'imagenet'` (pre-training on ImageNet, with "
                         f"highest available input shape), or the path to the weights file "
                         f"to be loaded. For ResNetRS{depth} the following weight variants "
                         f"are available {allowed} (default=highest). Received "
                         f"weights={weights}")
    if weights in allowed and include_top and classes != 1000:
        raise ValueError(f"If using `weights` as `'imagenet'` or any of {allowed} with "
                         f"`include_top` as true, `classes` should be 1000. Received "
                         f"classes={classes}")
    args.check_pooling(pooling)
    pretrained = weights in allowed
    args.check_classifier_activation(classifier_activation,
                                     "imagenet" if pretrained and include_top else None)
    shape = args.input_shape_for(input_shape, 224, 32, include_top, weights)
    img_input = args.image_input(input_tensor, shape)
    x = img_input
    if include_preprocessing:
        x = layers.Rescaling(scale=1.0 / 255)(x)
        if shape[-1] == 3:
            # fixed statistics: constants, not weights (as Keras's Normalization given them)
            x = layers.Lambda(imagenet_utils.normalize_imagenet_unit_range, name="normalization")(x)
    for i, (filters, strides) in enumerate(((32, 2), (32, 1), (64, 1), (64, 2)), start=1):
        x = _conv(x, filters, 3, strides, f"stem_1_stem_conv_{i}")
        x = layers.Activation(activation, name=f"stem_1_stem_act_{i}")(
            _bn(x, bn_momentum, bn_epsilon, f"stem_1_stem_batch_norm_{i}"))
    stages = block_args if block_args is not None else BLOCK_ARGS[depth]
    for i, repeats in enumerate(stages):
        drop = drop_connect_rate * float(i + 2) / (len(stages) + 1)
        name = f"BlockGroup{i + 2}_"
        filters = 64 * 2 ** i
        x = _bottleneck(x, filters, 1 if i == 0 else 2, True, bn_momentum, bn_epsilon,
                        activation, se_ratio, drop, name + "_block_0_")
        for j in range(1, repeats):
            x = _bottleneck(x, filters, 1, False, bn_momentum, bn_epsilon, activation,
                            se_ratio, drop, name + f"_block_{j}_")
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D(name="max_pool")(x)
    if pretrained:
        stem = f"{model_name}-{weights.split('-')[-1]}"
        top, notop = (published("resnet_rs", stem + ".h5"),
                      published("resnet_rs", stem + "_notop.h5"))
        weights = "imagenet"
    else:
        top = notop = None
    return args.finish(x, img_input, input_tensor, model_name, weights, include_top, top,
                       notop)


def _variant(depth: int, dropout_rate: float, drop_connect_rate: float):
    name = f"ResNetRS{depth}"

    def builder(include_top: bool = True, weights: Any = "imagenet", classes: int = 1000,
                input_shape: Any = None, input_tensor: Any = None, pooling: Any = None,
                classifier_activation: Any = "softmax",
                include_preprocessing: bool = True) -> Model:
        return ResNetRS(depth, input_shape=input_shape, dropout_rate=dropout_rate,
                        drop_connect_rate=drop_connect_rate, include_top=include_top,
                        model_name=f"resnet-rs-{depth}", pooling=pooling, weights=weights,
                        input_tensor=input_tensor, classes=classes,
                        classifier_activation=classifier_activation,
                        include_preprocessing=include_preprocessing)
    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = (f"{name}: stages of {BLOCK_ARGS[depth]} bottlenecks; ImageNet "
                       f"weights trained at {DEPTH_TO_WEIGHT_VARIANTS[depth]} pixels.")
    return builder


ResNetRS50 = _variant(50, 0.25, 0.0)
ResNetRS101 = _variant(101, 0.25, 0.0)
ResNetRS152 = _variant(152, 0.25, 0.0)
ResNetRS200 = _variant(200, 0.25, 0.1)
ResNetRS270 = _variant(270, 0.25, 0.1)
ResNetRS350 = _variant(350, 0.4, 0.1)
ResNetRS420 = _variant(420, 0.4, 0.1)
