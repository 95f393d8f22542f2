"""MobileNetV3 (Howard et al., 2019), Large and Small: inverted residual blocks with
squeeze-and-excitation and hard-swish activations (ReLU and 3x3 kernels throughout in the
``minimalistic`` variants). The input is rescaled to [-1, 1] inside the model unless
``include_preprocessing=False``."""

from __future__ import annotations

import logging
from typing import Any, Callable

from tensorfleet.keras import layers
from tensorfleet.keras.applications import builder_arguments as args
from tensorfleet.keras.applications import imagenet_utils
from tensorfleet.keras.applications.mobile_blocks import correct_pad, make_divisible
from tensorfleet.keras.applications.pretrained_weights import published
from tensorfleet.keras.models import Model

logger = logging.getLogger(__name__)
decode_predictions = imagenet_utils.decode_predictions
# the model rescales (and normalizes) its input itself
preprocess_input = imagenet_utils.preprocess_nothing

# (expansion, filters, kernel ("k": 5 unless minimalistic), stride, squeeze-excite,
#  hard-swish) per block
_LARGE = ((1, 16, 3, 1, False, False), (4, 24, 3, 2, False, False),
          (3, 24, 3, 1, False, False), (3, 40, "k", 2, True, False),
          (3, 40, "k", 1, True, False), (3, 40, "k", 1, True, False),
          (6, 80, 3, 2, False, True), (2.5, 80, 3, 1, False, True),
          (2.3, 80, 3, 1, False, True), (2.3, 80, 3, 1, False, True),
          (6, 112, 3, 1, True, True), (6, 112, 3, 1, True, True),
          (6, 160, "k", 2, True, True), (6, 160, "k", 1, True, True),
          (6, 160, "k", 1, True, True))
_SMALL = ((1, 16, 3, 2, True, False), (72.0 / 16, 24, 3, 2, False, False),
          (88.0 / 24, 24, 3, 1, False, False), (4, 40, "k", 2, True, True),
          (6, 40, "k", 1, True, True), (6, 40, "k", 1, True, True),
          (3, 48, "k", 1, True, True), (3, 48, "k", 1, True, True),
          (6, 96, "k", 2, True, True), (6, 96, "k", 1, True, True),
          (6, 96, "k", 1, True, True))




def _relu(x: Any) -> Any:
    return layers.ReLU()(x)


def _hard_sigmoid(x: Any) -> Any:
    # relu6(x + 3) / 6 == min(max(x / 6 + 0.5, 0), 1)
    return layers.ReLU(1.0)(layers.Rescaling(1.0 / 6.0, offset=0.5)(x))


def _hard_swish(x: Any) -> Any:
    return layers.Multiply()([x, _hard_sigmoid(x)])


def _bn(x: Any, name: str) -> Any:
    return layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name=name)(x)


def _squeeze_excite(inputs: Any, filters: int, prefix: str) -> Any:
    x = layers.GlobalAveragePooling2D(keepdims=True, name=prefix + "squeeze_excite/AvgPool")(
        inputs)
    x = layers.Conv2D(make_divisible(filters * 0.25), 1, padding="same",
                      name=prefix + "squeeze_excite/Conv")(x)
    x = layers.ReLU(name=prefix + "squeeze_excite/Relu")(x)
    x = layers.Conv2D(filters, 1, padding="same", name=prefix + "squeeze_excite/Conv_1")(x)
    return layers.Multiply(name=prefix + "squeeze_excite/Mul")([inputs, _hard_sigmoid(x)])


def _inverted_residual(x: Any, expansion: float, filters: int, kernel_size: int,
                       stride: int, squeeze: bool, activation: Callable[[Any], Any],
                       block_id: int) -> Any:
    shortcut = x
    infilters = x.shape.as_list()[-1]
    prefix = f"expanded_conv_{block_id}/" if block_id else "expanded_conv/"
    if block_id:
        x = layers.Conv2D(make_divisible(infilters * expansion), 1, padding="same",
                          use_bias=False, name=prefix + "expand")(x)
        x = activation(_bn(x, prefix + "expand/BatchNorm"))
    if stride == 2:
        x = layers.ZeroPadding2D(padding=correct_pad(x, kernel_size),
                                 name=prefix + "depthwise/pad")(x)
    x = layers.DepthwiseConv2D(kernel_size, strides=stride, use_bias=False,
                               padding="same" if stride == 1 else "valid",
                               name=prefix + "depthwise")(x)
    x = activation(_bn(x, prefix + "depthwise/BatchNorm"))
    if squeeze:
        x = _squeeze_excite(x, make_divisible(infilters * expansion), prefix)
    x = layers.Conv2D(filters, 1, padding="same", use_bias=False, name=prefix + "project")(x)
    x = _bn(x, prefix + "project/BatchNorm")
    if stride == 1 and infilters == filters:
        x = layers.Add(name=prefix + "Add")([shortcut, x])
    return x


