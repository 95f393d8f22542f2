"""NASNet-A (Zoph et al., 2018, "Learning Transferable Architectures"): stacks of the
normal and reduction cells found by architecture search, Mobile (4 @ 1056, 224x224) and
Large (6 @ 4032, 331x331)."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from tensorfleet.keras import layers
from tensorfleet.keras.applications import builder_arguments as args
from tensorfleet.keras.applications import imagenet_utils
from tensorfleet.keras.applications.mobile_blocks import correct_pad
from tensorfleet.keras.applications.pretrained_weights import published
from tensorfleet.keras.models import Model

decode_predictions = imagenet_utils.decode_predictions


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """NASNet's input convention: pixels scaled to [-1, 1] (``tf``)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def _bn(x: Any, name: str) -> Any:
    return layers.BatchNormalization(axis=-1, momentum=0.9997, epsilon=1e-3, name=name)(x)


def _conv1x1(x: Any, filters: int, name: str) -> Any:
    return layers.Conv2D(filters, 1, padding="same", use_bias=False,
                         kernel_initializer="he_normal", name=name)(x)


def _separable_block(ip: Any, filters: int, kernel_size: Tuple[int, int] = (3, 3),
                     strides: Tuple[int, int] = (1, 1), block_id: str = "") -> Any:
    """ReLU, separable convolution (strided once if asked), batch norm, twice."""
    x = layers.Activation("relu")(ip)
    if strides == (2, 2):
        x = layers.ZeroPadding2D(padding=correct_pad(x, kernel_size),
                                 name=f"separable_conv_1_pad_{block_id}")(x)
    x = layers.SeparableConv2D(filters, kernel_size, strides=strides,
                               padding="valid" if strides == (2, 2) else "same",
                               use_bias=False, kernel_initializer="he_normal",
                               name=f"separable_conv_1_{block_id}")(x)
    x = layers.Activation("relu")(_bn(x, f"separable_conv_1_bn_{block_id}"))
    x = layers.SeparableConv2D(filters, kernel_size, padding="same", use_bias=False,
                               kernel_initializer="he_normal",
                               name=f"separable_conv_2_{block_id}")(x)
    return _bn(x, f"separable_conv_2_bn_{block_id}")


