"""ConvNeXt (Liu et al., 2022, "A ConvNet for the 2020s"): a 4x4 patchify stem, four
stages of blocks (7x7 depthwise convolution, layer norm, an inverted MLP with GELU,
per-channel layer scale, a residual connection), layer-norm downsampling between stages.
The model normalizes its input itself unless ``include_preprocessing=False``."""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from tensorfleet.framework.graph import Tensor
from tensorfleet.keras import backend as K
from tensorfleet.keras import initializers, layers
from tensorfleet.keras.applications import builder_arguments as args
from tensorfleet.keras.applications import imagenet_utils
from tensorfleet.keras.applications.pretrained_weights import published
from tensorfleet.keras.models import Model, Sequential
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import random_ops as R

decode_predictions = imagenet_utils.decode_predictions
# the model rescales (and normalizes) its input itself
preprocess_input = imagenet_utils.preprocess_nothing

# name: (depths, projection dims) of the published models
MODEL_CONFIGS = {"tiny": ((3, 3, 9, 3), (96, 192, 384, 768)),
                 "small": ((3, 3, 27, 3), (96, 192, 384, 768)),
                 "base": ((3, 3, 27, 3), (128, 256, 512, 1024)),
                 "large": ((3, 3, 27, 3), (192, 384, 768, 1536)),
                 "xlarge": ((3, 3, 27, 3), (256, 512, 1024, 2048))}




_MEAN = np.array([0.485, 0.456, 0.406], np.float32) * 255
_STD = np.array([0.229, 0.224, 0.225], np.float32) * 255


def _imagenet_normalization(x: Any) -> Any:
    return (x - _MEAN) / _STD


class LayerScale(layers.Layer):
    """Multiplies the last axis by a trainable ``gamma``, initially ``init_values``."""

    def __init__(self, init_values: float, projection_dim: int, **kwargs: Any):
        super().__init__(**kwargs)
        self.init_values, self.projection_dim = init_values, projection_dim

    def build(self, input_shape: Any) -> None:
        """Creates ``gamma`` of shape ``[projection_dim]``."""
        self.gamma = self.add_weight("gamma", [self.projection_dim],
                                     initializer=initializers.Constant(self.init_values),
                                     trainable=True)
        self.built = True

    def call(self, inputs: Tensor) -> Tensor:  # type: ignore[override]
        """``inputs * gamma``."""
        return M.multiply(inputs, self.gamma)

    def get_config(self) -> dict:
        """The layer's config with ``init_values`` and ``projection_dim``."""
        return {**super().get_config(), "init_values": self.init_values,
                "projection_dim": self.projection_dim}


class StochasticDepth(layers.Layer):
    """While training, drops the whole residual branch of a sample with probability
    ``drop_path_rate`` (scaling kept branches up); the identity otherwise."""

    def __init__(self, drop_path_rate: float, **kwargs: Any):
        super().__init__(**kwargs)
        self.drop_path_rate = float(drop_path_rate)

    def call(self, inputs: Tensor, training: Any = None) -> Tensor:  # type: ignore[override]
        """The branch, dropped per sample while training."""
        keep = 1.0 - self.drop_path_rate

        def dropped() -> Tensor:
            rank = inputs.shape.ndims
            shape = A.concat([A.shape(inputs)[:1], A.ones([rank - 1], "int32")], 0)
            noise = R.random_uniform(shape, 0.0, 1.0)
            return M.multiply(M.divide(inputs, keep), M.floor(M.add(keep, noise)))
        return K.in_train_phase(dropped, inputs, training=training)

    def get_config(self) -> dict:
        """The layer's config with ``drop_path_rate``."""
        return {**super().get_config(), "drop_path_rate": self.drop_path_rate}


def convnext_block(x: Any, projection_dim: int, drop_path_rate: float = 0.0,
                   layer_scale_init_value: Optional[float] = 1e-6, name: str = "") -> Any:
    """One ConvNeXt block on ``x``; its residual branch is dropped with probability
    ``drop_path_rate`` while training."""
    inputs = x
    x = layers.Conv2D(projection_dim, 7, padding="same", groups=projection_dim,
                      name=name + "_depthwise_conv")(x)
    x = layers.LayerNormalization(epsilon=1e-6, name=name + "_layernorm")(x)
    x = layers.Dense(4 * projection_dim, name=name + "_pointwise_conv_1")(x)
    x = layers.Activation("gelu", name=name + "_gelu")(x)
    x = layers.Dense(projection_dim, name=name + "_pointwise_conv_2")(x)
    if layer_scale_init_value is not None:
        x = LayerScale(layer_scale_init_value, projection_dim, name=name + "_layer_scale")(x)
    if drop_path_rate:
        x = StochasticDepth(drop_path_rate, name=name + "_stochastic_depth")(x)
    else:
        x = layers.Activation("linear", name=name + "_identity")(x)
    return layers.Add(name=name + "_add")([inputs, x])


