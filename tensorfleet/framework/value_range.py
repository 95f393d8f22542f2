"""Checks on a value before it is converted to a tensor's dtype (a feed or a constant).

A conversion must never change a value silently: ``3e9`` fed to int32 would wrap to
``-2147483648``, an int64 ``2**40`` to ``0``; a Python int too large for any integer
dtype arrives as an object array. Each is refused with the tensor's name.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_KIND_NAMES = {"U": "a string", "S": "bytes", "O": "a Python object"}


def describe_source(arr: np.ndarray) -> str:
    """What a user fed, in words: ``a string``, or ``a value of dtype float64``."""
    named = _KIND_NAMES.get(arr.dtype.kind)
    if named is None:
        return f"a value of dtype {arr.dtype}"
    if arr.dtype.kind == "O" and arr.size and all(isinstance(v, int) for v in arr.flat):
        return "an integer too large for int64"
    return named


def check_fits(tensor_name: str, dtype_name: str, src: np.ndarray, target: Any,
               action: str = "feed") -> None:
    """ValueError naming the tensor when ``src`` holds a value outside ``target``'s range
    (``target``: an integer numpy dtype; ``src``: integer or integral float values;
    ``action``: what was being done, ``feed`` or ``convert``)."""
    info = np.iinfo(target)
    if not src.size:
        return
    lo, hi = src.min(), src.max()
    if src.dtype.kind == "f":
        # float(info.max) rounds up for 64-bit types; compare with the exact bound.
        lo_ok, hi_ok = lo >= float(info.min), hi < float(info.max) + 1
    else:
        lo_ok, hi_ok = int(lo) >= info.min, int(hi) <= info.max
    if not (lo_ok and hi_ok):
        bad = (hi if lo_ok else lo).item()
        raise ValueError(f"Cannot {action} value {bad} to Tensor {tensor_name!r} of dtype "
                         f"{dtype_name}: it does not fit ({dtype_name} holds {info.min} to "
                         f"{info.max})")


__all__ = ["describe_source", "check_fits"]
