"""The convolutions beside ``conv2d``: transposed (1-D, 2-D and 3-D), depthwise, separable,
atrous, 1-D and 3-D (channels last), and ``tf.nn.convolution``, which picks the 1-, 2- or
3-D one from the rank of its input.

``conv2d_transpose`` is ``Conv2DBackpropInput`` itself, as in TensorFlow: the
transposed convolution of ``value`` with ``filter`` is the gradient of a
``conv2d`` whose output has the shape of ``value``; ``conv3d_transpose`` is
``Conv3DBackpropInputV2`` likewise. 1-D convolution (and its transpose) runs as a
2-D one over a height of 1; atrous convolution is a dilated ``conv2d``.
Depthwise and 3-D convolution and 3-D pooling have kernels of their own
(``nn_conv_variant_kernels``), with their backward passes as ops.
"""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, unknown_shape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import nn_conv_ops as C
from tensorfleet.ops.op_util import const_value, convert_pair, make_tensor


def _depthwise_shape(op: Any) -> List[TensorShape]:
    x, w = op.inputs[0].shape, op.inputs[1].shape
    if w.ndims != 4 or w[0] is None or w[1] is None:
        return [unknown_shape(4)]
    ch = None if w[2] is None or w[3] is None else w[2] * w[3]
    return [C._nhwc_out(x, w[0], w[1], op.attrs, ch)]


def _ndhwc_out(x: TensorShape, k: List[int], attrs: dict, channels: Any) -> TensorShape:
    if x.ndims is None:
        return TensorShape([None] * 4 + [channels])
    if x.ndims != 5:
        raise ValueError(f"Shape must be rank 5 but is rank {x.ndims}")
    s, d = attrs["strides"], attrs.get("dilations", [1] * 5)
    dims = [C.conv_output_size(x[i + 1], k[i], s[i + 1], d[i + 1], attrs["padding"])
            for i in range(3)]
    return TensorShape([x[0]] + dims + [channels])


def _conv3d_shape(op: Any) -> List[TensorShape]:
    x, w = op.inputs[0].shape, op.inputs[1].shape
    if w.ndims != 5 or any(w[i] is None for i in range(3)):
        return [unknown_shape(5)]
    if x.ndims == 5 and x[4] is not None and w[3] is not None and x[4] != w[3]:
        raise ValueError(f"Dimensions must be equal, but are {x[4]} and {w[3]}")
    return [_ndhwc_out(x, [w[0], w[1], w[2]], op.attrs, w[4])]


def _pool3d_shape(op: Any) -> List[TensorShape]:
    x = op.inputs[0].shape
    k = op.attrs["ksize"]
    return [_ndhwc_out(x, k[1:4], op.attrs, x[4] if x.ndims == 5 else None)]


def _sizes_shape5(index: int) -> Any:
    def fn(op: Any) -> List[TensorShape]:
        v = const_value(op.inputs[index])
        return [unknown_shape() if v is None else TensorShape([int(d) for d in v])]
    return fn


register_op("DepthwiseConv2dNative", _depthwise_shape)
register_op("DepthwiseConv2dNativeBackpropInput", C._sizes_shape(0))
register_op("DepthwiseConv2dNativeBackpropFilter", C._sizes_shape(1))
register_op("Conv3D", _conv3d_shape)
register_op("Conv3DBackpropInputV2", _sizes_shape5(0))
register_op("Conv3DBackpropFilterV2", _sizes_shape5(1))
register_op("MaxPool3D", _pool3d_shape)
register_op("AvgPool3D", _pool3d_shape)
register_op("MaxPool3DGrad", lambda op: [op.inputs[0].shape])
register_op("AvgPool3DGrad", _sizes_shape5(0))


def _output_shape_tensor(output_shape: Any) -> Tensor:
    if isinstance(output_shape, Tensor):
        if not output_shape.dtype.is_integer:
            raise TypeError(f"output_shape must be an int32 or int64 tensor, got "
                            f"{output_shape.dtype.name}")
        return output_shape
    try:
        vals = [int(s) for s in output_shape]
    except TypeError:
        return A.stack(list(output_shape))
    return convert_to_tensor(vals, dtype=_dtypes.int32)


