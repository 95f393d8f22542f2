"""ResNet (He et al., 2015) with bottleneck residual blocks, in its original form
(batch norm and ReLU after each convolution: ResNet50/101/152) and the pre-activation
form of ResNetV2 (He et al., 2016: batch norm and ReLU before each convolution)."""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from tensorfleet.keras import layers
from tensorfleet.keras.applications import builder_arguments as args
from tensorfleet.keras.applications import imagenet_utils
from tensorfleet.keras.applications.pretrained_weights import published
from tensorfleet.keras.models import Model

decode_predictions = imagenet_utils.decode_predictions
_EPS = 1.001e-5


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """ResNet's input convention: BGR, ImageNet channel means subtracted (``caffe``)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


def _bn(x: Any, name: str) -> Any:
    return layers.BatchNormalization(axis=3, epsilon=_EPS, name=name)(x)


def bottleneck(x: Any, filters: int, stride: int = 1, conv_shortcut: bool = True,
               name: str = "") -> Any:
    """The original bottleneck: 1x1, 3x3, 1x1 (4 * ``filters``) convolutions, each
    followed by batch norm, added to the shortcut, then ReLU."""
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(x)
        shortcut = _bn(shortcut, name + "_0_bn")
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=name + "_1_conv")(x)
    x = layers.Activation("relu", name=name + "_1_relu")(_bn(x, name + "_1_bn"))
    x = layers.Conv2D(filters, 3, padding="same", name=name + "_2_conv")(x)
    x = layers.Activation("relu", name=name + "_2_relu")(_bn(x, name + "_2_bn"))
    x = layers.Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    x = _bn(x, name + "_3_bn")
    x = layers.Add(name=name + "_add")([shortcut, x])
    return layers.Activation("relu", name=name + "_out")(x)


def stack(x: Any, filters: int, blocks: int, stride1: int = 2, name: str = "") -> Any:
    """``blocks`` original bottlenecks; the first strides by ``stride1``."""
    x = bottleneck(x, filters, stride=stride1, name=name + "_block1")
    for i in range(2, blocks + 1):
        x = bottleneck(x, filters, conv_shortcut=False, name=f"{name}_block{i}")
    return x


def preact_bottleneck(x: Any, filters: int, stride: int = 1, conv_shortcut: bool = False,
                      name: str = "") -> Any:
    """The pre-activation bottleneck of ResNetV2; it strides in its 3x3 convolution."""
    preact = layers.Activation("relu", name=name + "_preact_relu")(
        _bn(x, name + "_preact_bn"))
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride,
                                 name=name + "_0_conv")(preact)
    else:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = layers.Conv2D(filters, 1, strides=1, use_bias=False, name=name + "_1_conv")(preact)
    x = layers.Activation("relu", name=name + "_1_relu")(_bn(x, name + "_1_bn"))
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name=name + "_2_pad")(x)
    x = layers.Conv2D(filters, 3, strides=stride, use_bias=False, name=name + "_2_conv")(x)
    x = layers.Activation("relu", name=name + "_2_relu")(_bn(x, name + "_2_bn"))
    x = layers.Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    return layers.Add(name=name + "_out")([shortcut, x])


def preact_stack(x: Any, filters: int, blocks: int, stride1: int = 2,
                 name: str = "") -> Any:
    """``blocks`` pre-activation bottlenecks; the last strides by ``stride1``."""
    x = preact_bottleneck(x, filters, conv_shortcut=True, name=name + "_block1")
    for i in range(2, blocks):
        x = preact_bottleneck(x, filters, name=f"{name}_block{i}")
    return preact_bottleneck(x, filters, stride=stride1, name=f"{name}_block{blocks}")


def resnet(stack_fn: Callable[[Any], Any], preact: bool, use_bias: bool, model_name: str,
           include_top: bool, weights: Any, input_tensor: Any, input_shape: Any,
           pooling: Any, classes: int, classifier_activation: Any,
           weights_folder: str = "resnet") -> Model:
    """The ResNet stem (7x7/2 convolution, 3x3/2 max pooling), ``stack_fn``'s stages and
    the head; ``preact`` puts the stem's batch norm after the stages."""
    args.check_weights(weights, include_top, classes, model_name)
    args.check_pooling(pooling)
    args.check_classifier_activation(classifier_activation, weights if include_top else None)
    shape = args.input_shape_for(input_shape, 224, 32, include_top, weights)
    img_input = args.image_input(input_tensor, shape)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=use_bias, name="conv1_conv")(x)
    if not preact:
        x = layers.Activation("relu", name="conv1_relu")(_bn(x, "conv1_bn"))
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    x = stack_fn(x)
    if preact:
        x = layers.Activation("relu", name="post_relu")(_bn(x, "post_bn"))
    x = args.pooled_head(x, include_top, pooling, classes, classifier_activation)
    return args.finish(
        x, img_input, input_tensor, model_name, weights, include_top,
        published(weights_folder, f"{model_name}_weights_tf_dim_ordering_tf_kernels.h5"),
        published(weights_folder,
                  f"{model_name}_weights_tf_dim_ordering_tf_kernels_notop.h5"))


def _stages(blocks: Sequence[int]) -> Callable[[Any], Any]:
    def stack_fn(x: Any) -> Any:
        x = stack(x, 64, blocks[0], stride1=1, name="conv2")
        for i, (filters, n) in enumerate(zip((128, 256, 512), blocks[1:]), start=3):
            x = stack(x, filters, n, name=f"conv{i}")
        return x
    return stack_fn


def ResNet50(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
             input_shape: Any = None, pooling: Any = None, classes: int = 1000,
             classifier_activation: Any = "softmax", **kwargs: Any) -> Model:
    """ResNet-50: stages of 3, 4, 6 and 3 bottlenecks."""
    _no_kwargs("ResNet50", kwargs)
    return resnet(_stages((3, 4, 6, 3)), False, True, "resnet50", include_top, weights,
                  input_tensor, input_shape, pooling, classes, classifier_activation)


def ResNet101(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
              input_shape: Any = None, pooling: Any = None, classes: int = 1000,
              classifier_activation: Any = "softmax", **kwargs: Any) -> Model:
    """ResNet-101: stages of 3, 4, 23 and 3 bottlenecks."""
    _no_kwargs("ResNet101", kwargs)
    return resnet(_stages((3, 4, 23, 3)), False, True, "resnet101", include_top, weights,
                  input_tensor, input_shape, pooling, classes, classifier_activation)


def ResNet152(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
              input_shape: Any = None, pooling: Any = None, classes: int = 1000,
              classifier_activation: Any = "softmax", **kwargs: Any) -> Model:
    """ResNet-152: stages of 3, 8, 36 and 3 bottlenecks."""
    _no_kwargs("ResNet152", kwargs)
    return resnet(_stages((3, 8, 36, 3)), False, True, "resnet152", include_top, weights,
                  input_tensor, input_shape, pooling, classes, classifier_activation)


def _no_kwargs(builder: str, kwargs: dict) -> None:
    # Keras's builders take **kwargs only to refuse them (the old `layers=` argument)
    if kwargs:
        raise ValueError(f"{builder}: unknown arguments {sorted(kwargs)}")