def ConvNeXt(depths: Sequence[int], projection_dims: Sequence[int],
             drop_path_rate: float = 0.0, layer_scale_init_value: float = 1e-6,
             default_size: int = 224, model_name: str = "convnext",
             include_preprocessing: bool = True, include_top: bool = True,
             weights: Any = None, input_tensor: Any = None, input_shape: Any = None,
             pooling: Any = None, classes: int = 1000,
             classifier_activation: Any = "softmax") -> Model:
    """A ConvNeXt of four stages of ``depths`` blocks with ``projection_dims`` channels."""
    if len(depths) != 4 or len(projection_dims) != 4:
        raise ValueError(f"ConvNeXt: depths and projection_dims must have four entries, "
                         f"got {depths} and {projection_dims}")
    args.check_weights(weights, include_top, classes, model_name)
    args.check_pooling(pooling)
    args.check_classifier_activation(classifier_activation, weights if include_top else None)
    shape = args.input_shape_for(input_shape, default_size, 32, include_top, weights)
    img_input = args.image_input(input_tensor, shape)
    x = img_input
    if include_preprocessing:
        # fixed statistics: constants, not weights (as Keras's Normalization given them)
        x = layers.Lambda(_imagenet_normalization,
                          name=model_name + "_prestem_normalization")(x)
    x = Sequential([layers.Conv2D(projection_dims[0], 4, strides=4,
                                  name=model_name + "_stem_conv"),
                    layers.LayerNormalization(epsilon=1e-6,
                                              name=model_name + "_stem_layernorm")],
                   name=model_name + "_stem")(x)
    rates = [float(r) for r in np.linspace(0.0, drop_path_rate, sum(depths))]
    cur = 0
    for i, (depth, dim) in enumerate(zip(depths, projection_dims)):
        if i:
            x = Sequential([layers.LayerNormalization(
                                epsilon=1e-6, name=f"{model_name}_downsampling_layernorm_{i}"),
                            layers.Conv2D(dim, 2, strides=2,
                                          name=f"{model_name}_downsampling_conv_{i}")],
                           name=f"{model_name}_downsampling_block_{i}")(x)
        for j in range(depth):
            x = convnext_block(x, dim, rates[cur + j], layer_scale_init_value,
                               name=f"{model_name}_stage_{i}_block_{j}")
        cur += depth
    if include_top:
        x = layers.GlobalAveragePooling2D(name=model_name + "_head_gap")(x)
        x = layers.LayerNormalization(epsilon=1e-6, name=model_name + "_head_layernorm")(x)
        x = layers.Dense(classes, activation=classifier_activation,
                         name=model_name + "_head_dense")(x)
    else:
        if pooling == "avg":
            x = layers.GlobalAveragePooling2D()(x)
        elif pooling == "max":
            x = layers.GlobalMaxPooling2D()(x)
        x = layers.LayerNormalization(epsilon=1e-6)(x)
    return args.finish(x, img_input, input_tensor, model_name, weights, include_top,
                       published("convnext", model_name + ".h5"),
                       published("convnext", model_name + "_notop.h5"))


def _variant(key: str):
    name = "ConvNeXt" + {"xlarge": "XLarge"}.get(key, key.title())
    depths, dims = MODEL_CONFIGS[key]

    def builder(model_name: str = "convnext_" + key, include_top: bool = True,
                include_preprocessing: bool = True, weights: Any = "imagenet",
                input_tensor: Any = None, input_shape: Any = None, pooling: Any = None,
                classes: int = 1000, classifier_activation: Any = "softmax") -> Model:
        return ConvNeXt(depths, dims, 0.0, 1e-6, 224, model_name, include_preprocessing,
                        include_top, weights, input_tensor, input_shape, pooling, classes,
                        classifier_activation)
    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = f"{name}: stages of {depths} blocks with {dims} channels."
    return builder


ConvNeXtTiny = _variant("tiny")
ConvNeXtSmall = _variant("small")
ConvNeXtBase = _variant("base")
ConvNeXtLarge = _variant("large")
ConvNeXtXLarge = _variant("xlarge")
