"""2-D convolution and pooling (NHWC), with their backward ops as real ops.

``Conv2DBackpropInput``, ``Conv2DBackpropFilter``, ``MaxPoolGrad`` and
``AvgPoolGrad`` are ops of their own, as in TensorFlow, so a training step runs
one vectorized kernel per backward pass instead of a chain of small ops. NCHW
inputs are transposed to NHWC around the op (the only layout the CPU kernels
implement, as in TensorFlow's CPU kernels).
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, unknown_shape
from tensorfleet.ops.op_util import const_value, convert_pair, make_tensor
from tensorfleet.ops.array_ops import transpose

_PADDINGS = ("SAME", "VALID")


def conv_output_size(in_size: Optional[int], k: int, stride: int, dilation: int,
                     padding: str) -> Optional[int]:
    """Output length of one spatial dim; ValueError when the window does not fit (VALID)."""
    if in_size is None:
        return None
    eff = (k - 1) * dilation + 1
    if padding == "SAME":
        return -(-in_size // stride)
    if in_size < eff:
        raise ValueError(f"Negative dimension size caused by subtracting {eff} from {in_size}")
    return (in_size - eff) // stride + 1


def spatial_ints(v: Any, n: int, channels_last: bool, what: str) -> List[int]:
    """The ``n`` spatial entries of a ``ksize``/``strides``/``dilations`` argument given
    the ways TensorFlow's N-D convolutions and poolings take it: an int, ``n`` ints, or
    ``n + 2`` ints that include the batch and channel dimensions."""
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


def _nhwc_out(x: TensorShape, kh: int, kw: int, attrs: dict, channels: Any) -> TensorShape:
    if x.ndims is None:
        return TensorShape([None, None, None, channels])
    if x.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.ndims}")
    s, d = attrs["strides"], attrs.get("dilations", [1, 1, 1, 1])
    oh = conv_output_size(x[1], kh, s[1], d[1], attrs["padding"])
    ow = conv_output_size(x[2], kw, s[2], d[2], attrs["padding"])
    return TensorShape([x[0], oh, ow, channels])


def _conv_shape(op: Any) -> List[TensorShape]:
    x, w = op.inputs[0].shape, op.inputs[1].shape
    if w.ndims is not None and w.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {w.ndims}")
    if w.ndims is None or w[0] is None or w[1] is None:
        return [unknown_shape(4)]
    if x.ndims == 4 and x[3] is not None and w[2] is not None and x[3] != w[2]:
        raise ValueError(f"Dimensions must be equal, but are {x[3]} and {w[2]}")
    return [_nhwc_out(x, w[0], w[1], op.attrs, w[3])]


def _sizes_shape(index: int) -> Any:
    def fn(op: Any) -> List[TensorShape]:
        v = const_value(op.inputs[index])
        return [unknown_shape(4) if v is None else TensorShape([int(d) for d in v])]
    return fn


def _pool_shape(op: Any) -> List[TensorShape]:
    x = op.inputs[0].shape
    k = op.attrs["ksize"]
    return [_nhwc_out(x, k[1], k[2], op.attrs, x[3] if x.ndims == 4 else None)]


register_op("Conv2D", _conv_shape)
register_op("Conv2DBackpropInput", _sizes_shape(0))
register_op("Conv2DBackpropFilter", _sizes_shape(1))
register_op("MaxPool", _pool_shape)
register_op("AvgPool", _pool_shape)
register_op("MaxPoolGrad", lambda op: [op.inputs[0].shape])
register_op("AvgPoolGrad", _sizes_shape(0))


def _four(v: Any, what: str, fmt: str) -> List[int]:
    """Strides/ksize/dilations as 4 NHWC ints from an int, 2 or 4 values."""
    if isinstance(v, int):
        vals = [1, v, v, 1]
    else:
        vals = [int(i) for i in v]
        if len(vals) == 1:
            vals = [1, vals[0], vals[0], 1]
        elif len(vals) == 2:
            vals = [1, vals[0], vals[1], 1]
        elif len(vals) == 4:
            if fmt == "NCHW":
                vals = [vals[0], vals[2], vals[3], vals[1]]
        else:
            raise ValueError(f"{what} must have 1, 2 or 4 entries, got {list(v)}")
    if vals[0] != 1 or vals[3] != 1:
        raise ValueError(f"{what} in the batch and depth dimensions must be 1, got {list(v)}")
    if min(vals) < 1:
        raise ValueError(f"{what} must be positive, got {list(v)}")
    return vals


def _check_common(padding: Any, data_format: Optional[str], op: str) -> Tuple[str, str]:
    if not isinstance(padding, str) or padding not in _PADDINGS:
        raise ValueError(f"{op}: padding must be 'SAME' or 'VALID', got {padding!r}")
    fmt = data_format or "NHWC"
    if fmt not in ("NHWC", "NCHW"):
        raise ValueError(f"{op}: data_format must be 'NHWC' or 'NCHW', got {data_format!r}")
    return padding, fmt


def _to_nhwc(x: Tensor, fmt: str) -> Tensor:
    if fmt == "NHWC":
        return x
    return transpose(x, [0, 2, 3, 1])


def _from_nhwc(x: Tensor, fmt: str) -> Tensor:
    if fmt == "NHWC":
        return x
    return transpose(x, [0, 3, 1, 2])


def conv2d(input: Any, filter: Any = None, strides: Any = None,  # noqa: A002
           padding: Any = None, use_cudnn_on_gpu: bool = True, data_format: str = "NHWC",
           dilations: Any = None, name: Optional[str] = None, filters: Any = None) -> Tensor:
    """2-D cross-correlation of ``input`` [N,H,W,C] with ``filter`` [KH,KW,C,O].

    Raises:
      ValueError: for a padding other than 'SAME'/'VALID', bad strides, or
        channel counts that do not match.
    """
    filt = filter if filter is not None else filters
    if filt is None or strides is None:
        raise ValueError("conv2d needs filter and strides")
    padding, fmt = _check_common(padding, data_format, "conv2d")
    attrs = {"strides": _four(strides, "strides", fmt),
             "dilations": _four(dilations if dilations is not None else 1, "dilations", fmt),
             "padding": padding, "data_format": "NHWC"}
    x, w = convert_pair(input, filt)
    if not x.dtype.is_floating:
        raise TypeError(f"conv2d needs floating-point inputs, got {x.dtype.name}")
    if x.shape.ndims is not None and x.shape.ndims != 4:
        raise ValueError(f"conv2d: input must be rank 4, got shape {x.shape}")
    y = make_tensor("Conv2D", [_to_nhwc(x, fmt), w], x.dtype, attrs, name=name or "Conv2D")
    return _from_nhwc(y, fmt)


def _sizes(sizes: Any) -> Tensor:
    if isinstance(sizes, Tensor):
        return sizes
    return convert_to_tensor([int(s) for s in sizes], dtype=_dtypes.int32)


def conv2d_backprop_input(input_sizes: Any, filter: Any, out_backprop: Any,  # noqa: A002
                          strides: Any, padding: str, use_cudnn_on_gpu: bool = True,
                          data_format: str = "NHWC", dilations: Any = None,
                          name: Optional[str] = None) -> Tensor:
    """Gradient of ``conv2d`` with respect to its input (NHWC)."""
    padding, _ = _check_common(padding, data_format, "conv2d_backprop_input")
    if data_format != "NHWC":
        raise ValueError("conv2d_backprop_input supports only NHWC on CPU")
    w, dy = convert_pair(filter, out_backprop)
    attrs = {"strides": _four(strides, "strides", "NHWC"), "padding": padding,
             "dilations": _four(dilations if dilations is not None else 1, "dilations", "NHWC"),
             "data_format": "NHWC"}
    return make_tensor("Conv2DBackpropInput", [_sizes(input_sizes), w, dy], w.dtype, attrs,
                       name=name or "Conv2DBackpropInput")


def conv2d_backprop_filter(input: Any, filter_sizes: Any, out_backprop: Any,  # noqa: A002
                           strides: Any, padding: str, use_cudnn_on_gpu: bool = True,
                           data_format: str = "NHWC", dilations: Any = None,
                           name: Optional[str] = None) -> Tensor:
    """Gradient of ``conv2d`` with respect to its filter (NHWC)."""
    padding, _ = _check_common(padding, data_format, "conv2d_backprop_filter")
    if data_format != "NHWC":
        raise ValueError("conv2d_backprop_filter supports only NHWC on CPU")
    x, dy = convert_pair(input, out_backprop)
    attrs = {"strides": _four(strides, "strides", "NHWC"), "padding": padding,
             "dilations": _four(dilations if dilations is not None else 1, "dilations", "NHWC"),
             "data_format": "NHWC"}
    return make_tensor("Conv2DBackpropFilter", [x, _sizes(filter_sizes), dy], x.dtype, attrs,
                       name=name or "Conv2DBackpropFilter")


def _pool(op_type: str, value: Any, ksize: Any, strides: Any, padding: Any,
          data_format: str, name: Optional[str], fname: str) -> Tensor:
    if ksize is None or strides is None:
        raise ValueError(f"{fname} needs ksize and strides")
    padding, fmt = _check_common(padding, data_format, fname)
    x = convert_to_tensor(value)
    if x.dtype.np.kind not in "iuf":
        raise TypeError(f"{fname} does not support dtype {x.dtype.name}")
    if op_type == "AvgPool" and not x.dtype.is_floating:
        raise TypeError(f"avg_pool needs a floating-point input, got {x.dtype.name}")
    if x.shape.ndims is not None and x.shape.ndims != 4:
        raise ValueError(f"{fname}: input must be rank 4, got shape {x.shape}")
    attrs = {"ksize": _four(ksize, "ksize", fmt), "strides": _four(strides, "strides", fmt),
             "padding": padding, "data_format": "NHWC"}
    y = make_tensor(op_type, [_to_nhwc(x, fmt)], x.dtype, attrs, name=name or op_type)
    return _from_nhwc(y, fmt)


def max_pool(value: Any = None, ksize: Any = None, strides: Any = None, padding: Any = None,
             data_format: str = "NHWC", name: Optional[str] = None,
             input: Any = None) -> Tensor:  # noqa: A002
    """Maximum over ``ksize`` windows of ``value`` [N,H,W,C]."""
    return _pool("MaxPool", value if value is not None else input, ksize, strides, padding,
                 data_format, name, "max_pool")


def avg_pool(value: Any = None, ksize: Any = None, strides: Any = None, padding: Any = None,
             data_format: str = "NHWC", name: Optional[str] = None,
             input: Any = None) -> Tensor:  # noqa: A002
    """Mean over ``ksize`` windows of ``value`` [N,H,W,C]; SAME padding is not counted."""
    return _pool("AvgPool", value if value is not None else input, ksize, strides, padding,
                 data_format, name, "avg_pool")


def max_pool_grad(orig_input: Any, orig_output: Any, grad: Any, ksize: Sequence[int],
                  strides: Sequence[int], padding: str, name: Optional[str] = None) -> Tensor:
    """Gradient of ``max_pool``: each window's gradient goes to its (first) maximum."""
    x = convert_to_tensor(orig_input)
    attrs = {"ksize": list(ksize), "strides": list(strides), "padding": padding,
             "data_format": "NHWC"}
    return make_tensor("MaxPoolGrad", [x, orig_output, grad], x.dtype, attrs,
                       name=name or "MaxPoolGrad")


def avg_pool_grad(orig_input_shape: Any, grad: Any, ksize: Sequence[int],
                  strides: Sequence[int], padding: str, name: Optional[str] = None) -> Tensor:
    """Gradient of ``avg_pool``: each window's gradient spread evenly over its inputs."""
    g = convert_to_tensor(grad)
    attrs = {"ksize": list(ksize), "strides": list(strides), "padding": padding,
             "data_format": "NHWC"}
    return make_tensor("AvgPoolGrad", [_sizes(orig_input_shape), g], g.dtype, attrs,
                       name=name or "AvgPoolGrad")


__all__ = ["conv2d", "conv2d_backprop_input", "conv2d_backprop_filter", "max_pool",
           "avg_pool"]
