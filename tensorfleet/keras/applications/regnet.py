"""RegNet (Radosavovic et al., 2020): the X and Y networks of the "Designing Network Design
Spaces" model table, four stages of residual bottleneck blocks with grouped 3x3
convolutions (Y blocks add squeeze-and-excitation). The model rescales its input itself
unless ``include_preprocessing=False``."""

from __future__ import annotations

from typing import Any, Sequence

from tensorfleet.keras import layers
from tensorfleet.keras.applications import builder_arguments as args
from tensorfleet.keras.applications import imagenet_utils
from tensorfleet.keras.applications.pretrained_weights import published
from tensorfleet.keras.models import Model

decode_predictions = imagenet_utils.decode_predictions
# the model rescales (and normalizes) its input itself
preprocess_input = imagenet_utils.preprocess_nothing

# name: (depths, widths, group width, block type) of the published models
MODEL_CONFIGS = {
    "x002": ((1, 1, 4, 7), (24, 56, 152, 368), 8, "X"),
    "x004": ((1, 2, 7, 12), (32, 64, 160, 384), 16, "X"),
    "x006": ((1, 3, 5, 7), (48, 96, 240, 528), 24, "X"),
    "x008": ((1, 3, 7, 5), (64, 128, 288, 672), 16, "X"),
    "x016": ((2, 4, 10, 2), (72, 168, 408, 912), 24, "X"),
    "x032": ((2, 6, 15, 2), (96, 192, 432, 1008), 48, "X"),
    "x040": ((2, 5, 14, 2), (80, 240, 560, 1360), 40, "X"),
    "x064": ((2, 4, 10, 1), (168, 392, 784, 1624), 56, "X"),
    "x080": ((2, 5, 15, 1), (80, 240, 720, 1920), 120, "X"),
    "x120": ((2, 5, 11, 1), (224, 448, 896, 2240), 112, "X"),
    "x160": ((2, 6, 13, 1), (256, 512, 896, 2048), 128, "X"),
    "x320": ((2, 7, 13, 1), (336, 672, 1344, 2520), 168, "X"),
    "y002": ((1, 1, 4, 7), (24, 56, 152, 368), 8, "Y"),
    "y004": ((1, 3, 6, 6), (48, 104, 208, 440), 8, "Y"),
    "y006": ((1, 3, 7, 4), (48, 112, 256, 608), 16, "Y"),
    "y008": ((1, 3, 8, 2), (64, 128, 320, 768), 16, "Y"),
    "y016": ((2, 6, 17, 2), (48, 120, 336, 888), 24, "Y"),
    "y032": ((2, 5, 13, 1), (72, 216, 576, 1512), 24, "Y"),
    "y040": ((2, 6, 12, 2), (128, 192, 512, 1088), 64, "Y"),
    "y064": ((2, 7, 14, 2), (144, 288, 576, 1296), 72, "Y"),
    "y080": ((2, 4, 10, 1), (168, 448, 896, 2016), 56, "Y"),
    "y120": ((2, 5, 11, 1), (224, 448, 896, 2240), 112, "Y"),
    "y160": ((2, 4, 11, 1), (224, 448, 1232, 3024), 112, "Y"),
    "y320": ((2, 5, 12, 1), (232, 696, 1392, 3712), 232, "Y"),
}




def _conv_bn(x: Any, filters: int, kernel: int, name: str, strides: int = 1,
             groups: int = 1) -> Any:
    x = layers.Conv2D(filters, kernel, strides=strides, groups=groups, use_bias=False,
                      padding="same" if kernel > 1 else "valid",
                      kernel_initializer="he_normal", name=name)(x)
    return layers.BatchNormalization(momentum=0.9, epsilon=1e-5, name=name + "_bn")(x)