def conv2d_transpose(value: Any = None, filter: Any = None,  # noqa: A002
                     output_shape: Any = None, strides: Any = None, padding: str = "SAME",
                     data_format: str = "NHWC", name: Optional[str] = None, input: Any = None,
                     filters: Any = None, dilations: Any = None) -> Tensor:
    """Transposed 2-D convolution ("deconvolution") of ``value`` [N,H,W,C_in].

    ``filter`` is [KH, KW, C_out, C_in] and ``output_shape`` the 4 ints (or an
    int tensor) of the result [N,H',W',C_out]: ``value`` must be what ``conv2d``
    with the same filter, strides and padding makes of a tensor of that shape.

    Raises:
      ValueError: for channel counts that do not match the filter, an output
        shape that ``conv2d`` would not map onto ``value``'s shape, or a bad padding.
    """
    x = value if value is not None else input
    w = filter if filter is not None else filters
    if x is None or w is None or output_shape is None or strides is None:
        raise ValueError("conv2d_transpose needs value, filter, output_shape and strides")
    padding, fmt = C._check_common(padding, data_format, "conv2d_transpose")
    x, w = convert_pair(x, w)
    if not x.dtype.is_floating:
        raise TypeError(f"conv2d_transpose needs floating-point inputs, got {x.dtype.name}")
    if w.shape.ndims is not None and w.shape.ndims != 4:
        raise ValueError(f"conv2d_transpose: filter must be rank 4, got shape {w.shape}")
    if x.shape.ndims is not None and x.shape.ndims != 4:
        raise ValueError(f"conv2d_transpose: value must be rank 4, got shape {x.shape}")
    cax = 3 if fmt == "NHWC" else 1
    if x.shape.ndims == 4 and w.shape.ndims == 4 and None not in (x.shape[cax], w.shape[3]) \
            and x.shape[cax] != w.shape[3]:
        raise ValueError(f"conv2d_transpose: value has {x.shape[cax]} channels but the "
                         f"filter's last dimension (in_channels) is {w.shape[3]}")
    sizes = _output_shape_tensor(output_shape)
    known = const_value(sizes)
    if known is not None:
        known = [int(v) for v in known.reshape(-1)]
        if len(known) != 4:
            raise ValueError(f"conv2d_transpose: output_shape must have 4 elements, got "
                             f"{known}")
        if fmt == "NCHW":
            known = [known[0], known[2], known[3], known[1]]
            sizes = convert_to_tensor(known, dtype=sizes.dtype)
        if w.shape.ndims == 4 and w.shape[2] is not None and known[3] != w.shape[2]:
            raise ValueError(f"conv2d_transpose: output_shape has {known[3]} channels but "
                             f"the filter's third dimension (out_channels) is {w.shape[2]}")
        _check_transpose_fits(known, x, w, strides, padding, fmt, dilations)
    partial = A.partial_values(sizes) if known is None else None
    if known is None and fmt == "NCHW":
        sizes = A.gather(sizes, [0, 2, 3, 1])
    y = C.conv2d_backprop_input(sizes, w, C._to_nhwc(x, fmt), strides=_nhwc4(strides, fmt),
                                padding=padding, dilations=_nhwc4(dilations or 1, fmt),
                                name=(name or "conv2d_transpose") if fmt == "NHWC" else None)
    y = C._from_nhwc(y, fmt)
    if partial is not None and len(partial) == 4:
        # An output shape built from tensors still fixes the dims given as numbers.
        y.set_shape(partial)
    return y


def _nhwc4(v: Any, fmt: str) -> List[int]:
    return C._four(v, "strides", fmt)


def _check_transpose_fits(out: List[int], x: Tensor, w: Tensor, strides: Any, padding: str,
                          fmt: str, dilations: Any) -> None:
    s = _nhwc4(strides, fmt)
    d = _nhwc4(dilations or 1, fmt)
    xs = x.shape.as_list() if x.shape.ndims == 4 else None
    if xs is None or w.shape.ndims != 4 or w.shape[0] is None or w.shape[1] is None:
        return
    if fmt == "NCHW":
        xs = [xs[0], xs[2], xs[3], xs[1]]
    for i, k in ((1, w.shape[0]), (2, w.shape[1])):
        want = C.conv_output_size(out[i], k, s[i], d[i], padding)
        if xs[i] is not None and want != xs[i]:
            raise ValueError(f"conv2d_transpose: an output of shape {out} convolved with "
                             f"strides {s} and padding {padding} gives spatial size {want} in "
                             f"dimension {i}, but value has {xs[i]} (shape {x.shape})")


