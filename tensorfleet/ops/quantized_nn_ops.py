"""``tf.nn.quantized_avg_pool``, ``quantized_max_pool`` and ``quantized_conv2d``: the
NHWC pooling and convolution of 8-bit quantized tensors, each with the float range its
values stand for (TensorFlow's ``QuantizedAvgPool``, ``QuantizedMaxPool`` and
``QuantizedConv2D``).

Pooling keeps the input's range. The convolution subtracts each operand's zero point
(the quantized value of 0.0 in its range), sums the products in int32 and returns the
range one int32 step stands for: ``(max - min) / 255`` of the input times that of the
filter, over the whole int32 range.
"""

from __future__ import annotations

import collections
import math
from typing import Any, List, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, scalar, unknown_shape
from tensorfleet.ops.op_util import make_op

QuantizedPool = collections.namedtuple("QuantizedPool", ["output", "min_output", "max_output"])
QuantizedConv2D = collections.namedtuple("QuantizedConv2D",
                                         ["output", "min_output", "max_output"])


def out_size(size: int, k: int, stride: int, padding: str) -> int:
    """The output length of one spatial dimension (TensorFlow's SAME / VALID)."""
    if padding == "VALID":
        return max(math.ceil((size - k + 1) / stride), 0)
    return math.ceil(size / stride)


def _spatial_shape(op: Any, k_rows: int, k_cols: int, channels: Any) -> List[TensorShape]:
    s = op.inputs[0].shape
    a = op.attrs
    if s.ndims != 4:
        return [unknown_shape(4), scalar(), scalar()]
    b, h, w, _ = s.as_list()
    oh = None if h is None else out_size(h, k_rows, a["strides"][1], a["padding"])
    ow = None if w is None else out_size(w, k_cols, a["strides"][2], a["padding"])
    return [TensorShape([b, oh, ow, channels]), scalar(), scalar()]


def _pool_shape(op: Any) -> List[TensorShape]:
    s = op.inputs[0].shape
    return _spatial_shape(op, op.attrs["ksize"][1], op.attrs["ksize"][2],
                          s.as_list()[3] if s.ndims == 4 else None)


def _conv_shape(op: Any) -> List[TensorShape]:
    f = op.inputs[1].shape
    if f.ndims != 4 or None in f.as_list()[:2]:
        return [unknown_shape(4), scalar(), scalar()]
    kh, kw, _, out = f.as_list()
    return _spatial_shape(op, kh, kw, out)


register_op("QuantizedAvgPool", _pool_shape)
register_op("QuantizedMaxPool", _pool_shape)
register_op("QuantizedConv2D", _conv_shape)


def _four(name: str, v: Any, fname: str) -> List[int]:
    v = list(v) if isinstance(v, (list, tuple)) else None
    if v is None or len(v) != 4 or v[0] != 1 or v[3] != 1 or any(
            isinstance(x, bool) or not isinstance(x, int) or x < 1 for x in v):
        raise ValueError(f"{fname}: {name} must be [1, rows, cols, 1] of positive ints, "
                         f"got {v}")
    return v


def _padding(padding: Any, fname: str) -> str:
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"{fname}: padding must be 'SAME' or 'VALID', got {padding!r}")
    return padding


def _quantized(x: Any, what: str, fname: str) -> Any:
    t = convert_to_tensor(x, name=what)
    if t.dtype not in (_dtypes.quint8, _dtypes.qint8):
        raise TypeError(f"{fname}: {what} must be quint8 or qint8, got {t.dtype.name}")
    if t.shape.ndims not in (None, 4):
        raise ValueError(f"{fname}: {what} must have rank 4, got shape {t.shape}")
    return t


def _range(v: Any, what: str) -> Any:
    return convert_to_tensor(v, dtype=_dtypes.float32, name=what)


