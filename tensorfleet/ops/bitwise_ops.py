"""``tf.bitwise``: elementwise bit operations on integer tensors.

The binary ops broadcast as arithmetic does. Shift amounts are clamped to
``[0, bits - 1]`` (TensorFlow leaves other amounts implementation-defined; its kernel
clamps the same way); right shifts of signed integers are arithmetic.
"""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.ops.op_util import broadcast_binary, convert_pair, make_tensor, same_shape

_BINARY = ("BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift")
for _t in _BINARY:
    register_op(_t, broadcast_binary)
register_op("Invert", same_shape)


def _integer(x: Tensor, op_type: str) -> None:
    if x.dtype.np.kind not in "iu":
        raise TypeError(f"Value passed to parameter 'x' of op '{op_type}' has DataType "
                        f"{x.dtype.name} not in the list of allowed types for it "
                        f"(int8, int16, int32, int64, uint8, uint16)")


def _binary(op_type: str, x: Any, y: Any, name: Optional[str]) -> Tensor:
    x, y = convert_pair(x, y)
    _integer(x, op_type)
    return make_tensor(op_type, [x, y], x.dtype, name=name or op_type)


def bitwise_and(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x & y``."""
    return _binary("BitwiseAnd", x, y, name)


def bitwise_or(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x | y``."""
    return _binary("BitwiseOr", x, y, name)


def bitwise_xor(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x ^ y``."""
    return _binary("BitwiseXor", x, y, name)


def left_shift(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x << y`` (bits shifted past the width are lost)."""
    return _binary("LeftShift", x, y, name)


def right_shift(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x >> y``, arithmetic for signed types."""
    return _binary("RightShift", x, y, name)


def invert(x: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``~x`` (every bit flipped)."""
    x = convert_to_tensor(x)
    _integer(x, "Invert")
    return make_tensor("Invert", [x], x.dtype, name=name or "Invert")
