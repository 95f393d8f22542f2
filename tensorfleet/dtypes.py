"""Data types of tensors, each backed by a numpy dtype."""

from __future__ import annotations

from typing import Any, Dict

import numpy as np


class DType:
    """A tensor element type (``tf.float32`` ...), convertible to a numpy dtype."""

    __slots__ = ("name", "np", "enum")

    def __init__(self, name: str, np_dtype: Any, enum: int):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.enum = enum

    @property
    def as_numpy_dtype(self) -> Any:
        """The numpy scalar type of this dtype."""
        return self.np.type

    @property
    def base_dtype(self) -> "DType":
        return self

    @property
    def is_floating(self) -> bool:
        return self.np.kind == "f"

    @property
    def is_integer(self) -> bool:
        return self.np.kind in "iu"

    @property
    def is_bool(self) -> bool:
        return self.np.kind == "b"

    @property
    def is_numeric(self) -> bool:
        return self.np.kind in "iufc"

    @property
    def size(self) -> int:
        return 0 if self is string else self.np.itemsize

    @property
    def min(self) -> Any:
        return np.finfo(self.np).min if self.is_floating else np.iinfo(self.np).min

    @property
    def max(self) -> Any:
        return np.finfo(self.np).max if self.is_floating else np.iinfo(self.np).max

    def __repr__(self) -> str:
        return f"tf.{self.name}"

    def __reduce__(self):
        return (as_dtype, (self.name,))


float16 = DType("float16", np.float16, 19)
float32 = DType("float32", np.float32, 1)
float64 = DType("float64", np.float64, 2)
int8 = DType("int8", np.int8, 6)
int16 = DType("int16", np.int16, 5)
int32 = DType("int32", np.int32, 3)
int64 = DType("int64", np.int64, 9)
uint8 = DType("uint8", np.uint8, 4)
uint16 = DType("uint16", np.uint16, 17)
bool = DType("bool", np.bool_, 10)  # noqa: A001 - the TensorFlow name
string = DType("string", np.object_, 7)
half = float16
double = float64

_ALL = [float16, float32, float64, int8, int16, int32, int64, uint8, uint16, bool, string]
_BY_NAME: Dict[str, DType] = {d.name: d for d in _ALL}
_BY_NAME.update({"half": float16, "double": float64, "float": float32, "int": int32})
_BY_NP: Dict[Any, DType] = {d.np: d for d in _ALL if d is not string}
# The value of a TensorArray (a list of tensors) as it flows through a graph. It never
# crosses a task boundary, so it is left out of __all__, the list the wire coding accepts.
variant = DType("variant", np.object_, 21)
_BY_NAME["variant"] = variant


def as_dtype(value: Any) -> DType:
    """Converts a DType, a name, a numpy dtype or a Python type into a ``DType``.

    Raises:
      TypeError: if ``value`` names no supported type.
    """
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        if value in _BY_NAME:
            return _BY_NAME[value]
        raise TypeError(f"Unknown dtype name {value!r}; expected one of {sorted(_BY_NAME)}")
    if value is str or value is bytes:
        return string
    try:
        npd = np.dtype(value)
    except TypeError:
        raise TypeError(f"Cannot convert {value!r} to a tensorfleet dtype") from None
    if npd.kind in "OSU":
        return string
    if npd in _BY_NP:
        return _BY_NP[npd]
    raise TypeError(f"Unsupported numpy dtype {npd}")


def dtype_of_value(value: Any) -> DType:
    """The dtype TensorFlow would infer for a Python or numpy value."""
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        return as_dtype(value.dtype)
    arr = np.asarray(value)
    if arr.dtype.kind in "OSU":
        return string
    if arr.dtype == np.float64:
        return float32
    if arr.dtype == np.int64:
        # Python ints are int32 unless one does not fit, as in TensorFlow.
        if arr.size and (arr.min() < -2 ** 31 or arr.max() >= 2 ** 31):
            return int64
        return int32
    return as_dtype(arr.dtype)


__all__ = [
    "DType", "as_dtype", "float16", "float32", "float64", "half", "double", "int8",
    "int16", "int32", "int64", "uint8", "uint16", "bool", "string",
]