def _mobilenet_v3(blocks: tuple, last_point_ch: int, model_type: str, input_shape: Any,
                  alpha: float, minimalistic: bool, include_top: bool, weights: Any,
                  input_tensor: Any, classes: int, pooling: Any, dropout_rate: float,
                  classifier_activation: Any, include_preprocessing: bool) -> Model:
    args.check_weights(weights, include_top, classes, "MobileNetV3" + model_type.title())
    args.check_pooling(pooling)
    args.check_classifier_activation(classifier_activation, weights if include_top else None)
    if input_tensor is not None and input_shape is None:
        input_shape = tuple(input_tensor.shape.as_list()[1:])
    if input_shape is None:
        input_shape = (None, None, 3)
    input_shape = tuple(input_shape)
    if len(input_shape) != 3:
        raise ValueError(f"`input_shape` must be a tuple of three integers, got {input_shape}")
    rows, cols = input_shape[:2]
    if rows and cols and (rows < 32 or cols < 32):
        raise ValueError(f"Input size must be at least 32x32; Received `input_shape="
                         f"{input_shape}`")
    if weights == "imagenet":
        if (alpha not in (0.75, 1.0)) if not minimalistic else alpha != 1.0:
            raise ValueError("If imagenet weights are being loaded, alpha can be one of "
                             "`0.75`, `1.0` for non minimalistic or `1.0` for minimalistic "
                             "only.")
        if rows != cols or rows != 224:
            logger.warning("input_shape is undefined or non-square, or rows is not 224; "
                           "the weights for 224x224 inputs are loaded")
    kernel, activation = (3, _relu) if minimalistic else (5, _hard_swish)
    img_input = args.image_input(input_tensor, input_shape)
    x = img_input
    if include_preprocessing:
        x = layers.Rescaling(scale=1.0 / 127.5, offset=-1.0)(x)
    x = layers.Conv2D(16, 3, strides=2, padding="same", use_bias=False, name="Conv")(x)
    x = activation(_bn(x, "Conv/BatchNorm"))
    for block_id, (expansion, filters, k, stride, se, swish) in enumerate(blocks):
        x = _inverted_residual(
            x, expansion, make_divisible(filters * alpha), kernel if k == "k" else k, stride,
            se and not minimalistic, activation if swish else _relu, block_id)
    last_conv_ch = make_divisible(x.shape.as_list()[-1] * 6)
    if alpha > 1.0:
        last_point_ch = make_divisible(last_point_ch * alpha)
    x = layers.Conv2D(last_conv_ch, 1, padding="same", use_bias=False, name="Conv_1")(x)
    x = activation(_bn(x, "Conv_1/BatchNorm"))
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Conv2D(last_point_ch, 1, padding="same", use_bias=True, name="Conv_2")(x)
        x = activation(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate)(x)
        x = layers.Conv2D(classes, 1, padding="same", name="Logits")(x)
        x = layers.Flatten()(x)
        x = layers.Activation(classifier_activation, name="Predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D(name="max_pool")(x)
    stem = f"{model_type}{'_minimalistic' if minimalistic else ''}_224_{alpha}_float"
    return args.finish(
        x, img_input, input_tensor, "MobilenetV3" + model_type, weights, include_top,
        published("mobilenet_v3", f"weights_mobilenet_v3_{stem}.h5"),
        published("mobilenet_v3", f"weights_mobilenet_v3_{stem}_no_top_v2.h5"))


def MobileNetV3Small(input_shape: Any = None, alpha: float = 1.0, minimalistic: bool = False,
                     include_top: bool = True, weights: Any = "imagenet",
                     input_tensor: Any = None, classes: int = 1000, pooling: Any = None,
                     dropout_rate: float = 0.2, classifier_activation: Any = "softmax",
                     include_preprocessing: bool = True) -> Model:
    """MobileNetV3-Small (eleven blocks, 1024-channel head)."""
    return _mobilenet_v3(_SMALL, 1024, "small", input_shape, alpha, minimalistic,
                         include_top, weights, input_tensor, classes, pooling, dropout_rate,
                         classifier_activation, include_preprocessing)


def MobileNetV3Large(input_shape: Any = None, alpha: float = 1.0, minimalistic: bool = False,
                     include_top: bool = True, weights: Any = "imagenet",
                     input_tensor: Any = None, classes: int = 1000, pooling: Any = None,
                     dropout_rate: float = 0.2, classifier_activation: Any = "softmax",
                     include_preprocessing: bool = True) -> Model:
    """MobileNetV3-Large (fifteen blocks, 1280-channel head)."""
    return _mobilenet_v3(_LARGE, 1280, "large", input_shape, alpha, minimalistic,
                         include_top, weights, input_tensor, classes, pooling, dropout_rate,
                         classifier_activation, include_preprocessing)