def _pool(op_type: str, fname: str, input: Any, min_input: Any, max_input: Any,  # noqa: A002
          ksize: Sequence[int], strides: Sequence[int], padding: str,
          name: Optional[str]) -> QuantizedPool:
    k, s = _four("ksize", ksize, fname), _four("strides", strides, fname)
    pad = _padding(padding, fname)
    with name_scope(name, op_type):
        x = _quantized(input, "input", fname)
        op = make_op(op_type, [x, _range(min_input, "min_input"),
                               _range(max_input, "max_input")],
                     [x.dtype, _dtypes.float32, _dtypes.float32],
                     {"T": x.dtype, "ksize": k, "strides": s, "padding": pad}, name=op_type)
        return QuantizedPool(*op.outputs)


def quantized_avg_pool(input: Any, min_input: Any, max_input: Any,  # noqa: A002 - TF name
                       ksize: Sequence[int], strides: Sequence[int], padding: str,
                       name: Optional[str] = None) -> QuantizedPool:
    """The mean of each window of ``input`` (quantized NHWC), rounded half up, over the
    window's elements inside the image; the range passes through.

    Raises:
      ValueError: for ``ksize`` / ``strides`` not ``[1, r, c, 1]`` or a bad padding.
      TypeError: ``input`` not quint8 or qint8.
    """
    return _pool("QuantizedAvgPool", "quantized_avg_pool", input, min_input, max_input,
                 ksize, strides, padding, name)


def quantized_max_pool(input: Any, min_input: Any, max_input: Any,  # noqa: A002 - TF name
                       ksize: Sequence[int], strides: Sequence[int], padding: str,
                       name: Optional[str] = None) -> QuantizedPool:
    """The maximum of each window of ``input`` (quantized NHWC); the range passes
    through.

    Raises:
      ValueError: for ``ksize`` / ``strides`` not ``[1, r, c, 1]`` or a bad padding.
      TypeError: ``input`` not quint8 or qint8.
    """
    return _pool("QuantizedMaxPool", "quantized_max_pool", input, min_input, max_input,
                 ksize, strides, padding, name)


def quantized_conv2d(input: Any, filter: Any, min_input: Any,  # noqa: A002 - TF names
                     max_input: Any, min_filter: Any, max_filter: Any,
                     strides: Sequence[int], padding: str, out_type: Any = _dtypes.qint32,
                     dilations: Sequence[int] = (1, 1, 1, 1),
                     name: Optional[str] = None) -> QuantizedConv2D:
    """2-D convolution of quantized ``input`` [N, H, W, C] with quantized ``filter``
    [KH, KW, C, O]: a qint32 result and the float range it stands for.

    Raises:
      ValueError: for ``strides`` not ``[1, r, c, 1]``, dilations other than 1, a bad
        padding, ``out_type`` other than qint32 or channel counts that differ.
      TypeError: operands not quint8 or qint8.
    """
    fname = "quantized_conv2d"
    s = _four("strides", strides, fname)
    if list(dilations) != [1, 1, 1, 1]:
        raise ValueError(f"{fname}: dilations other than 1 are not supported, got "
                         f"{list(dilations)}")
    if _dtypes.as_dtype(out_type) is not _dtypes.qint32:
        raise ValueError(f"{fname}: out_type must be qint32, got {out_type!r}")
    pad = _padding(padding, fname)
    with name_scope(name, "QuantizedConv2D"):
        x = _quantized(input, "input", fname)
        w = _quantized(filter, "filter", fname)
        cx = x.shape[3] if x.shape.ndims == 4 else None
        cw = w.shape[2] if w.shape.ndims == 4 else None
        if cx is not None and cw is not None and int(cx) != int(cw):
            raise ValueError(f"{fname}: input has {int(cx)} channels but the filter expects "
                             f"{int(cw)}")
        op = make_op("QuantizedConv2D",
                     [x, w, _range(min_input, "min_input"), _range(max_input, "max_input"),
                      _range(min_filter, "min_filter"), _range(max_filter, "max_filter")],
                     [_dtypes.qint32, _dtypes.float32, _dtypes.float32],
                     {"Tinput": x.dtype, "Tfilter": w.dtype, "out_type": _dtypes.qint32,
                      "strides": s, "padding": pad, "dilations": [1, 1, 1, 1]},
                     name="QuantizedConv2D")
        return QuantizedConv2D(*op.outputs)


__all__ = ["quantized_avg_pool", "quantized_max_pool", "quantized_conv2d", "out_size"]
