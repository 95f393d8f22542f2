"""``tf.fake_quant_with_min_max_*``: simulated quantization. Values are clamped to a range
nudged so that zero is exactly representable, then rounded to one of ``2**num_bits``
(``2**num_bits - 1`` with ``narrow_range``) evenly spaced levels, as in TensorFlow.

The gradient is the straight-through estimate: the incoming gradient where the input lies
inside the nudged range, zero outside; for the ``_vars`` forms, ``min`` and ``max`` receive
the gradient of the inputs below and above the range.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M


def _check_bits(num_bits: int, narrow_range: bool) -> Tuple[float, float]:
    if isinstance(num_bits, bool) or not isinstance(num_bits, int) or not 2 <= num_bits <= 16:
        raise ValueError(f"num_bits must be an int in [2, 16], got {num_bits!r}")
    return (1.0 if narrow_range else 0.0), float(2 ** num_bits - 1)


def _nudged(min_t: Tensor, max_t: Tensor, qmin: float, qmax: float) -> Tuple[Any, Any, Any]:
    """``(nudged_min, nudged_max, scale)``: the range moved so zero is a level."""
    scale = M.divide(M.subtract(max_t, min_t), qmax - qmin)
    zero_from_min = M.subtract(qmin, M.divide(min_t, scale))
    zero = M.round(M.minimum(M.maximum(zero_from_min, qmin), qmax))
    return (M.multiply(M.subtract(qmin, zero), scale),
            M.multiply(M.subtract(qmax, zero), scale), scale)


def _fake_quant(x: Any, min_t: Any, max_t: Any, num_bits: int, narrow_range: bool) -> Tensor:
    qmin, qmax = _check_bits(num_bits, narrow_range)
    x = convert_to_tensor(x, dtype=_dtypes.float32)
    min_t = convert_to_tensor(min_t, dtype=_dtypes.float32)
    max_t = convert_to_tensor(max_t, dtype=_dtypes.float32)
    nmin, nmax, scale = _nudged(min_t, max_t, qmin, qmax)
    # min/max get the straight-through gradient of the clamp, not of the nudging.
    nmin = M.add(min_t, A.stop_gradient(M.subtract(nmin, min_t)))
    nmax = M.add(max_t, A.stop_gradient(M.subtract(nmax, max_t)))
    clamped = M.minimum(M.maximum(x, nmin), nmax)
    levels = M.floor(M.add(M.divide(M.subtract(clamped, nmin), scale), 0.5))
    q = M.add(M.multiply(levels, scale), nmin)
    return M.add(clamped, A.stop_gradient(M.subtract(q, clamped)))


def _check_range(min: Any, max: Any) -> None:
    if isinstance(min, (int, float)) and isinstance(max, (int, float)) and not min < max:
        raise ValueError(f"fake quantization needs min < max, got min={min}, max={max}")


def fake_quant_with_min_max_args(inputs: Any, min: float = -6.0, max: float = 6.0,
                                 num_bits: int = 8, narrow_range: bool = False,
                                 name: Optional[str] = None) -> Tensor:
    """``inputs`` (float32) quantized to ``num_bits`` levels in the fixed range
    ``[min, max]`` (nudged to hold zero) and mapped back to floats."""
    _check_range(min, max)
    with name_scope(name or "FakeQuantWithMinMaxArgs"):
        return _fake_quant(inputs, float(min), float(max), num_bits, narrow_range)


def fake_quant_with_min_max_vars(inputs: Any, min: Any, max: Any, num_bits: int = 8,
                                 narrow_range: bool = False, name: Optional[str] = None
                                 ) -> Tensor:
    """As ``fake_quant_with_min_max_args`` with the range given by scalar tensors
    (usually variables), which get gradients."""
    _check_range(min, max)
    with name_scope(name or "FakeQuantWithMinMaxVars"):
        return _fake_quant(inputs, min, max, num_bits, narrow_range)


def fake_quant_with_min_max_vars_per_channel(inputs: Any, min: Any, max: Any,
                                             num_bits: int = 8, narrow_range: bool = False,
                                             name: Optional[str] = None) -> Tensor:
    """As ``fake_quant_with_min_max_vars`` with one range per channel: ``min``/``max`` of
    shape ``[d]`` for the last dimension ``d`` of ``inputs``."""
    with name_scope(name or "FakeQuantWithMinMaxVarsPerChannel"):
        min_t = convert_to_tensor(min, dtype=_dtypes.float32)
        if min_t.shape.ndims not in (None, 1):
            raise ValueError(f"per-channel min/max must be 1-D, got shape {min_t.shape}")
        return _fake_quant(inputs, min_t, max, num_bits, narrow_range)


def _in_range_mask(inputs: Any, min_t: Any, max_t: Any, num_bits: int,
                   narrow_range: bool) -> Tuple[Tensor, Tensor, Tensor]:
    qmin, qmax = _check_bits(num_bits, narrow_range)
    x = convert_to_tensor(inputs, dtype=_dtypes.float32)
    nmin, nmax, _ = _nudged(convert_to_tensor(min_t, dtype=_dtypes.float32),
                            convert_to_tensor(max_t, dtype=_dtypes.float32), qmin, qmax)
    below = A.cast(M.less(x, nmin), _dtypes.float32)
    above = A.cast(M.greater(x, nmax), _dtypes.float32)
    return M.subtract(M.subtract(1.0, below), above), below, above


def fake_quant_with_min_max_args_gradient(gradients: Any, inputs: Any, min: float = -6.0,
                                          max: float = 6.0, num_bits: int = 8,
                                          narrow_range: bool = False,
                                          name: Optional[str] = None) -> Tensor:
    """The gradient of ``fake_quant_with_min_max_args``: ``gradients`` where ``inputs`` is
    inside the nudged range, zero elsewhere."""
    _check_range(min, max)
    with name_scope(name or "FakeQuantWithMinMaxArgsGradient"):
        inside, _, _ = _in_range_mask(inputs, float(min), float(max), num_bits, narrow_range)
        return M.multiply(convert_to_tensor(gradients, dtype=_dtypes.float32), inside)


def fake_quant_with_min_max_vars_gradient(gradients: Any, inputs: Any, min: Any, max: Any,
                                          num_bits: int = 8, narrow_range: bool = False,
                                          name: Optional[str] = None) -> Tuple[Tensor, ...]:
    """``(backprops_wrt_input, backprop_wrt_min, backprop_wrt_max)`` of
    ``fake_quant_with_min_max_vars``."""
    with name_scope(name or "FakeQuantWithMinMaxVarsGradient"):
        g = convert_to_tensor(gradients, dtype=_dtypes.float32)
        inside, below, above = _in_range_mask(inputs, min, max, num_bits, narrow_range)
        return (M.multiply(g, inside), M.reduce_sum(M.multiply(g, below)),
                M.reduce_sum(M.multiply(g, above)))


def fake_quant_with_min_max_vars_per_channel_gradient(
        gradients: Any, inputs: Any, min: Any, max: Any, num_bits: int = 8,
        narrow_range: bool = False, name: Optional[str] = None) -> Tuple[Tensor, ...]:
    """As ``fake_quant_with_min_max_vars_gradient``, the range gradients per channel (the
    last dimension)."""
    with name_scope(name or "FakeQuantWithMinMaxVarsPerChannelGradient"):
        g = convert_to_tensor(gradients, dtype=_dtypes.float32)
        inside, below, above = _in_range_mask(inputs, min, max, num_bits, narrow_range)
        flat = lambda t: A.reshape(t, A.stack([-1, A.shape(t)[-1]]))  # noqa: E731
        return (M.multiply(g, inside), M.reduce_sum(flat(M.multiply(g, below)), 0),
                M.reduce_sum(flat(M.multiply(g, above)), 0))


__all__ = ["fake_quant_with_min_max_args", "fake_quant_with_min_max_args_gradient",
           "fake_quant_with_min_max_vars", "fake_quant_with_min_max_vars_gradient",
           "fake_quant_with_min_max_vars_per_channel",
           "fake_quant_with_min_max_vars_per_channel_gradient"]