def _block(x: Any, filters_in: int, filters_out: int, group_width: int, stride: int,
           squeeze_excite: bool, name: str) -> Any:
    """An X block (1x1, grouped 3x3, 1x1 with a residual connection); a Y block adds
    squeeze-and-excitation after the 3x3 convolution."""
    if filters_in != filters_out and stride == 1:
        raise ValueError(f"Input filters({filters_in}) and output filters({filters_out}) "
                         f"are not equal for stride {stride}.")
    if stride != 1:
        skip = layers.Conv2D(filters_out, 1, strides=stride, use_bias=False,
                             kernel_initializer="he_normal", name=name + "_skip_1x1")(x)
        skip = layers.BatchNormalization(momentum=0.9, epsilon=1e-5,
                                         name=name + "_skip_bn")(skip)
    else:
        skip = x
    y = _conv_bn(x, filters_out, 1, name + "_conv_1x1_1")
    y = layers.ReLU(name=name + "_conv_1x1_1_relu")(y)
    y = _conv_bn(y, filters_out, 3, name + "_conv_3x3", strides=stride,
                 groups=filters_out // group_width)
    y = layers.ReLU(name=name + "_conv_3x3_relu")(y)
    if squeeze_excite:
        se = layers.GlobalAveragePooling2D(keepdims=True,
                                           name=name + "_squeeze_and_excite_gap")(y)
        se = layers.Conv2D(int(filters_in * 0.25), 1, activation="relu",
                           kernel_initializer="he_normal",
                           name=name + "_squeeze_and_excite_squeeze")(se)
        se = layers.Conv2D(filters_out, 1, activation="sigmoid",
                           kernel_initializer="he_normal",
                           name=name + "_squeeze_and_excite_excite")(se)
        y = layers.Multiply(name=name + "_squeeze_and_excite_multiply")([se, y])
    y = _conv_bn(y, filters_out, 1, name + "_conv_1x1_2")
    y = layers.Add(name=name + "_add")([y, skip])
    return layers.ReLU(name=name + "_exit_relu")(y)


def RegNet(depths: Sequence[int], widths: Sequence[int], group_width: int, block_type: str,
           default_size: int, model_name: str = "regnet", include_preprocessing: bool = True,
           include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
           input_shape: Any = None, pooling: Any = None, classes: int = 1000,
           classifier_activation: Any = "softmax") -> Model:
    """A RegNet of four stages of ``depths`` blocks and ``widths`` channels.

    Raises:
      ValueError: a ``block_type`` other than ``'X'`` or ``'Y'``, or the arguments every
        application refuses.
    """
    if block_type not in ("X", "Y"):
        raise ValueError(f"block_type must be 'X' or 'Y', got {block_type!r}")
    args.check_weights(weights, include_top, classes, model_name)
    args.check_pooling(pooling)
    args.check_classifier_activation(classifier_activation, weights if include_top else None)
    shape = args.input_shape_for(input_shape, default_size, 32, include_top, weights)
    img_input = args.image_input(input_tensor, shape)
    x = img_input
    if include_preprocessing:
        x = layers.Rescaling(scale=1.0 / 255.0, name=model_name + "_prestem_rescaling")(x)
    x = layers.Conv2D(32, 3, strides=2, use_bias=False, padding="same",
                      kernel_initializer="he_normal", name=model_name + "_stem_conv")(x)
    x = layers.BatchNormalization(momentum=0.9, epsilon=1e-5, name=model_name + "_stem_bn")(x)
    x = layers.ReLU(name=model_name + "_stem_relu")(x)
    filters_in = 32
    for stage, (depth, width) in enumerate(zip(depths, widths)):
        name = f"{model_name}_Stage_{stage}_{block_type}Block"
        x = _block(x, filters_in, width, group_width, 2, block_type == "Y", f"{name}_0")
        for i in range(1, depth):
            x = _block(x, width, width, group_width, 1, block_type == "Y", f"{name}_{i}")
        filters_in = width
    if include_top:
        x = layers.GlobalAveragePooling2D(name=model_name + "_head_gap")(x)
        x = layers.Dense(classes, activation=classifier_activation,
                         name=model_name + "_head_dense")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D()(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D()(x)
    return args.finish(x, img_input, input_tensor, model_name, weights, include_top,
                       published("regnet", model_name + ".h5"),
                       published("regnet", model_name + "_notop.h5"))


def _variant(key: str):
    name = "RegNet" + key.upper()
    depths, widths, group_width, block_type = MODEL_CONFIGS[key]

    def builder(model_name: str = "regnet" + key, include_top: bool = True,
                include_preprocessing: bool = True, weights: Any = "imagenet",
                input_tensor: Any = None, input_shape: Any = None, pooling: Any = None,
                classes: int = 1000, classifier_activation: Any = "softmax") -> Model:
        return RegNet(depths, widths, group_width, block_type, 224, model_name,
                      include_preprocessing, include_top, weights, input_tensor, input_shape,
                      pooling, classes, classifier_activation)
    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = (f"{name}: stages of {depths} {block_type} blocks, {widths} channels, "
                       f"groups of {group_width} channels in the 3x3 convolutions.")
    return builder


RegNetX002 = _variant("x002")
RegNetX004 = _variant("x004")
RegNetX006 = _variant("x006")
RegNetX008 = _variant("x008")
RegNetX016 = _variant("x016")
RegNetX032 = _variant("x032")
RegNetX040 = _variant("x040")
RegNetX064 = _variant("x064")
RegNetX080 = _variant("x080")
RegNetX120 = _variant("x120")
RegNetX160 = _variant("x160")
RegNetX320 = _variant("x320")
RegNetY002 = _variant("y002")
RegNetY004 = _variant("y004")
RegNetY006 = _variant("y006")
RegNetY008 = _variant("y008")
RegNetY016 = _variant("y016")
RegNetY032 = _variant("y032")
RegNetY040 = _variant("y040")
RegNetY064 = _variant("y064")
RegNetY080 = _variant("y080")
RegNetY120 = _variant("y120")
RegNetY160 = _variant("y160")
RegNetY320 = _variant("y320")