def depthwise_conv2d_native(input: Any, filter: Any, strides: Any,  # noqa: A002
                            padding: str, data_format: str = "NHWC", dilations: Any = None,
                            name: Optional[str] = None) -> Tensor:
    """Depthwise 2-D convolution: each input channel convolved with its own
    ``channel_multiplier`` filters; ``filter`` is [KH, KW, C, M], the output has C*M
    channels, ordered channel-major (``c * M + m``)."""
    padding, fmt = C._check_common(padding, data_format, "depthwise_conv2d_native")
    x, w = convert_pair(input, filter)
    if not x.dtype.is_floating:
        raise TypeError(f"depthwise_conv2d needs floating-point inputs, got {x.dtype.name}")
    for t, what in ((x, "input"), (w, "filter")):
        if t.shape.ndims is not None and t.shape.ndims != 4:
            raise ValueError(f"depthwise_conv2d: {what} must be rank 4, got shape {t.shape}")
    xn = C._to_nhwc(x, fmt)
    if xn.shape.ndims == 4 and w.shape.ndims == 4 and None not in (xn.shape[3], w.shape[2]) \
            and xn.shape[3] != w.shape[2]:
        raise ValueError(f"depthwise_conv2d: input has {xn.shape[3]} channels but the filter's "
                         f"in_channels is {w.shape[2]}")
    attrs = {"strides": C._four(strides, "strides", fmt), "padding": padding,
             "dilations": C._four(dilations if dilations is not None else 1, "dilations", fmt),
             "data_format": "NHWC"}
    y = make_tensor("DepthwiseConv2dNative", [xn, w], x.dtype, attrs,
                    name=name or "DepthwiseConv2dNative")
    return C._from_nhwc(y, fmt)


def depthwise_conv2d_native_backprop_input(input_sizes: Any, filter: Any,  # noqa: A002
                                           out_backprop: Any, strides: Any, padding: str,
                                           dilations: Any = None,
                                           name: Optional[str] = None) -> Tensor:
    """Gradient of ``depthwise_conv2d_native`` with respect to its input (NHWC)."""
    w, dy = convert_pair(filter, out_backprop)
    attrs = {"strides": list(strides), "padding": padding,
             "dilations": list(dilations or [1, 1, 1, 1]), "data_format": "NHWC"}
    return make_tensor("DepthwiseConv2dNativeBackpropInput", [C._sizes(input_sizes), w, dy],
                       w.dtype, attrs, name=name or "DepthwiseConv2dNativeBackpropInput")


def depthwise_conv2d_native_backprop_filter(input: Any, filter_sizes: Any,  # noqa: A002
                                            out_backprop: Any, strides: Any, padding: str,
                                            dilations: Any = None,
                                            name: Optional[str] = None) -> Tensor:
    """Gradient of ``depthwise_conv2d_native`` with respect to its filter (NHWC)."""
    x, dy = convert_pair(input, out_backprop)
    attrs = {"strides": list(strides), "padding": padding,
             "dilations": list(dilations or [1, 1, 1, 1]), "data_format": "NHWC"}
    return make_tensor("DepthwiseConv2dNativeBackpropFilter", [x, C._sizes(filter_sizes), dy],
                       x.dtype, attrs, name=name or "DepthwiseConv2dNativeBackpropFilter")


def _rate_pair(rate: Any, dilations: Any, fname: str) -> Any:
    if rate is not None and dilations is not None:
        raise ValueError(f"{fname}: give rate or dilations, not both")
    r = dilations if dilations is not None else rate
    if r is None:
        return None
    return [int(r), int(r)] if isinstance(r, int) else [int(v) for v in r]


