"""Keras 3-D pooling over [batch, depth, height, width, channels]: windowed max/average
pooling (the ``tf.layers`` classes behind the Keras base) and the global pools."""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet.keras.layers.base import Layer
from tensorfleet.keras.layers.conv import _GlobalPooling, _pool_init
from tensorfleet.nn_layers import objects as _tfl


class MaxPooling3D(Layer, _tfl.MaxPooling3D):
    """Max pooling over depth, height and width; strides default to the pool size."""

    def __init__(self, pool_size: Any = (2, 2, 2), strides: Any = None, padding: str = "valid",
                 data_format: Optional[str] = None, **kwargs: Any):
        _pool_init(self, _tfl.MaxPooling3D, pool_size, strides, padding, data_format, kwargs)


class AveragePooling3D(Layer, _tfl.AveragePooling3D):
    """Average pooling over depth, height and width (padding not counted)."""

    def __init__(self, pool_size: Any = (2, 2, 2), strides: Any = None, padding: str = "valid",
                 data_format: Optional[str] = None, **kwargs: Any):
        _pool_init(self, _tfl.AveragePooling3D, pool_size, strides, padding, data_format,
                   kwargs)


class GlobalAveragePooling3D(_GlobalPooling):
    """Mean over depth, height and width: [batch, d, h, w, c] -> [batch, c]."""

    _axes = (1, 2, 3)


class GlobalMaxPooling3D(_GlobalPooling):
    """Maximum over depth, height and width: [batch, d, h, w, c] -> [batch, c]."""

    _axes = (1, 2, 3)
    _max = True


__all__ = ["MaxPooling3D", "AveragePooling3D", "GlobalAveragePooling3D", "GlobalMaxPooling3D"]
