"""Gradients sent between tasks in fewer bytes: float16 or bfloat16 on the wire.

As with Horovod's ``compression=``, a gradient is compressed on the task that
computes it and decompressed on the task that applies it, so only the transfer
between them carries the narrower values; the update itself runs in the
variable's dtype. ``float16`` is a cast (values beyond +-65504 become inf, tiny ones
lose precision or flush to zero). ``bfloat16`` keeps float32's exponent range and 8
bits of mantissa; tensorfleet has no bfloat16 dtype, so the 16 bits travel as
``int16``: the upper half of each float32, rounded to nearest even, and put back
as the upper half on arrival. Non-float gradients are sent as they are.
"""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet import dtypes
from tensorfleet.ops import bitwise_ops
from tensorfleet.ops.array_ops_core import bitcast, cast

NONE = "none"
FLOAT16 = "float16"
BFLOAT16 = "bfloat16"
COMPRESSIONS = (NONE, FLOAT16, BFLOAT16)
_FLOATS = (dtypes.float32, dtypes.float64)


def check_compression(value: Optional[str]) -> str:
    """``value`` as one of ``COMPRESSIONS`` (None means ``"none"``).

    Raises:
      ValueError: any other value.
    """
    if value is None:
        return NONE
    if not isinstance(value, str) or value not in COMPRESSIONS:
        raise ValueError(f"compression must be one of {', '.join(map(repr, COMPRESSIONS))} "
                         f"or None, got {value!r}")
    return value


def compress(t: Any, kind: str) -> Any:
    """``t`` in its wire form for ``kind``; build it on the sending task."""
    if kind == NONE or t.dtype.base_dtype not in _FLOATS:
        return t
    if kind == FLOAT16:
        return cast(t, dtypes.float16, name="compress_float16")
    if t.dtype.base_dtype != dtypes.float32:
        t = cast(t, dtypes.float32)
    bits = bitcast(t, dtypes.int32)
    # Round to nearest even on the 16 bits dropped: add 0x7FFF plus the lowest kept bit.
    lowest_kept = bitwise_ops.bitwise_and(bitwise_ops.right_shift(bits, 16), 1)
    upper = bitwise_ops.right_shift(bits + 0x7FFF + lowest_kept, 16)
    return cast(upper, dtypes.int16, name="compress_bfloat16")


def decompress(t: Any, kind: str, dtype: Any) -> Any:
    """The value of ``compress(x, kind)`` back in ``x``'s ``dtype``; build it on the
    receiving task."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    if kind == NONE or dtype not in _FLOATS:
        return t
    if kind == FLOAT16:
        return cast(t, dtype, name="decompress_float16")
    bits = bitwise_ops.left_shift(cast(t, dtypes.int32), 16)
    value = bitcast(bits, dtypes.float32, name="decompress_bfloat16")
    return value if dtype == dtypes.float32 else cast(value, dtype)


__all__ = ["COMPRESSIONS", "check_compression", "compress", "decompress"]