def depthwise_conv2d(input: Any, filter: Any, strides: Any, padding: str,  # noqa: A002
                     rate: Any = None, name: Optional[str] = None,
                     data_format: Optional[str] = None, dilations: Any = None) -> Tensor:
    """Depthwise 2-D convolution, optionally dilated by ``rate`` (then strides must be 1).

    Raises:
      ValueError: for a rate above 1 with strides other than 1, or bad shapes.
    """
    r = _rate_pair(rate, dilations, "depthwise_conv2d")
    s = C._four(strides, "strides", data_format or "NHWC")
    if r is not None and max(r) > 1 and (s[1] > 1 or s[2] > 1):
        raise ValueError(f"depthwise_conv2d: strides must be 1 when rate > 1, got strides "
                         f"{strides} and rate {r}")
    return depthwise_conv2d_native(input, filter, strides, padding,
                                   data_format=data_format or "NHWC", dilations=r,
                                   name=name or "depthwise")


def separable_conv2d(input: Any, depthwise_filter: Any, pointwise_filter: Any,  # noqa: A002
                     strides: Any, padding: str, rate: Any = None, name: Optional[str] = None,
                     data_format: Optional[str] = None, dilations: Any = None) -> Tensor:
    """A depthwise convolution followed by a 1x1 ``conv2d`` mixing the channels.

    ``pointwise_filter`` is [1, 1, C*M, C_out].

    Raises:
      ValueError: for a pointwise filter that is not 1x1 or does not match C*M.
    """
    pw = convert_to_tensor(pointwise_filter)
    if pw.shape.ndims == 4 and (pw.shape[0] not in (1, None) or pw.shape[1] not in (1, None)):
        raise ValueError(f"separable_conv2d: pointwise_filter must be [1, 1, in, out], got "
                         f"shape {pw.shape}")
    fmt = data_format or "NHWC"
    mid = depthwise_conv2d(input, depthwise_filter, strides, padding, rate=rate,
                           data_format=fmt, dilations=dilations)
    return C.conv2d(mid, pw, [1, 1, 1, 1], "VALID", data_format=fmt,
                    name=name or "separable_conv2d")


def atrous_conv2d(value: Any, filters: Any, rate: int, padding: str,
                  name: Optional[str] = None) -> Tensor:
    """2-D convolution with holes: the filter taps are ``rate`` pixels apart, stride 1.

    Raises:
      ValueError: for a rate below 1.
    """
    if int(rate) < 1:
        raise ValueError(f"atrous_conv2d: rate must be >= 1, got {rate}")
    return C.conv2d(value, filters, [1, 1, 1, 1], padding,
                    dilations=[1, int(rate), int(rate), 1], name=name or "convolution")


def conv1d(value: Any = None, filters: Any = None, stride: Any = None, padding: Any = None,
           use_cudnn_on_gpu: Any = None, data_format: Optional[str] = None,
           name: Optional[str] = None, input: Any = None,  # noqa: A002
           dilations: Any = None) -> Tensor:
    """1-D convolution of ``value`` [N, W, C] ("NWC") or [N, C, W] ("NCW") with
    ``filters`` [K, C, O]; runs as a 2-D convolution over a height of 1.

    Raises:
      ValueError: for an unknown data_format, bad ranks or a bad stride.
    """
    x = value if value is not None else input
    if x is None or filters is None or stride is None or padding is None:
        raise ValueError("conv1d needs value, filters, stride and padding")
    fmt = data_format or "NWC"
    if fmt not in ("NWC", "NHWC", "NCW", "NCHW"):
        raise ValueError(f"conv1d: data_format must be 'NWC' or 'NCW', got {data_format!r}")
    channels_last = fmt in ("NWC", "NHWC")
    s = _one_int(stride, "stride")
    dl = _one_int(dilations, "dilations") if dilations is not None else 1
    x, w = convert_pair(x, filters)
    if x.shape.ndims is not None and x.shape.ndims != 3:
        raise ValueError(f"conv1d: value must be rank 3, got shape {x.shape}")
    if w.shape.ndims is not None and w.shape.ndims != 3:
        raise ValueError(f"conv1d: filters must be rank 3, got shape {w.shape}")
    x4 = A.expand_dims(x, 1 if channels_last else 2)
    w4 = A.expand_dims(w, 0)
    y = C.conv2d(x4, w4, [1, 1, s, 1] if channels_last else [1, 1, 1, s], padding,
                 data_format="NHWC" if channels_last else "NCHW",
                 dilations=[1, 1, dl, 1] if channels_last else [1, 1, 1, dl])
    return A.squeeze(y, [1 if channels_last else 2], name=name or "conv1d")


