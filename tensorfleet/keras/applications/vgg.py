"""VGG16 and VGG19 (Simonyan and Zisserman, 2014): stacks of 3x3 convolutions in five
blocks, each closed by 2x2 max pooling, then two 4096-unit fully connected layers."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from tensorfleet.keras import layers
from tensorfleet.keras.applications import builder_arguments as args
from tensorfleet.keras.applications import imagenet_utils
from tensorfleet.keras.applications.pretrained_weights import published
from tensorfleet.keras.models import Model

decode_predictions = imagenet_utils.decode_predictions


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """VGG's input convention: BGR, ImageNet channel means subtracted (``caffe``)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


def _vgg(convs_per_block: Sequence[int], name: str, include_top: bool, weights: Any,
         input_tensor: Any, input_shape: Any, pooling: Any, classes: int,
         classifier_activation: Any) -> Model:
    args.check_weights(weights, include_top, classes, name)
    args.check_pooling(pooling)
    args.check_classifier_activation(classifier_activation, weights if include_top else None)
    shape = args.input_shape_for(input_shape, 224, 32, include_top, weights)
    img_input = args.image_input(input_tensor, shape)
    x = img_input
    for block, (filters, convs) in enumerate(zip((64, 128, 256, 512, 512),
                                                 convs_per_block), start=1):
        for i in range(1, convs + 1):
            x = layers.Conv2D(filters, 3, activation="relu", padding="same",
                              name=f"block{block}_conv{i}")(x)
        x = layers.MaxPooling2D(2, strides=2, name=f"block{block}_pool")(x)
    if include_top:
        x = layers.Flatten(name="flatten")(x)
        x = layers.Dense(4096, activation="relu", name="fc1")(x)
        x = layers.Dense(4096, activation="relu", name="fc2")(x)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D()(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D()(x)
    stem = name.lower()
    return args.finish(
        x, img_input, input_tensor, name, weights, include_top,
        published(stem, f"{stem}_weights_tf_dim_ordering_tf_kernels.h5"),
        published(stem, f"{stem}_weights_tf_dim_ordering_tf_kernels_notop.h5"))


def VGG16(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
          input_shape: Any = None, pooling: Any = None, classes: int = 1000,
          classifier_activation: Any = "softmax") -> Model:
    """The 16-layer VGG network (13 convolutions in blocks of 2, 2, 3, 3, 3)."""
    return _vgg((2, 2, 3, 3, 3), "vgg16", include_top, weights, input_tensor, input_shape,
                pooling, classes, classifier_activation)


def VGG19(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
          input_shape: Any = None, pooling: Any = None, classes: int = 1000,
          classifier_activation: Any = "softmax") -> Model:
    """The 19-layer VGG network (16 convolutions in blocks of 2, 2, 4, 4, 4)."""
    return _vgg((2, 2, 4, 4, 4), "vgg19", include_top, weights, input_tensor, input_shape,
                pooling, classes, classifier_activation)
