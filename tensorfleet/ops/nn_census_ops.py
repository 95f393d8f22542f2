"""``tf.nn`` names of TF 1.x that tensorfleet lacked, built on its existing ops:
``tf.nn.max_pool2d`` / ``avg_pool2d`` / ``max_pool1d`` / ``avg_pool1d`` /
``max_pool_v2`` / ``avg_pool_v2``, ``tf.nn.convolution``, ``tf.nn.space_to_depth`` /
``depth_to_space``, ``tf.nn.space_to_batch`` / ``batch_to_space``,
``tf.nn.log_poisson_loss``, ``tf.nn.weighted_moments``, ``tf.nn.conv3d_transpose``,
``tf.nn.conv1d_transpose`` and ``tf.nn.conv3d_backprop_filter``.
"""

from __future__ import annotations

import math
from typing import Any, List, Optional, Sequence, Tuple

from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.ops.array_transform_ops import (batch_to_space, depth_to_space, space_to_batch,
                                              space_to_depth)
from tensorfleet.ops.array_ops_core import ones_like, squeeze, zeros_like
from tensorfleet.ops.array_indexing_ops import where
from tensorfleet.ops.math_ops_core import (exp, greater_equal, less_equal, log, logical_and,
                                           multiply, reciprocal, squared_difference)
from tensorfleet.ops.math_ops_reduce import reduce_sum
from tensorfleet.ops.array_ops_core import expand_dims
from tensorfleet.ops.array_concat_ops import concat
from tensorfleet.ops.nn_conv_variant_ops import (conv1d, conv2d_transpose, conv3d,
                                          conv3d_backprop_filter_v2, conv3d_backprop_input_v2)
from tensorfleet.ops.nn_conv_ops import avg_pool, conv2d, max_pool
from tensorfleet.ops.nn_pool_ops import pool

__all__ = ["max_pool2d", "avg_pool2d", "max_pool1d", "avg_pool1d", "max_pool_v2",
           "avg_pool_v2", "convolution", "space_to_depth", "depth_to_space", "space_to_batch",
           "batch_to_space",
           "log_poisson_loss", "weighted_moments", "conv3d_transpose", "conv1d_transpose",
           "conv3d_backprop_filter"]


def _window(v: Any, n: int, channels_last: bool, what: str) -> List[int]:
    """``ksize``/``strides`` as given to TF's pooling: an int, N ints or N+2 ints."""
    if isinstance(v, Tensor):
        raise TypeError(f"{what} must be a Python int or list here")
    vals = [int(v)] if isinstance(v, int) else [int(a) for a in v]
    if len(vals) == 1:
        return vals * n
    if len(vals) == n:
        return vals
    if len(vals) == n + 2:
        return vals[1:-1] if channels_last else vals[2:]
    raise ValueError(f"{what} should be of length 1, {n} or {n + 2}. Received: {what}={v} of "
                     f"length {len(vals)}")


def _full(v: Any, channels_last: bool, what: str) -> List[int]:
    w = _window(v, 2, channels_last, what)
    return [1] + w + [1] if channels_last else [1, 1] + w


def max_pool2d(input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002
               data_format: str = "NHWC", name: Optional[str] = None) -> Tensor:
    """``tf.nn.max_pool`` whose ``ksize``/``strides`` may also be an int or 2 ints."""
    last = data_format == "NHWC"
    return max_pool(input, _full(ksize, last, "ksize"), _full(strides, last, "strides"),
                    padding, data_format=data_format, name=name)


def avg_pool2d(input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002
               data_format: str = "NHWC", name: Optional[str] = None) -> Tensor:
    """``tf.nn.avg_pool`` whose ``ksize``/``strides`` may also be an int or 2 ints."""
    last = data_format == "NHWC"
    return avg_pool(input, _full(ksize, last, "ksize"), _full(strides, last, "strides"),
                    padding, data_format=data_format, name=name)