def _adjust(p: Any, ip: Any, filters: int, block_id: str) -> Any:
    """The previous cell's output ``p`` brought to ``ip``'s resolution and ``filters``."""
    if p is None:
        return ip
    p_shape, ip_shape = p.shape.as_list(), ip.shape.as_list()
    if p_shape[-2] != ip_shape[-2]:
        p = layers.Activation("relu", name=f"adjust_relu_1_{block_id}")(p)
        p1 = layers.AveragePooling2D(1, strides=2, padding="valid",
                                     name=f"adjust_avg_pool_1_{block_id}")(p)
        p1 = _conv1x1(p1, filters // 2, f"adjust_conv_1_{block_id}")
        p2 = layers.ZeroPadding2D(padding=((0, 1), (0, 1)))(p)
        p2 = layers.Cropping2D(cropping=((1, 0), (1, 0)))(p2)
        p2 = layers.AveragePooling2D(1, strides=2, padding="valid",
                                     name=f"adjust_avg_pool_2_{block_id}")(p2)
        p2 = _conv1x1(p2, filters // 2, f"adjust_conv_2_{block_id}")
        p = layers.Concatenate(axis=-1)([p1, p2])
        return _bn(p, f"adjust_bn_{block_id}")
    if p_shape[-1] != filters:
        p = layers.Activation("relu")(p)
        p = _conv1x1(p, filters, f"adjust_conv_projection_{block_id}")
        return _bn(p, f"adjust_bn_{block_id}")
    return p


def _normal_cell(ip: Any, p: Any, filters: int, block_id: str) -> Tuple[Any, Any]:
    p = _adjust(p, ip, filters, block_id)
    h = layers.Activation("relu")(ip)
    h = _bn(_conv1x1(h, filters, f"normal_conv_1_{block_id}"), f"normal_bn_1_{block_id}")
    x1 = layers.Add(name=f"normal_add_1_{block_id}")([
        _separable_block(h, filters, (5, 5), block_id=f"normal_left1_{block_id}"),
        _separable_block(p, filters, block_id=f"normal_right1_{block_id}")])
    x2 = layers.Add(name=f"normal_add_2_{block_id}")([
        _separable_block(p, filters, (5, 5), block_id=f"normal_left2_{block_id}"),
        _separable_block(p, filters, (3, 3), block_id=f"normal_right2_{block_id}")])
    x3 = layers.AveragePooling2D(3, strides=1, padding="same",
                                 name=f"normal_left3_{block_id}")(h)
    x3 = layers.Add(name=f"normal_add_3_{block_id}")([x3, p])
    x4 = layers.Add(name=f"normal_add_4_{block_id}")([
        layers.AveragePooling2D(3, strides=1, padding="same",
                                name=f"normal_left4_{block_id}")(p),
        layers.AveragePooling2D(3, strides=1, padding="same",
                                name=f"normal_right4_{block_id}")(p)])
    x5 = _separable_block(h, filters, block_id=f"normal_left5_{block_id}")
    x5 = layers.Add(name=f"normal_add_5_{block_id}")([x5, h])
    x = layers.Concatenate(axis=-1, name=f"normal_concat_{block_id}")([p, x1, x2, x3, x4, x5])
    return x, ip


def _reduction_cell(ip: Any, p: Any, filters: int, block_id: str) -> Tuple[Any, Any]:
    p = _adjust(p, ip, filters, block_id)
    h = layers.Activation("relu")(ip)
    h = _bn(_conv1x1(h, filters, f"reduction_conv_1_{block_id}"),
            f"reduction_bn_1_{block_id}")
    h3 = layers.ZeroPadding2D(padding=correct_pad(h, 3), name=f"reduction_pad_1_{block_id}")(h)
    x1 = layers.Add(name=f"reduction_add_1_{block_id}")([
        _separable_block(h, filters, (5, 5), (2, 2), f"reduction_left1_{block_id}"),
        _separable_block(p, filters, (7, 7), (2, 2), f"reduction_right1_{block_id}")])
    x2 = layers.Add(name=f"reduction_add_2_{block_id}")([
        layers.MaxPooling2D(3, strides=2, padding="valid",
                            name=f"reduction_left2_{block_id}")(h3),
        _separable_block(p, filters, (7, 7), (2, 2), f"reduction_right2_{block_id}")])
    x3 = layers.Add(name=f"reduction_add3_{block_id}")([
        layers.AveragePooling2D(3, strides=2, padding="valid",
                                name=f"reduction_left3_{block_id}")(h3),
        _separable_block(p, filters, (5, 5), (2, 2), f"reduction_right3_{block_id}")])
    x4 = layers.AveragePooling2D(3, strides=1, padding="same",
                                 name=f"reduction_left4_{block_id}")(x1)
    x4 = layers.Add()([x2, x4])
    x5 = layers.Add(name=f"reduction_add4_{block_id}")([
        _separable_block(x1, filters, (3, 3), block_id=f"reduction_left4_{block_id}"),
        layers.MaxPooling2D(3, strides=2, padding="valid",
                            name=f"reduction_right5_{block_id}")(h3)])
    x = layers.Concatenate(axis=-1, name=f"reduction_concat_{block_id}")([x2, x3, x4, x5])
    return x, ip


def NASNet(input_shape: Any = None, penultimate_filters: int = 4032, num_blocks: int = 6,
           stem_block_filters: int = 96, skip_reduction: bool = True,
           filter_multiplier: int = 2, include_top: bool = True, weights: Any = None,
           input_tensor: Any = None, pooling: Any = None, classes: int = 1000,
           default_size: Optional[int] = None,
           classifier_activation: Any = "softmax") -> Model:
    """A NASNet-A of ``num_blocks`` normal cells per stage and ``penultimate_filters``
    channels before the head. ImageNet weights exist for the Mobile (224) and Large (331)
    settings.

    Raises:
      ValueError: ``penultimate_filters`` not a multiple of 24 * filter_multiplier**2, an
        input shape with unknown sizes with ImageNet weights, or the arguments every
        application refuses.
    """
    args.check_weights(weights, include_top, classes, "NASNet")
    args.check_pooling(pooling)
    args.check_classifier_activation(classifier_activation, weights if include_top else None)
    if isinstance(input_shape, tuple) and None in input_shape and weights == "imagenet":
        raise ValueError(f"When specifying the input shape of a NASNet and loading "
                         f"`ImageNet` weights, the input_shape argument must be static (no "
                         f"None entries). Got: `input_shape={input_shape}`.")
    if penultimate_filters % (24 * filter_multiplier ** 2):
        raise ValueError(f"For NASNet-A models, the `penultimate_filters` must be a "
                         f"multiple of 24 * (`filter_multiplier` ** 2). Current value: "
                         f"{penultimate_filters}")
    default_size = default_size or 331
    if weights == "imagenet" and default_size not in (224, 331):
        raise ValueError(f"NASNet: ImageNet weights exist for default_size 224 (Mobile) "
                         f"and 331 (Large), not {default_size}")
    shape = args.input_shape_for(input_shape, default_size, 32, include_top, weights)
    img_input = args.image_input(input_tensor, shape)
    filters = penultimate_filters // 24
    x = layers.Conv2D(stem_block_filters, 3, strides=2, padding="valid", use_bias=False,
                      kernel_initializer="he_normal", name="stem_conv1")(img_input)
    x = _bn(x, "stem_bn1")
    p = None
    x, p = _reduction_cell(x, p, filters // filter_multiplier ** 2, "stem_1")
    x, p = _reduction_cell(x, p, filters // filter_multiplier, "stem_2")
    for stage in range(3):
        width = filters * filter_multiplier ** stage
        if stage:
            x, p0 = _reduction_cell(x, p, width, f"reduce_{stage * num_blocks}")
            p = p if skip_reduction else p0
        for i in range(num_blocks):
            block = i if stage == 0 else stage * num_blocks + i + 1
            x, p = _normal_cell(x, p, width, str(block))
    x = layers.Activation("relu")(x)
    x = args.pooled_head(x, include_top, pooling, classes, classifier_activation,
                         pool_name="global_average_pooling2d")
    mobile = default_size == 224
    name = "NASNet-mobile" if mobile else "NASNet-large"
    cached = "nasnet_mobile" if mobile else "nasnet_large"
    top = published("nasnet", name + ".h5")._replace(fname=cached + ".h5")
    notop = published("nasnet", name + "-no-top.h5")._replace(fname=cached + "_no_top.h5")
    return args.finish(x, img_input, input_tensor, "NASNet", weights, include_top, top,
                       notop)


def NASNetMobile(input_shape: Any = None, include_top: bool = True,
                 weights: Any = "imagenet", input_tensor: Any = None, pooling: Any = None,
                 classes: int = 1000, classifier_activation: Any = "softmax") -> Model:
    """NASNet-A Mobile: 4 cells per stage, 1056 penultimate filters, 224x224 inputs."""
    return NASNet(input_shape, 1056, 4, 32, False, 2, include_top, weights, input_tensor,
                  pooling, classes, 224, classifier_activation)


def NASNetLarge(input_shape: Any = None, include_top: bool = True,
                weights: Any = "imagenet", input_tensor: Any = None, pooling: Any = None,
                classes: int = 1000, classifier_activation: Any = "softmax") -> Model:
    """NASNet-A Large: 6 cells per stage, 4032 penultimate filters, 331x331 inputs."""
    return NASNet(input_shape, 4032, 6, 96, True, 2, include_top, weights, input_tensor,
                  pooling, classes, 331, classifier_activation)
