"""Grey-scale morphology: ``tf.nn.dilation2d`` (the ``Dilation2D`` op: the maximum of
``input + filter`` over each window) and ``tf.nn.erosion2d`` (its dual), NHWC, with
strides, rates (atrous windows) and SAME/VALID padding. Gradients flow to the input
element and filter tap that gave each maximum (``Dilation2DBackpropInput`` /
``Dilation2DBackpropFilter``)."""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, unknown_shape
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.op_util import convert_pair, make_tensor
from tensorfleet.ops.sort_ops import reverse


def out_size(n: int, k: int, stride: int, rate: int, padding: str) -> tuple:
    """``(output size, padding before)`` of one spatial dimension."""
    eff = (k - 1) * rate + 1
    if padding == "VALID":
        return (n - eff) // stride + 1, 0
    out = -(-n // stride)
    pad = max((out - 1) * stride + eff - n, 0)
    return out, pad // 2


def _shape(op: Any) -> List[TensorShape]:
    x, w = op.inputs[0].shape, op.inputs[1].shape
    if x.ndims is None or w.ndims is None or not w.is_fully_defined():
        return [unknown_shape()]
    b, h, wd, c = x.as_list()
    kh, kw, _ = w.as_list()
    s, r, p = op.attrs["strides"], op.attrs["rates"], op.attrs["padding"]
    oh = None if h is None else out_size(h, kh, s[1], r[1], p)[0]
    ow = None if wd is None else out_size(wd, kw, s[2], r[2], p)[0]
    return [TensorShape([b, oh, ow, c])]


register_op("Dilation2D", _shape)
register_op("Dilation2DBackpropInput", lambda op: [op.inputs[0].shape])
register_op("Dilation2DBackpropFilter", lambda op: [op.inputs[1].shape])


def _four(v: Any, what: str) -> List[int]:
    vals = [int(x) for x in v]
    if len(vals) != 4 or vals[0] != 1 or vals[3] != 1:
        raise ValueError(f"{what} must be [1, h, w, 1], got {v}")
    return vals


def _attrs(strides: Any, rates: Any, padding: str) -> dict:
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding!r}")
    return {"strides": _four(strides, "strides"), "rates": _four(rates, "rates"),
            "padding": padding}


def dilation2d(input: Any, filter: Any = None, strides: Any = None,  # noqa: A002
               rates: Any = None, padding: Optional[str] = None, name: Optional[str] = None,
               filters: Any = None, dilations: Any = None) -> Tensor:
    """Grey-scale dilation of ``input`` ``[batch, h, w, depth]`` by ``filter``
    ``[kh, kw, depth]``: ``max(input[window] + filter)``."""
    w = filters if filter is None else filter
    r = dilations if rates is None else rates
    if w is None or strides is None or r is None or padding is None:
        raise ValueError("dilation2d needs input, filter, strides, rates and padding")
    x, f = convert_pair(input, w)
    if not x.dtype.is_floating and not x.dtype.is_integer:
        raise TypeError(f"dilation2d takes real numbers, got {x.dtype.name}")
    if x.shape.ndims not in (None, 4) or f.shape.ndims not in (None, 3):
        raise ValueError(f"dilation2d needs input [b, h, w, c] and filter [kh, kw, c], got "
                         f"{x.shape} and {f.shape}")
    return make_tensor("Dilation2D", [x, f], x.dtype, _attrs(strides, r, padding),
                       name=name or "Dilation2D")


def erosion2d(value: Any, kernel: Any, strides: Any, rates: Any, padding: str,
              name: Optional[str] = None) -> Tensor:
    """Grey-scale erosion: ``min(value[window] - kernel)`` (the kernel mirrored, as in
    TensorFlow)."""
    with name_scope(name, "erosion2d"):
        k = convert_to_tensor(kernel)
        return M.negative(dilation2d(M.negative(value), reverse(k, [0, 1]), strides, rates,
                                     padding))


def dilation2d_backprop(kind: str, x: Tensor, f: Tensor, grad: Tensor, attrs: dict) -> Tensor:
    """The gradient of ``Dilation2D`` with respect to its input or its filter."""
    op_type = "Dilation2DBackpropInput" if kind == "input" else "Dilation2DBackpropFilter"
    out = x if kind == "input" else f
    return make_tensor(op_type, [x, f, grad], out.dtype, dict(attrs), name=op_type)
