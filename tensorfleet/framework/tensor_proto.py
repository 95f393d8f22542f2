"""``TensorProto`` (TensorFlow's message for a tensor value) to and from numpy.

Constants in graphs written by TensorFlow hold their values this way: either all
bytes in ``tensor_content`` (little-endian), or a typed list of values where fewer
values than elements means the last one repeats (a tensor of zeros may hold none).
Every count is checked against the shape before an array is made, and the shape's
element count is bounded, so a hostile message cannot make a huge allocation.
"""

from __future__ import annotations

from typing import Any, Dict, List

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.protos import tensor_pb2, tensor_shape_pb2

# A constant larger than this (2 GiB, protobuf's own message limit) is not believed.
MAX_TENSOR_BYTES = 1 << 31

_BY_ENUM: Dict[int, _dtypes.DType] = {
    d.enum: d for d in (_dtypes.float16, _dtypes.float32, _dtypes.float64, _dtypes.int8,
                        _dtypes.int16, _dtypes.int32, _dtypes.int64, _dtypes.uint8,
                        _dtypes.uint16, _dtypes.bool, _dtypes.string, _dtypes.uint32,
                        _dtypes.uint64, _dtypes.complex64, _dtypes.complex128,
                        _dtypes.bfloat16)}


def dtype_from_enum(enum: int, what: str = "tensor") -> _dtypes.DType:
    """The dtype numbered ``enum`` in TensorFlow's ``DataType`` (reference types too).

    Raises:
      InvalidArgumentError: tensorfleet has no such dtype.
    """
    dt = _BY_ENUM.get(int(enum) - 100 if int(enum) > 100 else int(enum))
    if dt is None:
        raise errors.InvalidArgumentError(None, None, f"{what} has DataType {enum}, which "
                                          f"tensorfleet does not support")
    return dt


def shape_from_proto(shape: Any) -> List[Any]:
    """The dims of a ``TensorShapeProto`` (None for unknown sizes); None for unknown rank."""
    if shape.unknown_rank:
        return None  # type: ignore[return-value]
    return [None if d.size < 0 else int(d.size) for d in shape.dim]


def shape_to_proto(dims: Any) -> Any:
    """A ``TensorShapeProto`` of a list of dims (None: unknown), or of None (unknown rank)."""
    sp = tensor_shape_pb2.TensorShapeProto()
    if dims is None:
        sp.unknown_rank = True
        return sp
    for d in dims:
        sp.dim.add().size = -1 if d is None else int(d)
    return sp


def _typed_values(proto: Any, dt: _dtypes.DType) -> Any:
    if dt is _dtypes.float32:
        return proto.float_val
    if dt is _dtypes.float64:
        return proto.double_val
    if dt is _dtypes.int64:
        return proto.int64_val
    if dt is _dtypes.bool:
        return proto.bool_val
    if dt is _dtypes.string:
        return proto.string_val
    if dt is _dtypes.float16 or dt is _dtypes.bfloat16:
        return proto.half_val
    if dt is _dtypes.complex64:
        return proto.scomplex_val
    if dt is _dtypes.complex128:
        return proto.dcomplex_val
    if dt is _dtypes.uint32:
        return proto.uint32_val
    if dt is _dtypes.uint64:
        return proto.uint64_val
    return proto.int_val


def make_ndarray(proto: Any, what: str = "tensor") -> np.ndarray:
    """The numpy value of a ``TensorProto``.

    Raises:
      InvalidArgumentError: an unsupported dtype, an unknown or negative dim, too many
        elements, or a value count or byte count that does not fit the shape.
    """
    dt = dtype_from_enum(proto.dtype, what)
    dims = shape_from_proto(proto.tensor_shape)
    if dims is None or any(d is None for d in dims):
        raise errors.InvalidArgumentError(None, None, f"{what}: the shape of a constant must "
                                          f"be fully defined, got {dims}")
    count = 1
    for d in dims:
        count *= d
    item = 8 if dt is _dtypes.string else np.dtype(dt.np).itemsize
    if count * item > MAX_TENSOR_BYTES:
        raise errors.InvalidArgumentError(None, None, f"{what}: shape {dims} is too large")
    if proto.tensor_content:
        if dt is _dtypes.string:
            raise errors.InvalidArgumentError(None, None, f"{what}: string tensors have no "
                                              f"tensor_content")
        if len(proto.tensor_content) != count * item:
            raise errors.InvalidArgumentError(
                None, None, f"{what}: {len(proto.tensor_content)} bytes of tensor_content "
                f"for a {dt.name} tensor of shape {dims}")
        arr = np.frombuffer(proto.tensor_content, dtype=np.dtype(dt.np).newbyteorder("<"))
        return arr.astype(dt.np).reshape(dims)
    values = _typed_values(proto, dt)
    n = len(values)
    if dt.is_complex:
        # Complex values are listed as (real, imaginary) pairs.
        if n % 2:
            raise errors.InvalidArgumentError(None, None, f"{what}: an odd number of "
                                              f"components ({n}) for a {dt.name} tensor")
        pairs = np.array(list(values), dtype=dt.real_dtype.np)
        values = pairs[0::2] + 1j * pairs[1::2]
        n = len(values)
    if n > count:
        raise errors.InvalidArgumentError(None, None, f"{what}: {n} values for a tensor of "
                                          f"shape {dims}")
    if dt is _dtypes.string:
        out = np.empty(count, dtype=object)
        out[:n] = list(values)
        out[n:] = values[-1] if n else b""
        return out.reshape(dims)
    if dt is _dtypes.float16 or dt is _dtypes.bfloat16:
        flat = np.array(list(values), dtype=np.uint16).view(dt.np)
    else:
        flat = np.array(list(values), dtype=dt.np)
    out = np.zeros(count, dtype=dt.np)
    out[:n] = flat
    if n and n < count:
        out[n:] = flat[-1]
    return out.reshape(dims)


def make_tensor_proto(value: Any, dtype: Any = None) -> Any:
    """A ``TensorProto`` holding ``value`` (numeric values as ``tensor_content``)."""
    arr = np.asarray(value)
    dt = _dtypes.as_dtype(dtype) if dtype is not None else _dtypes.as_dtype(
        object if arr.dtype.kind in "OSU" else arr.dtype)
    proto = tensor_pb2.TensorProto(dtype=dt.enum, tensor_shape=shape_to_proto(list(arr.shape)))
    if dt is _dtypes.string:
        proto.string_val.extend(v if isinstance(v, bytes) else str(v).encode("utf-8")
                                for v in arr.reshape(-1))
    else:
        proto.tensor_content = np.ascontiguousarray(
            arr, dtype=np.dtype(dt.np).newbyteorder("<")).tobytes()
    return proto


__all__ = ["make_ndarray", "make_tensor_proto", "dtype_from_enum", "shape_from_proto",
           "shape_to_proto"]
