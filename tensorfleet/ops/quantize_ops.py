"""Quantized tensors: ``tf.quantize`` / ``tf.quantize_v2`` (float to ``qint8`` ...,
TensorFlow's ``QuantizeV2`` op), ``tf.dequantize`` (``Dequantize``) and
``tf.quantized_concat``, in the ``MIN_COMBINED`` and ``SCALED`` modes.

``MIN_COMBINED`` maps ``[min_range, max_range]`` linearly onto the type's whole range;
``SCALED`` uses a symmetric scale so that zero stays zero. The range is first widened to
at least ``ensure_minimum_range`` (relative to its magnitude), as TensorFlow does.
"""

from __future__ import annotations

import collections
from typing import Any, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import scalar
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.array_concat_ops import concat
from tensorfleet.ops.op_util import make_op, make_tensor, same_shape

QuantizeV2 = collections.namedtuple("QuantizeV2", ["output", "output_min", "output_max"])
QuantizedConcat = collections.namedtuple("QuantizedConcat",
                                         ["output", "output_min", "output_max"])

register_op("QuantizeV2", lambda op: [op.inputs[0].shape, scalar(), scalar()])
register_op("Dequantize", same_shape)

_MODES = ("MIN_COMBINED", "SCALED")
_ROUND = ("HALF_AWAY_FROM_ZERO", "HALF_TO_EVEN")


def _check(mode: str, axis: Any) -> None:
    if mode == "MIN_FIRST":
        raise ValueError("mode MIN_FIRST is not supported; use MIN_COMBINED or SCALED")
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {_MODES}, got {mode!r}")
    if axis is not None:
        raise ValueError("per-channel quantization (axis) is not supported; quantize each "
                         "channel's slice with its own range")


def _quantized_type(T: Any) -> _dtypes.DType:  # noqa: N803
    dt = _dtypes.as_dtype(T)
    if not dt.is_quantized:
        raise TypeError(f"T must be a quantized type (qint8, quint8, qint16, quint16, "
                        f"qint32), got {dt.name}")
    return dt


def quantize_v2(input: Any, min_range: Any, max_range: Any, T: Any,  # noqa: A002,N803
                mode: str = "MIN_COMBINED", name: Optional[str] = None,
                round_mode: str = "HALF_AWAY_FROM_ZERO", narrow_range: bool = False,
                axis: Any = None, ensure_minimum_range: float = 0.01) -> QuantizeV2:
    """``input`` (float32) quantized to ``T`` over ``[min_range, max_range]``:
    ``(output, output_min, output_max)``, the last two the range actually used."""
    _check(mode, axis)
    if round_mode not in _ROUND:
        raise ValueError(f"round_mode must be one of {_ROUND}, got {round_mode!r}")
    dt = _quantized_type(T)
    x = convert_to_tensor(input, dtype=_dtypes.float32)
    lo = convert_to_tensor(min_range, dtype=_dtypes.float32)
    hi = convert_to_tensor(max_range, dtype=_dtypes.float32)
    attrs = {"T": dt, "mode": mode, "round_mode": round_mode,
             "narrow_range": bool(narrow_range), "axis": -1,
             "ensure_minimum_range": float(ensure_minimum_range)}
    op = make_op("QuantizeV2", [x, lo, hi], [dt, _dtypes.float32, _dtypes.float32], attrs,
                 name=name or "QuantizeV2")
    return QuantizeV2(*op.outputs)


def quantize(input: Any, min_range: Any, max_range: Any, T: Any,  # noqa: A002,N803
             mode: str = "MIN_COMBINED", round_mode: str = "HALF_AWAY_FROM_ZERO",
             name: Optional[str] = None, narrow_range: bool = False, axis: Any = None,
             ensure_minimum_range: float = 0.01) -> QuantizeV2:
    """``quantize_v2`` with TensorFlow 1.x's later argument order."""
    return quantize_v2(input, min_range, max_range, T, mode, name, round_mode, narrow_range,
                       axis, ensure_minimum_range)


def dequantize(input: Any, min_range: Any, max_range: Any,  # noqa: A002
               mode: str = "MIN_COMBINED", name: Optional[str] = None, axis: Any = None,
               narrow_range: bool = False, dtype: Any = _dtypes.float32) -> Tensor:
    """The float values a quantized tensor stands for over ``[min_range, max_range]``."""
    _check(mode, axis)
    x = convert_to_tensor(input)
    if not x.dtype.is_quantized:
        raise TypeError(f"dequantize takes a quantized tensor, got {x.dtype.name}")
    out = _dtypes.as_dtype(dtype)
    if out not in (_dtypes.float32, _dtypes.bfloat16):
        raise TypeError(f"dtype must be float32 or bfloat16, got {out.name}")
    lo = convert_to_tensor(min_range, dtype=_dtypes.float32)
    hi = convert_to_tensor(max_range, dtype=_dtypes.float32)
    attrs = {"T": x.dtype, "mode": mode, "narrow_range": bool(narrow_range), "axis": -1,
             "dtype": out}
    return make_tensor("Dequantize", [x, lo, hi], out, attrs, name=name or "Dequantize")


def quantized_concat(concat_dim: Any, values: Sequence[Any], input_mins: Sequence[Any],
                     input_maxes: Sequence[Any], name: Optional[str] = None) -> QuantizedConcat:
    """Quantized tensors of possibly different ranges concatenated along ``concat_dim``,
    each requantized to the union of the ranges."""
    if not (len(values) == len(input_mins) == len(input_maxes)) or not values:
        raise ValueError("values, input_mins and input_maxes must be equally long and "
                         "non-empty")
    with name_scope(name, "QuantizedConcat"):
        vals = [convert_to_tensor(v) for v in values]
        dt = vals[0].dtype
        if any(v.dtype is not dt for v in vals) or not dt.is_quantized:
            raise TypeError("quantized_concat takes quantized tensors of one type")
        mins = A.stack([convert_to_tensor(m, dtype=_dtypes.float32) for m in input_mins])
        maxes = A.stack([convert_to_tensor(m, dtype=_dtypes.float32) for m in input_maxes])
        lo, hi = M.reduce_min(mins), M.reduce_max(maxes)
        floats = [dequantize(v, mins[i], maxes[i]) for i, v in enumerate(vals)]
        out = quantize_v2(concat(floats, concat_dim), lo, hi, dt, ensure_minimum_range=0.0)
        return QuantizedConcat(out.output, lo, hi)
