"""Keras layer helpers: ``Wrapper`` (the base of layers that wrap another),
``DenseFeatures`` (feature columns as a layer), and the v2 dtype switch (layers cast
floating inputs to their own dtype)."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

from tensorfleet.feature_column.layers import input_layer as _input_layer
from tensorfleet.framework.graph import Tensor
from tensorfleet.keras.layers.base import _V2_DTYPE, Layer, WrappingLayer


class Wrapper(WrappingLayer):
    """A layer wrapping another (``self.layer``), whose weights are the wrapped
    layer's."""

    def __init__(self, layer: Layer, **kwargs: Any):
        if not isinstance(layer, Layer):
            raise ValueError(f"Wrapper: expected a Keras layer, got {layer!r}")
        super().__init__(**kwargs)
        self.layer = layer

    def _wrapped(self) -> List[Any]:
        return [self.layer]

    def call(self, inputs: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """The wrapped layer applied to ``inputs``."""
        return self.layer(inputs, **kwargs)


class DenseFeatures(Layer):
    """Feature columns as a layer: a dict of feature tensors to one dense
    [batch, total width] tensor (``tf.feature_column.input_layer``)."""

    def __init__(self, feature_columns: Sequence[Any], trainable: bool = True,
                 name: Optional[str] = None, **kwargs: Any):
        super().__init__(trainable=trainable, name=name, **kwargs)
        self.feature_columns = list(feature_columns)
        if not self.feature_columns:
            raise ValueError("DenseFeatures: feature_columns must not be empty")

    def __call__(self, features: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """The dense features of the dict ``features``."""
        if not isinstance(features, dict):
            raise ValueError(f"DenseFeatures: expected a dict of features, got "
                             f"{type(features).__name__}")
        return self.call(features, **kwargs)

    def call(self, features: Any, cols_to_output_tensors: Any = None,  # type: ignore[override]
             training: Any = None) -> Tensor:
        """The columns' dense values side by side."""
        if cols_to_output_tensors is not None:
            raise ValueError("DenseFeatures: cols_to_output_tensors is not supported")
        out = _input_layer(features, self.feature_columns, trainable=self.trainable)
        return out


def enable_v2_dtype_behavior() -> None:
    """Layers cast floating inputs to their own dtype (the TF 2 behaviour)."""
    _V2_DTYPE["on"] = True


def disable_v2_dtype_behavior() -> None:
    """Layers take their inputs' dtype as they are (the TF 1 behaviour, the default)."""
    _V2_DTYPE["on"] = False


def v2_dtype_behavior_enabled() -> bool:
    """Whether ``enable_v2_dtype_behavior`` is in force."""
    return _V2_DTYPE["on"]


__all__ = ["Wrapper", "DenseFeatures",
           "enable_v2_dtype_behavior", "disable_v2_dtype_behavior",
           "v2_dtype_behavior_enabled"]