def conv1d_transpose(input: Any, filters: Any, output_shape: Any,  # noqa: A002
                     strides: Any, padding: str = "SAME", data_format: str = "NWC",
                     dilations: Any = None, name: Optional[str] = None) -> Tensor:
    """Transposed 1-D convolution of ``input`` [N,W,C_in] with ``filters`` [K,C_out,C_in]
    into ``output_shape`` [N,W',C_out], run as a 2-D one over a height of 1."""
    if data_format != "NWC":
        raise ValueError(f"conv1d_transpose supports data_format 'NWC' only, got "
                         f"{data_format!r}")
    s = C.spatial_ints(strides, 1, True, "strides")[0]
    d = C.spatial_ints(dilations if dilations is not None else 1, 1, True, "dilations")[0]
    with name_scope(name or "conv1d_transpose"):
        x = A.expand_dims(convert_to_tensor(input), 1)
        w = A.expand_dims(convert_to_tensor(filters, dtype=x.dtype), 0)
        if isinstance(output_shape, Tensor):
            shp = A.concat([output_shape[:1], [1], output_shape[1:]], 0)
        else:
            o = [int(v) for v in output_shape]
            if len(o) != 3:
                raise ValueError(f"conv1d_transpose: output_shape must have 3 entries, got {o}")
            shp = [o[0], 1, o[1], o[2]]
        y = conv2d_transpose(x, w, shp, [1, 1, s, 1], padding,
                             dilations=None if d == 1 else [1, 1, d, 1])
        return A.squeeze(y, axis=[1])


def _one_int(v: Any, what: str) -> int:
    if isinstance(v, int):
        return v
    vals = [int(i) for i in v]
    if len(vals) == 1:
        return vals[0]
    if len(vals) == 3 and vals[0] == 1 and vals[2] == 1:
        return vals[1]
    raise ValueError(f"conv1d: {what} must be an int or [1, s, 1], got {list(v)}")


# -- 3-D convolution and pooling (NDHWC) ------------------------------------------------------

def _five(v: Any, what: str, fname: str) -> List[int]:
    """Strides/ksize/dilations as 5 NDHWC ints from an int, 3 or 5 values."""
    if isinstance(v, int):
        vals = [1, v, v, v, 1]
    else:
        vals = [int(i) for i in v]
        if len(vals) == 3:
            vals = [1] + vals + [1]
        elif len(vals) != 5:
            raise ValueError(f"{fname}: {what} must have 1, 3 or 5 entries, got {list(v)}")
    if vals[0] != 1 or vals[4] != 1:
        raise ValueError(f"{fname}: {what} in the batch and depth dimensions must be 1, got "
                         f"{list(v)}")
    if min(vals) < 1:
        raise ValueError(f"{fname}: {what} must be positive, got {list(v)}")
    return vals


def _check3(padding: Any, data_format: Optional[str], fname: str) -> str:
    if not isinstance(padding, str) or padding not in ("SAME", "VALID"):
        raise ValueError(f"{fname}: padding must be 'SAME' or 'VALID', got {padding!r}")
    if (data_format or "NDHWC") != "NDHWC":
        raise ValueError(f"{fname}: only data_format='NDHWC' is supported on CPU, got "
                         f"{data_format!r}")
    return padding


def conv3d(input: Any, filter: Any = None, strides: Any = None,  # noqa: A002
           padding: Any = None, data_format: str = "NDHWC", dilations: Any = None,
           name: Optional[str] = None, filters: Any = None) -> Tensor:
    """3-D cross-correlation of ``input`` [N,D,H,W,C] with ``filter`` [KD,KH,KW,C,O].

    Raises:
      ValueError: for a padding other than 'SAME'/'VALID', bad strides, an NCDHW
        layout or channel counts that do not match.
    """
    filt = filter if filter is not None else filters
    if filt is None or strides is None:
        raise ValueError("conv3d needs filter and strides")
    padding = _check3(padding, data_format, "conv3d")
    x, w = convert_pair(input, filt)
    if not x.dtype.is_floating:
        raise TypeError(f"conv3d needs floating-point inputs, got {x.dtype.name}")
    if x.shape.ndims is not None and x.shape.ndims != 5:
        raise ValueError(f"conv3d: input must be rank 5, got shape {x.shape}")
    attrs = {"strides": _five(strides, "strides", "conv3d"), "padding": padding,
             "dilations": _five(dilations if dilations is not None else 1, "dilations",
                                "conv3d"), "data_format": "NDHWC"}
    return make_tensor("Conv3D", [x, w], x.dtype, attrs, name=name or "Conv3D")


