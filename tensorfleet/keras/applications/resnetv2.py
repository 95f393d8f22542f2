"""ResNetV2 (He et al., 2016, "Identity Mappings in Deep Residual Networks"): the
pre-activation ResNets 50V2, 101V2 and 152V2."""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from tensorfleet.keras.applications import imagenet_utils
from tensorfleet.keras.applications.resnet import preact_stack, resnet
from tensorfleet.keras.models import Model

decode_predictions = imagenet_utils.decode_predictions


def preprocess_input(x: Any, data_format: Optional[str] = None) -> Any:
    """ResNetV2's input convention: pixels scaled to [-1, 1] (``tf``)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def _stages(blocks: Sequence[int]) -> Callable[[Any], Any]:
    def stack_fn(x: Any) -> Any:
        x = preact_stack(x, 64, blocks[0], name="conv2")
        x = preact_stack(x, 128, blocks[1], name="conv3")
        x = preact_stack(x, 256, blocks[2], name="conv4")
        return preact_stack(x, 512, blocks[3], stride1=1, name="conv5")
    return stack_fn


def ResNet50V2(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
               input_shape: Any = None, pooling: Any = None, classes: int = 1000,
               classifier_activation: Any = "softmax") -> Model:
    """ResNet-50 V2: stages of 3, 4, 6 and 3 pre-activation bottlenecks."""
    return resnet(_stages((3, 4, 6, 3)), True, True, "resnet50v2", include_top, weights,
                  input_tensor, input_shape, pooling, classes, classifier_activation)


def ResNet101V2(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
                input_shape: Any = None, pooling: Any = None, classes: int = 1000,
                classifier_activation: Any = "softmax") -> Model:
    """ResNet-101 V2: stages of 3, 4, 23 and 3 pre-activation bottlenecks."""
    return resnet(_stages((3, 4, 23, 3)), True, True, "resnet101v2", include_top, weights,
                  input_tensor, input_shape, pooling, classes, classifier_activation)


def ResNet152V2(include_top: bool = True, weights: Any = "imagenet", input_tensor: Any = None,
                input_shape: Any = None, pooling: Any = None, classes: int = 1000,
                classifier_activation: Any = "softmax") -> Model:
    """ResNet-152 V2: stages of 3, 8, 36 and 3 pre-activation bottlenecks."""
    return resnet(_stages((3, 8, 36, 3)), True, True, "resnet152v2", include_top, weights,
                  input_tensor, input_shape, pooling, classes, classifier_activation)
