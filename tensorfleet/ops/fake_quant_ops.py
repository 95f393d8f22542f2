"""Simulated quantization for quantization-aware training: ``tf.fake_quant_with_min_max_args``
/ ``_vars`` / ``_vars_per_channel`` and their ``_gradient`` ops (TensorFlow's op types).

The range ``[min, max]`` is first nudged so that zero is exactly representable, values
are clamped to it and rounded to one of ``2^num_bits`` levels (one fewer with
``narrow_range``). The gradient passes straight through inside the nudged range; outside
it flows to ``min`` (below) or ``max`` (above).
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops.op_util import make_op, make_tensor, same_shape

for _t in ("FakeQuantWithMinMaxArgs", "FakeQuantWithMinMaxArgsGradient",
           "FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxVarsPerChannel"):
    register_op(_t, same_shape)


def _grad_shapes(op: Any) -> List[TensorShape]:
    return [op.inputs[1].shape, op.inputs[2].shape, op.inputs[3].shape]


register_op("FakeQuantWithMinMaxVarsGradient", _grad_shapes)
register_op("FakeQuantWithMinMaxVarsPerChannelGradient", _grad_shapes)


def _attrs(num_bits: int, narrow_range: bool) -> dict:
    if not 2 <= int(num_bits) <= 16:
        raise ValueError(f"num_bits is out of range, expected between 2 and 16, was: "
                         f"{num_bits}")
    return {"num_bits": int(num_bits), "narrow_range": bool(narrow_range)}


def _float32(x: Any, what: str) -> Tensor:
    t = convert_to_tensor(x, dtype=_dtypes.float32) if not isinstance(x, Tensor) else x
    if t.dtype is not _dtypes.float32:
        raise TypeError(f"{what} must be float32, got {t.dtype.name}")
    return t


def fake_quant_with_min_max_args(inputs: Any, min: float = -6.0,  # noqa: A002
                                 max: float = 6.0, num_bits: int = 8,  # noqa: A002
                                 narrow_range: bool = False,
                                 name: Optional[str] = None) -> Tensor:
    """``inputs`` quantized to ``[min, max]`` given as Python floats."""
    if not float(min) < float(max):
        raise ValueError(f"min ({min}) must be less than max ({max})")
    x = _float32(inputs, "inputs")
    attrs = dict(_attrs(num_bits, narrow_range), min=float(min), max=float(max))
    return make_tensor("FakeQuantWithMinMaxArgs", [x], x.dtype, attrs,
                       name=name or "FakeQuantWithMinMaxArgs")


def fake_quant_with_min_max_args_gradient(gradients: Any, inputs: Any,
                                          min: float = -6.0,  # noqa: A002
                                          max: float = 6.0,  # noqa: A002
                                          num_bits: int = 8, narrow_range: bool = False,
                                          name: Optional[str] = None) -> Tensor:
    """The gradient of ``fake_quant_with_min_max_args`` at ``inputs``."""
    g, x = _float32(gradients, "gradients"), _float32(inputs, "inputs")
    attrs = dict(_attrs(num_bits, narrow_range), min=float(min), max=float(max))
    return make_tensor("FakeQuantWithMinMaxArgsGradient", [g, x], x.dtype, attrs,
                       name=name or "FakeQuantWithMinMaxArgsGradient")


def _vars(op_type: str, inputs: Any, min: Any, max: Any, num_bits: int,  # noqa: A002
          narrow_range: bool, name: Optional[str]) -> Tensor:
    x = _float32(inputs, "inputs")
    lo, hi = _float32(min, "min"), _float32(max, "max")
    return make_tensor(op_type, [x, lo, hi], x.dtype, _attrs(num_bits, narrow_range),
                       name=name or op_type)


def fake_quant_with_min_max_vars(inputs: Any, min: Any, max: Any,  # noqa: A002
                                 num_bits: int = 8, narrow_range: bool = False,
                                 name: Optional[str] = None) -> Tensor:
    """``inputs`` quantized to the range of the scalar tensors ``min`` and ``max``."""
    return _vars("FakeQuantWithMinMaxVars", inputs, min, max, num_bits, narrow_range, name)


def fake_quant_with_min_max_vars_per_channel(inputs: Any, min: Any, max: Any,  # noqa: A002
                                             num_bits: int = 8, narrow_range: bool = False,
                                             name: Optional[str] = None) -> Tensor:
    """``inputs`` quantized per last-dimension channel to the ranges ``min[d]``,
    ``max[d]``."""
    return _vars("FakeQuantWithMinMaxVarsPerChannel", inputs, min, max, num_bits,
                 narrow_range, name)


def _vars_gradient(op_type: str, gradients: Any, inputs: Any, min: Any,  # noqa: A002
                   max: Any, num_bits: int, narrow_range: bool,  # noqa: A002
                   name: Optional[str]) -> Tuple[Tensor, Tensor, Tensor]:
    g, x = _float32(gradients, "gradients"), _float32(inputs, "inputs")
    lo, hi = _float32(min, "min"), _float32(max, "max")
    op = make_op(op_type, [g, x, lo, hi], [x.dtype] * 3, _attrs(num_bits, narrow_range),
                 name=name or op_type)
    return tuple(op.outputs)  # type: ignore[return-value]


def fake_quant_with_min_max_vars_gradient(gradients: Any, inputs: Any, min: Any,  # noqa: A002
                                          max: Any, num_bits: int = 8,  # noqa: A002
                                          narrow_range: bool = False,
                                          name: Optional[str] = None) -> tuple:
    """``(d inputs, d min, d max)`` of ``fake_quant_with_min_max_vars``."""
    return _vars_gradient("FakeQuantWithMinMaxVarsGradient", gradients, inputs, min, max,
                          num_bits, narrow_range, name)


def fake_quant_with_min_max_vars_per_channel_gradient(gradients: Any, inputs: Any,
                                                      min: Any, max: Any,  # noqa: A002
                                                      num_bits: int = 8,
                                                      narrow_range: bool = False,
                                                      name: Optional[str] = None) -> tuple:
    """``(d inputs, d min, d max)`` of ``fake_quant_with_min_max_vars_per_channel``."""
    return _vars_gradient("FakeQuantWithMinMaxVarsPerChannelGradient", gradients, inputs,
                          min, max, num_bits, narrow_range, name)