def _pool_nd(kind: str, input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002
             data_format: Optional[str], name: Optional[str], default: str) -> Tensor:
    x = convert_to_tensor(input)
    r = x.shape.ndims
    if r is None:
        raise ValueError(f"{default} needs the rank of its input to be known")
    n = r - 2
    if n not in (1, 2, 3):
        raise ValueError(f"Input tensor must be of rank 3, 4 or 5 but was {r}.")
    last = data_format is None or not data_format.startswith("NC")
    return pool(x, _window(ksize, n, last, "ksize"), kind, padding,
                strides=_window(strides, n, last, "strides"), name=name or default,
                data_format=data_format)


def max_pool1d(input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002
               data_format: str = "NWC", name: Optional[str] = None) -> Tensor:
    """Max pooling of ``input`` [N, W, C] ("NWC") or [N, C, W] ("NCW")."""
    return _pool_nd("MAX", input, ksize, strides, padding, data_format, name, "MaxPool1d")


def avg_pool1d(input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002
               data_format: str = "NWC", name: Optional[str] = None) -> Tensor:
    """Average pooling of ``input`` [N, W, C] ("NWC") or [N, C, W] ("NCW")."""
    return _pool_nd("AVG", input, ksize, strides, padding, data_format, name, "AvgPool1D")


def max_pool_v2(input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002
                data_format: Optional[str] = None, name: Optional[str] = None) -> Tensor:
    """Max pooling of a 3-, 4- or 5-D ``input`` (1, 2 or 3 spatial dimensions)."""
    return _pool_nd("MAX", input, ksize, strides, padding, data_format, name, "MaxPool")


def avg_pool_v2(input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002
                data_format: Optional[str] = None, name: Optional[str] = None) -> Tensor:
    """Average pooling of a 3-, 4- or 5-D ``input`` (1, 2 or 3 spatial dimensions)."""
    return _pool_nd("AVG", input, ksize, strides, padding, data_format, name, "AvgPool")


def convolution(input: Any, filter: Any = None, padding: Any = None,  # noqa: A002
                strides: Any = None, dilation_rate: Any = None, name: Optional[str] = None,
                data_format: Optional[str] = None, filters: Any = None,
                dilations: Any = None) -> Tensor:
    """N-D convolution (N = 1, 2 or 3, from the rank of ``input``) with optional
    ``strides`` and ``dilation_rate`` of N ints each (default 1)."""
    x = convert_to_tensor(input)
    f = filter if filter is not None else filters
    rate = dilation_rate if dilation_rate is not None else dilations
    r = x.shape.ndims
    if r is None:
        raise ValueError("convolution needs the rank of its input to be known")
    n = r - 2
    if n not in (1, 2, 3):
        raise ValueError(f"Input tensor must be of rank 3, 4 or 5 but was {r}.")
    last = data_format is None or not data_format.startswith("NC")
    s = _window(strides if strides is not None else 1, n, last, "strides")
    d = _window(rate if rate is not None else 1, n, last, "dilation_rate")
    if n == 1:
        fmt = data_format or "NWC"
        return conv1d(x, f, stride=s[0], padding=padding, data_format=fmt, name=name,
                      dilations=d[0] if d[0] != 1 else None)
    full = (lambda v: [1] + v + [1]) if last else (lambda v: [1, 1] + v)
    if n == 2:
        return conv2d(x, f, strides=full(s), padding=padding, data_format=data_format or "NHWC",
                      dilations=full(d), name=name)
    return conv3d(x, f, strides=full(s), padding=padding, data_format=data_format or "NDHWC",
                  dilations=full(d), name=name)


def log_poisson_loss(targets: Any, log_input: Any, compute_full_loss: bool = False,
                     name: Optional[str] = None) -> Tensor:
    """Poisson negative log likelihood ``exp(log_input) - log_input * targets``, plus the
    Stirling approximation of ``log(targets!)`` (for targets above 1) when
    ``compute_full_loss``."""
    with name_scope(name or "log_poisson_loss"):
        li = convert_to_tensor(log_input)
        t = convert_to_tensor(targets, dtype=li.dtype)
        result = exp(li) - li * t
        if compute_full_loss:
            zeros, ones = zeros_like(t), ones_like(t)
            stirling = t * log(t) - t + 0.5 * log(2.0 * math.pi * t)
            small = logical_and(greater_equal(t, zeros), less_equal(t, ones))
            result = result + where(small, zeros, stirling)
        return result


