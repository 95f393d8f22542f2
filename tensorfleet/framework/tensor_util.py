"""``tf.make_tensor_proto`` / ``tf.make_ndarray``: values as TensorFlow's ``TensorProto``
message (the one TensorBoard, SavedModel signatures and TensorFlow Serving requests use),
and back.

Numbers are written as ``tensor_content`` (little-endian raw bytes), strings and bools
as their typed value lists and one value filling a shape as that single value, as
TensorFlow writes them. Reading is ``framework/tensor_proto.py``'s, which also reads the
typed value lists other writers use and bounds what a message may make it allocate.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework import tensor_proto as _tensor_proto
from tensorfleet.framework.tensor import Tensor
from tensorfleet.framework.tensor_shape import as_shape
from tensorfleet.protos import tensor_pb2

# The typed value list of each dtype (half_val holds float16 bit patterns).
_VAL_FIELD = {"float32": "float_val", "float64": "double_val", "int8": "int_val",
              "int16": "int_val", "int32": "int_val", "uint8": "int_val", "uint16": "int_val",
              "int64": "int64_val", "bool": "bool_val", "float16": "half_val",
              "string": "string_val"}


def make_tensor_proto(values: Any, dtype: Any = None, shape: Any = None,
                      verify_shape: bool = False, allow_broadcast: bool = False) -> Any:
    """A ``TensorProto`` holding ``values`` (converted to ``dtype`` when given) with
    ``shape`` (by default the values' own).

    A ``shape`` with more elements than ``values`` is filled by repeating a single value
    (TensorFlow's rule), or by broadcasting with ``allow_broadcast``.

    Raises:
      TypeError: values a tensor cannot hold, or a symbolic Tensor (only values can be
        written).
      ValueError: values that do not fit ``shape`` (with ``verify_shape``, any other
        shape).
    """
    if isinstance(values, Tensor):
        raise TypeError(f"make_tensor_proto needs values, not the symbolic tensor "
                        f"{values.name}; run it first")
    if verify_shape and allow_broadcast:
        raise ValueError("make_tensor_proto: verify_shape and allow_broadcast are exclusive")
    dt = None if dtype is None else _dtypes.as_dtype(dtype)
    if dt is _dtypes.string or (dt is None and _is_strings(values)):
        arr = np.empty(np.shape(values), dtype=object)
        flat = [v.encode("utf-8") if isinstance(v, str) else v
                for v in np.asarray(values, dtype=object).reshape(-1)]
        if not all(isinstance(v, bytes) for v in flat):
            raise TypeError(f"make_tensor_proto: string tensors hold str or bytes, got "
                            f"{values!r}")
        arr.reshape(-1)[:] = flat
        dt = _dtypes.string
    else:
        try:
            arr = np.asarray(values, dtype=None if dt is None else dt.np)
        except (TypeError, ValueError) as e:
            raise TypeError(f"make_tensor_proto: cannot convert {values!r} to "
                            f"{dt.name if dt else 'a tensor'}: {e}") from None
        if dt is None:
            if arr.dtype == np.float64 and not isinstance(values, np.ndarray):
                arr = arr.astype(np.float32)  # Python floats are float32, as in TensorFlow
            elif arr.dtype == np.int64 and not isinstance(values, np.ndarray) and \
                    np.all((arr >= -2 ** 31) & (arr < 2 ** 31)):
                arr = arr.astype(np.int32)
            dt = _dtypes.as_dtype(arr.dtype)
        elif dt.np.kind in "iu" and np.asarray(values).dtype.kind == "f":
            raise TypeError(f"make_tensor_proto: float values {values!r} for an integer "
                            f"dtype {dt.name}")
    splat = None
    if shape is not None:
        dims = [int(d) for d in as_shape(shape).as_list()]
        n = int(np.prod(dims, dtype=np.int64))
        if verify_shape and list(arr.shape) != dims:
            raise TypeError(f"Expected Tensor's shape: {tuple(dims)}, got {arr.shape}.")
        if arr.size == n:
            arr = arr.reshape(dims)
        elif allow_broadcast:
            try:
                arr = np.broadcast_to(arr, dims).copy()
            except ValueError:
                raise ValueError(f"make_tensor_proto: values of shape {arr.shape} do not "
                                 f"broadcast to {dims}") from None
        elif arr.size == 1:
            splat = arr.reshape(-1)[:1]
            arr = np.full(dims, splat[0], dtype=arr.dtype)
        else:
            raise ValueError(f"Too many elements provided. Needed at most {n}, but received "
                             f"{arr.size}" if arr.size > n else
                             f"make_tensor_proto: {arr.size} values do not fill shape {dims}")
    proto = tensor_pb2.TensorProto(dtype=dt.enum,
                                   tensor_shape=_tensor_proto.shape_to_proto(list(arr.shape)))
    if splat is not None:
        # One value filling the shape is written once, in its typed list, as TensorFlow does.
        _typed(proto, dt, splat)
    elif dt in (_dtypes.string, _dtypes.bool):
        _typed(proto, dt, arr.reshape(-1))
    else:
        proto.tensor_content = np.ascontiguousarray(arr, dtype=dt.np.newbyteorder("<")).tobytes()
    return proto


def _typed(proto: Any, dt: _dtypes.DType, flat: np.ndarray) -> None:
    field = getattr(proto, _VAL_FIELD[dt.name])
    if dt is _dtypes.float16:
        field.extend(flat.astype(np.float16).view(np.uint16).astype(int).tolist())
    else:
        field.extend(flat.tolist())


def _is_strings(values: Any) -> bool:
    if isinstance(values, (str, bytes)):
        return True
    a = np.asarray(values, dtype=object) if isinstance(values, (list, tuple)) else values
    if isinstance(a, np.ndarray):
        if a.dtype.kind in "SU":
            return True
        return a.dtype == object and a.size > 0 and isinstance(a.reshape(-1)[0], (str, bytes))
    return False


def make_ndarray(tensor: Any) -> np.ndarray:
    """The numpy array a ``TensorProto`` holds.

    Raises:
      InvalidArgumentError: a dtype tensorfleet does not hold (complex, quantized ...),
        an unknown dimension, content that does not fit the shape, or a shape too large
        to believe.
    """
    return _tensor_proto.make_ndarray(tensor, "make_ndarray")


__all__ = ["make_tensor_proto", "make_ndarray"]
