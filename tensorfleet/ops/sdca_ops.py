"""The helper ops of TensorFlow's stochastic dual coordinate ascent (SDCA) linear
solver: ``tf.train.sdca_fprint`` (the 128-bit fingerprints SDCA keys examples by) and
``tf.train.sdca_shrink_l1`` (its L1 shrinkage of the weights). The solver itself,
``sdca_optimizer``, is not offered."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops.control_flow_ops import group
from tensorfleet.ops.math_ops_core import abs as _abs, maximum, multiply, sign, subtract
from tensorfleet.ops.op_util import make_tensor
from tensorfleet.ops.state_ops import assign
from tensorfleet.ops.variables import Variable


def _fprint_shape(op: Operation) -> List[TensorShape]:
    shape = op.inputs[0].shape
    if shape.ndims is not None and shape.ndims != 1:
        raise ValueError(f"sdca_fprint: input must be a vector of strings, got shape {shape}")
    return [TensorShape([shape[0] if shape.ndims == 1 else None, 2])]


register_op("SdcaFprint", _fprint_shape)


def sdca_fprint(input: Any, name: Optional[str] = None) -> Tensor:  # noqa: A002 - TF name
    """``[n, 2]`` int64: the FarmHash ``Fingerprint128`` of each string of the vector
    ``input`` (low and high 64 bits, as TensorFlow computes them).

    Raises:
      TypeError: ``input`` does not hold strings.
    """
    x = input if isinstance(input, Tensor) else convert_to_tensor(input, dtype=_dtypes.string)
    if x.dtype is not _dtypes.string:
        raise TypeError(f"Input 'input' of 'SdcaFprint' Op has type {x.dtype.name} that does "
                        f"not match expected type of string.")
    return make_tensor("SdcaFprint", [x], _dtypes.int64, name=name or "SdcaFprint")


def sdca_shrink_l1(weights: Sequence[Variable], l1: float, l2: float,
                   name: Optional[str] = None) -> Operation:
    """Shrinks every variable of ``weights`` toward 0 by ``l1 / l2``, in place:
    ``w = sign(w) * max(|w| - l1 / l2, 0)``; returns the op that does it.

    Raises:
      TypeError: an element of ``weights`` is not a Variable.
      ValueError: ``l2`` is not positive.
    """
    weights = list(weights)
    for w in weights:
        if not isinstance(w, Variable):
            raise TypeError(f"'SdcaShrinkL1' Op requires that input 'weights' be a mutable "
                            f"tensor (e.g.: a tf.Variable), got {type(w).__name__}")
    if not float(l2) > 0:
        raise ValueError(f"sdca_shrink_l1: l2 must be positive, got {l2}")
    shrinkage = float(l1) / float(l2)
    with name_scope(name, "SdcaShrinkL1"):
        updates = [assign(w, multiply(sign(w), maximum(subtract(_abs(w), shrinkage), 0.0)))
                   for w in weights]
        return group(*updates)


__all__ = ["sdca_fprint", "sdca_shrink_l1"]