def weighted_moments(x: Any, axes: Any, frequency_weights: Any, name: Optional[str] = None,
                     keep_dims: Optional[bool] = None, keepdims: Optional[bool] = None
                     ) -> Tuple[Tensor, Tensor]:
    """Frequency-weighted mean and variance of ``x`` over ``axes``."""
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with name_scope(name or "weighted_moments"):
        x = convert_to_tensor(x)
        w = convert_to_tensor(frequency_weights, dtype=x.dtype)
        ax: Sequence[int] = list(axes) if isinstance(axes, (list, tuple)) else [axes]
        total = reduce_sum(multiply(w, x), ax, keepdims=True)
        count = reduce_sum(w + zeros_like(x), ax, keepdims=True)
        inv = reciprocal(count)
        mean = total * inv
        var = reduce_sum(multiply(w, squared_difference(x, mean)), ax, keepdims=True) * inv
        if not keep:
            mean = squeeze(mean, axis=ax)
            var = squeeze(var, axis=ax)
        return mean, var


conv3d_backprop_filter = conv3d_backprop_filter_v2


def conv3d_transpose(value: Any = None, filter: Any = None,  # noqa: A002
                     output_shape: Any = None, strides: Any = None, padding: str = "SAME",
                     data_format: str = "NDHWC", name: Optional[str] = None, input: Any = None,
                     filters: Any = None, dilations: Any = None) -> Tensor:
    """Transposed 3-D convolution of ``value`` [N,D,H,W,C_in] with ``filter``
    [KD,KH,KW,C_out,C_in] into ``output_shape`` (5 ints or an int tensor)."""
    x = convert_to_tensor(value if value is not None else input)
    w = convert_to_tensor(filter if filter is not None else filters, dtype=x.dtype)
    if output_shape is None or strides is None:
        raise ValueError("conv3d_transpose needs output_shape and strides")
    if w.shape.ndims not in (None, 5) or x.shape.ndims not in (None, 5):
        raise ValueError(f"conv3d_transpose needs a rank-5 value and filter, got shapes "
                         f"{x.shape} and {w.shape}")
    cin = x.shape.as_list()[4] if x.shape.ndims == 5 else None
    win = w.shape.as_list()[4] if w.shape.ndims == 5 else None
    if None not in (cin, win) and cin != win:
        raise ValueError(f"conv3d_transpose: value has {cin} channels but the filter's "
                         f"last dimension (in_channels) is {win}")
    return conv3d_backprop_input_v2(output_shape, w, x, strides, padding,
                                    data_format=data_format, dilations=dilations,
                                    name=name or "conv3d_transpose")


def conv1d_transpose(input: Any, filters: Any, output_shape: Any,  # noqa: A002
                     strides: Any, padding: str = "SAME", data_format: str = "NWC",
                     dilations: Any = None, name: Optional[str] = None) -> Tensor:
    """Transposed 1-D convolution of ``input`` [N,W,C_in] with ``filters`` [K,C_out,C_in]
    into ``output_shape`` [N,W',C_out], run as a 2-D one over a height of 1."""
    if data_format != "NWC":
        raise ValueError(f"conv1d_transpose supports data_format 'NWC' only, got "
                         f"{data_format!r}")
    s = _window(strides, 1, True, "strides")[0]
    d = _window(dilations if dilations is not None else 1, 1, True, "dilations")[0]
    with name_scope(name or "conv1d_transpose"):
        x = expand_dims(convert_to_tensor(input), 1)
        w = expand_dims(convert_to_tensor(filters, dtype=x.dtype), 0)
        if isinstance(output_shape, Tensor):
            shp = concat([output_shape[:1], [1], output_shape[1:]], 0)
        else:
            o = [int(v) for v in output_shape]
            if len(o) != 3:
                raise ValueError(f"conv1d_transpose: output_shape must have 3 entries, got {o}")
            shp = [o[0], 1, o[1], o[2]]
        y = conv2d_transpose(x, w, shp, [1, 1, s, 1], padding,
                             dilations=None if d == 1 else [1, 1, d, 1])
        return squeeze(y, axis=[1])
