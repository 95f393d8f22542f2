"""The arguments every application model builder shares, checked as Keras checks them:
``include_top``, ``weights``, ``input_tensor``, ``input_shape``, ``pooling``, ``classes``,
``classifier_activation``; the input it makes, the classification head or pooling it
adds, and the model it returns with its weights loaded."""

from __future__ import annotations

import logging
import os
from typing import Any, Optional, Sequence, Tuple

from tensorfleet.keras import backend as K
from tensorfleet.keras import layers
from tensorfleet.keras.applications import pretrained_weights
from tensorfleet.keras.applications.pretrained_weights import WeightsFile
from tensorfleet.keras.models import Model
from tensorfleet.keras.layer_graph import get_source_inputs

logger = logging.getLogger(__name__)


def check_weights(weights: Any, include_top: bool, classes: int,
                  model: str = "this model") -> None:
    """Raises ValueError for a ``weights`` value Keras refuses: neither ``None``,
    ``'imagenet'`` nor an existing file, or ImageNet weights with a top of other than
    1000 classes."""
    if not (weights in {"imagenet", None} or (isinstance(weights, str)
                                              and os.path.exists(weights))):
        raise ValueError(f"The `weights` argument of {model} should be either `None` "
                         f"(random initialization), `imagenet` (pre-training on ImageNet), "
                         f"or the path to the weights file to be loaded. Received: "
                         f"weights={weights!r}")
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError(f"If using `weights='imagenet'` with `include_top=True`, "
                         f"`classes` should be 1000. Received: classes={classes}")


def input_shape_for(input_shape: Optional[Sequence[Any]], default_size: int, min_size: int,
                    require_flatten: bool, weights: Any) -> Tuple[Any, ...]:
    """The ``(height, width, channels)`` of the model's input, as Keras chooses it.

    Raises:
      ValueError: a shape that is not three entries, images smaller than ``min_size``,
        other than 3 channels with ImageNet weights, a shape other than the default
        with ImageNet weights and the top, or unknown sizes with a flattening top.
    """
    if K.image_data_format() != "channels_last":
        raise ValueError("the application models are built channels_last only; "
                         f"image_data_format() is {K.image_data_format()!r}")
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        if input_shape[-1] not in (1, 3):
            logger.warning("This model usually expects 1 or 3 input channels, got %s",
                           input_shape[-1])
        default = (default_size, default_size, input_shape[-1])
    else:
        default = (default_size, default_size, 3)
    if weights == "imagenet" and require_flatten:
        if input_shape is not None and tuple(input_shape) != default:
            raise ValueError(f"When setting `include_top=True` and loading `imagenet` "
                             f"weights, `input_shape` should be {default}. Received: "
                             f"input_shape={tuple(input_shape)}")
        return default
    if input_shape:
        input_shape = tuple(input_shape)
        if len(input_shape) != 3:
            raise ValueError(f"`input_shape` must be a tuple of three integers, got "
                             f"{input_shape}")
        if input_shape[-1] != 3 and weights == "imagenet":
            raise ValueError(f"The input must have 3 channels; Received "
                             f"`input_shape={input_shape}`")
        if any(d is not None and d < min_size for d in input_shape[:2]):
            raise ValueError(f"Input size must be at least {min_size}x{min_size}; Received: "
                             f"input_shape={input_shape}")
    else:
        input_shape = default if require_flatten else (None, None, 3)
    if require_flatten and None in input_shape:
        raise ValueError(f"If `include_top` is True, you should specify a static "
                         f"`input_shape`. Received: input_shape={input_shape}")
    return input_shape


def image_input(input_tensor: Any, input_shape: Tuple[Any, ...]) -> Any:
    """The Keras tensor the model starts from: ``input_tensor`` (made a Keras input when
    it is a plain tensor) or a new ``Input`` of ``input_shape``."""
    if input_tensor is None:
        return layers.Input(shape=input_shape)
    if K.is_keras_tensor(input_tensor):
        return input_tensor
    return layers.Input(tensor=input_tensor, shape=input_shape)


def check_pooling(pooling: Any) -> None:
    """Raises ValueError for a ``pooling`` other than ``None``, ``'avg'`` or ``'max'``."""
    if pooling not in (None, "avg", "max"):
        raise ValueError(f"pooling must be None, 'avg' or 'max', got {pooling!r}")


def check_classifier_activation(activation: Any, weights: Any) -> None:
    """Keras's rule: ImageNet weights with the top need ``softmax`` or ``None``."""
    if weights == "imagenet" and activation not in ("softmax", None):
        raise ValueError(f"Only `None` and `softmax` activations are allowed for the "
                         f"`classifier_activation` argument when using pretrained weights, "
                         f"with `include_top=True`; Received: {activation!r}")


def pooled_head(x: Any, include_top: bool, pooling: Any, classes: int,
                classifier_activation: Any, dropout: float = 0.0,
                pool_name: str = "avg_pool") -> Any:
    """Global average pooling and the ``predictions`` layer (with the top), or the pooling
    ``pooling`` asks for (without)."""
    if include_top:
        x = layers.GlobalAveragePooling2D(name=pool_name)(x)
        if dropout:
            x = layers.Dropout(dropout, name="top_dropout")(x)
        return layers.Dense(classes, activation=classifier_activation,
                            name="predictions")(x)
    if pooling == "avg":
        return layers.GlobalAveragePooling2D(name=pool_name)(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D(name="max_pool")(x)
    return x


def finish(x: Any, img_input: Any, input_tensor: Any, name: str, weights: Any,
           include_top: bool, top: Optional[WeightsFile],
           notop: Optional[WeightsFile]) -> Model:
    """The ``Model`` from the input (or ``input_tensor``'s sources) to ``x``, with the
    weights ``weights`` asks for loaded."""
    inputs = get_source_inputs(input_tensor) if input_tensor is not None else img_input
    model = Model(inputs, x, name=name)
    path = pretrained_weights.resolve(weights, top, notop, include_top)
    if path is not None:
        pretrained_weights.load_weights(model, path)
    return model
