"""Data types of tensors, each backed by a numpy dtype."""

from __future__ import annotations

from typing import Any, Dict

import ml_dtypes
import numpy as np


class DType:
    """A tensor element type (``tf.float32`` ...), convertible to a numpy dtype."""

    __slots__ = ("name", "np", "enum", "kind")

    def __init__(self, name: str, np_dtype: Any, enum: int, kind: str = ""):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.enum = enum
        # numpy's kind letter, except for ml_dtypes' narrow floats and integers (numpy
        # calls them 'V') and the quantized types ('q', backed by their integer storage).
        self.kind = kind or self.np.kind

    @property
    def as_numpy_dtype(self) -> Any:
        """The numpy scalar type of this dtype."""
        return self.np.type

    @property
    def base_dtype(self) -> "DType":
        return self

    @property
    def is_floating(self) -> bool:
        return self.kind == "f"

    @property
    def is_integer(self) -> bool:
        return self.kind in "iu"

    @property
    def is_bool(self) -> bool:
        return self.kind == "b"

    @property
    def is_numeric(self) -> bool:
        return self.kind in "iufcq"

    @property
    def is_complex(self) -> bool:
        return self.kind == "c"

    @property
    def is_quantized(self) -> bool:
        return self.kind == "q"

    @property
    def is_unsigned(self) -> bool:
        return self.kind == "u" or self.kind == "b" or (
            self.kind == "q" and self.np.kind == "u")

    @property
    def real_dtype(self) -> "DType":
        """float32 for complex64, float64 for complex128, the dtype itself otherwise."""
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    @property
    def as_datatype_enum(self) -> int:
        """The number of this type in TensorFlow's ``DataType`` enum."""
        return self.enum

    @property
    def limits(self) -> tuple:
        """``(min, max)`` of the type."""
        return self.min, self.max

    def is_compatible_with(self, other: Any) -> bool:
        """Whether a value of ``other`` may be used where this type is expected."""
        return as_dtype(other) is self

    @property
    def size(self) -> int:
        return 0 if self is string else self.np.itemsize

    @property
    def min(self) -> Any:
        return self._info().min

    @property
    def max(self) -> Any:
        return self._info().max

    def _info(self) -> Any:
        if self.is_floating:
            return ml_dtypes.finfo(self.np)
        if self.is_integer or self.is_quantized:
            return ml_dtypes.iinfo(self.np)
        if self.is_bool:
            return _BoolInfo()
        raise TypeError(f"Cannot find minimum/maximum value of {self.name}")

    def __repr__(self) -> str:
        return f"tf.{self.name}"

    def __reduce__(self):
        return (as_dtype, (self.name,))


class _BoolInfo:
    min, max = False, True


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
uint32 = DType("uint32", np.uint32, 22)
uint64 = DType("uint64", np.uint64, 23)
complex64 = DType("complex64", np.complex64, 8)
complex128 = DType("complex128", np.complex128, 18)
bfloat16 = DType("bfloat16", ml_dtypes.bfloat16, 14, "f")
half = float16
double = float64
# TensorFlow's quantized types: integers whose meaning (a scale and offset) travels beside
# them; stored as the integer of the same width, never inferred from a numpy value.
qint8 = DType("qint8", np.int8, 11, "q")
quint8 = DType("quint8", np.uint8, 12, "q")
qint16 = DType("qint16", np.int16, 15, "q")
quint16 = DType("quint16", np.uint16, 16, "q")
qint32 = DType("qint32", np.int32, 13, "q")
QUANTIZED_DTYPES = frozenset([qint8, quint8, qint16, quint16, qint32])
# The 8-, 4- and 2-bit types of ``tf.dtypes.experimental``, backed by ml_dtypes.
float8_e5m2 = DType("float8_e5m2", ml_dtypes.float8_e5m2, 24, "f")
float8_e4m3fn = DType("float8_e4m3fn", ml_dtypes.float8_e4m3fn, 25, "f")
float8_e4m3fnuz = DType("float8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz, 26, "f")
float8_e4m3b11fnuz = DType("float8_e4m3b11fnuz", ml_dtypes.float8_e4m3b11fnuz, 27, "f")
float8_e5m2fnuz = DType("float8_e5m2fnuz", ml_dtypes.float8_e5m2fnuz, 28, "f")
int4 = DType("int4", ml_dtypes.int4, 29, "i")
uint4 = DType("uint4", ml_dtypes.uint4, 30, "u")
int2 = DType("int2", ml_dtypes.int2, 31, "i")
uint2 = DType("uint2", ml_dtypes.uint2, 32, "u")
float4_e2m1fn = DType("float4_e2m1fn", ml_dtypes.float4_e2m1fn, 33, "f")

_ALL = [float16, float32, float64, int8, int16, int32, int64, uint8, uint16, bool, string,
        uint32, uint64, complex64, complex128, bfloat16, float8_e5m2, float8_e4m3fn,
        float8_e4m3fnuz, float8_e4m3b11fnuz, float8_e5m2fnuz, int4, uint4, int2, uint2,
        float4_e2m1fn]
_QUANTIZED = [qint8, quint8, qint16, quint16, qint32]
_BY_NAME: Dict[str, DType] = {d.name: d for d in _ALL + _QUANTIZED}
_BY_NAME.update({"half": float16, "double": float64, "float": float32, "int": int32})
_BY_NP: Dict[Any, DType] = {d.np: d for d in _ALL if d is not string}
# The value of a TensorArray (a list of tensors) as it flows through a graph. It never
# crosses a task boundary, so it is left out of __all__, the list the wire coding accepts.
variant = DType("variant", np.object_, 21)
_BY_NAME["variant"] = variant
# A handle to a resource (a variable, a table) held by a task; like variant, never on the wire.
resource = DType("resource", np.object_, 20)
_BY_NAME["resource"] = resource
_BY_NAME.update({"cfloat": complex64, "cdouble": complex128})


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
    "int16", "int32", "int64", "uint8", "uint16", "bool", "string", "uint32", "uint64",
    "complex64", "complex128", "bfloat16", "qint8", "quint8", "qint16", "quint16", "qint32",
    "float8_e5m2", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e4m3b11fnuz",
    "float8_e5m2fnuz", "int4", "uint4", "int2", "uint2", "float4_e2m1fn",
]


# ``tf.dtypes`` is this module; the conversions it also offers (``tf.dtypes.cast`` ...)
# and ``tf.dtypes.experimental`` live in the op layers above, so they are looked up on
# first use rather than imported here.
_LATE = {"cast": ("tensorfleet.ops.array_ops_core", "cast"),
         "saturate_cast": ("tensorfleet.ops.array_transform_ops", "saturate_cast"),
         "as_string": ("tensorfleet.ops.categorical_ops", "as_string"),
         "complex": ("tensorfleet.ops.complex_ops", "complex"),
         "experimental": ("tensorfleet.api.dtypes_experimental", None)}


def __getattr__(name: str) -> Any:
    if name in _LATE:
        import importlib
        module, attr = _LATE[name]
        found = importlib.import_module(module)
        return found if attr is None else getattr(found, attr)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