def conv3d_backprop_input_v2(input_sizes: Any, filter: Any, out_backprop: Any,  # noqa: A002
                             strides: Any, padding: str, data_format: str = "NDHWC",
                             dilations: Any = None, name: Optional[str] = None) -> Tensor:
    """Gradient of ``conv3d`` with respect to its input."""
    padding = _check3(padding, data_format, "conv3d_backprop_input_v2")
    w, dy = convert_pair(filter, out_backprop)
    attrs = {"strides": _five(strides, "strides", "conv3d"), "padding": padding,
             "dilations": _five(dilations or 1, "dilations", "conv3d"), "data_format": "NDHWC"}
    sizes = input_sizes if isinstance(input_sizes, Tensor) else convert_to_tensor(
        [int(s) for s in input_sizes], dtype=_dtypes.int32)
    return make_tensor("Conv3DBackpropInputV2", [sizes, w, dy], w.dtype, attrs,
                       name=name or "Conv3DBackpropInputV2")


def conv3d_backprop_filter_v2(input: Any, filter_sizes: Any, out_backprop: Any,  # noqa: A002
                              strides: Any, padding: str, data_format: str = "NDHWC",
                              dilations: Any = None, name: Optional[str] = None) -> Tensor:
    """Gradient of ``conv3d`` with respect to its filter."""
    padding = _check3(padding, data_format, "conv3d_backprop_filter_v2")
    x, dy = convert_pair(input, out_backprop)
    attrs = {"strides": _five(strides, "strides", "conv3d"), "padding": padding,
             "dilations": _five(dilations or 1, "dilations", "conv3d"), "data_format": "NDHWC"}
    sizes = filter_sizes if isinstance(filter_sizes, Tensor) else convert_to_tensor(
        [int(s) for s in filter_sizes], dtype=_dtypes.int32)
    return make_tensor("Conv3DBackpropFilterV2", [x, sizes, dy], x.dtype, attrs,
                       name=name or "Conv3DBackpropFilterV2")


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
    s = C.spatial_ints(strides if strides is not None else 1, n, last, "strides")
    d = C.spatial_ints(rate if rate is not None else 1, n, last, "dilation_rate")
    if n == 1:
        fmt = data_format or "NWC"
        return conv1d(x, f, stride=s[0], padding=padding, data_format=fmt, name=name,
                      dilations=d[0] if d[0] != 1 else None)
    full = (lambda v: [1] + v + [1]) if last else (lambda v: [1, 1] + v)
    if n == 2:
        return C.conv2d(x, f, strides=full(s), padding=padding,
                        data_format=data_format or "NHWC", dilations=full(d), name=name)
    return conv3d(x, f, strides=full(s), padding=padding, data_format=data_format or "NDHWC",
                  dilations=full(d), name=name)


def _pool3d(op_type: str, input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
            data_format: str, name: Optional[str], fname: str) -> Tensor:
    if ksize is None or strides is None:
        raise ValueError(f"{fname} needs ksize and strides")
    padding = _check3(padding, data_format, fname)
    x = convert_to_tensor(input)
    if not x.dtype.is_floating:
        raise TypeError(f"{fname} needs a floating-point input, got {x.dtype.name}")
    if x.shape.ndims is not None and x.shape.ndims != 5:
        raise ValueError(f"{fname}: input must be rank 5, got shape {x.shape}")
    attrs = {"ksize": _five(ksize, "ksize", fname), "strides": _five(strides, "strides", fname),
             "padding": padding, "data_format": "NDHWC"}
    return make_tensor(op_type, [x], x.dtype, attrs, name=name or op_type)


def max_pool3d(input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002
               data_format: str = "NDHWC", name: Optional[str] = None) -> Tensor:
    """Maximum over ``ksize`` windows of ``input`` [N,D,H,W,C]."""
    return _pool3d("MaxPool3D", input, ksize, strides, padding, data_format, name,
                   "max_pool3d")


def avg_pool3d(input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002
               data_format: str = "NDHWC", name: Optional[str] = None) -> Tensor:
    """Mean over ``ksize`` windows of ``input`` [N,D,H,W,C]; padding is not counted."""
    return _pool3d("AvgPool3D", input, ksize, strides, padding, data_format, name,
                   "avg_pool3d")



def conv_transpose(input: Any, filters: Any, output_shape: Any, strides: Any,  # noqa: A002
                   padding: str = "SAME", data_format: Optional[str] = None,
                   dilations: Any = None, name: Optional[str] = None) -> Tensor:
    """``tf.nn.conv_transpose``: ``conv1d_transpose``, ``conv2d_transpose`` or
    ``conv3d_transpose``, chosen by the rank of ``input`` (3, 4 or 5).

    Raises:
      ValueError: an input of another or unknown rank.
    """
    x = convert_to_tensor(input)
    rank = x.shape.ndims
    if rank == 3:
        return conv1d_transpose(x, filters, output_shape, strides, padding,
                                data_format or "NWC", dilations, name)
    if rank == 4:
        return conv2d_transpose(x, filters, output_shape, strides, padding,
                                data_format or "NHWC", name, dilations=dilations)
    if rank == 5:
        return conv3d_transpose(x, filters, output_shape, strides, padding,
                                data_format or "NDHWC", name, dilations=dilations)
    raise ValueError(f"conv_transpose: input must have rank 3, 4 or 5 (known when the graph "
                     f"is built), got {x.shape}")


__all__ = ["conv2d_transpose", "depthwise_conv2d", "depthwise_conv2d_native",
           "separable_conv2d", "atrous_conv2d", "conv1d", "conv1d_transpose", "conv3d",
           "conv3d_transpose", "conv3d_backprop_filter", "convolution", "max_pool3d",
           "avg_pool3d", "conv_transpose"]


def conv2d_backprop_filter_v2(input: Any, filter: Any, out_backprop: Any,  # noqa: A002
                              strides: Any, padding: str, use_cudnn_on_gpu: bool = True,
                              data_format: str = "NHWC", dilations: Any = None,
                              name: Optional[str] = None) -> Tensor:
    """``conv2d_backprop_filter`` given the filter itself (its shape is what is used)."""
    w = convert_to_tensor(filter)
    sizes = w.shape.as_list() if w.shape.is_fully_defined() else A.shape(w)
    return C.conv2d_backprop_filter(input, sizes, out_backprop, strides, padding,
                                    use_cudnn_on_gpu, data_format, dilations, name)


def conv2d_backprop_input_v2(input: Any, filter: Any, out_backprop: Any,  # noqa: A002
                             strides: Any, padding: str, use_cudnn_on_gpu: bool = True,
                             data_format: str = "NHWC", dilations: Any = None,
                             name: Optional[str] = None) -> Tensor:
    """``conv2d_backprop_input`` given the input itself (its shape is what is used)."""
    x = convert_to_tensor(input)
    sizes = x.shape.as_list() if x.shape.is_fully_defined() else A.shape(x)
    return C.conv2d_backprop_input(sizes, filter, out_backprop, strides, padding,
                                   use_cudnn_on_gpu, data_format, dilations, name)


def atrous_conv2d_transpose(value: Any, filters: Any, output_shape: Any, rate: int,
                            padding: str, name: Optional[str] = None) -> Tensor:
    """The transpose of ``atrous_conv2d``: a transposed convolution with the filter
    dilated by ``rate``."""
    if int(rate) < 1:
        raise ValueError(f"rate {rate} cannot be less than one")
    return conv2d_transpose(value, filters, output_shape, strides=[1, 1, 1, 1],
                            padding=padding, dilations=[1, int(rate), int(rate), 1],
                            name=name or "atrous_conv2d_transpose")
