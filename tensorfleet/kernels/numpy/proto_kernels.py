"""numpy kernels of ``DecodeProtoV2`` and ``EncodeProto`` (``ops/proto_ops.py``), on the
protobuf library's descriptor pools and dynamic message classes."""

from __future__ import annotations

import os
from typing import Any, List, Tuple

import numpy as np
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import DecodeError

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel

# A descriptor set file is read whole; larger than this it is refused before reading.
MAX_DESCRIPTOR_BYTES = 64 << 20

_F = FieldDescriptor
# The output dtypes each kind of field may be decoded to (and encoded from).
_ALLOWED = {
    _F.TYPE_DOUBLE: (_dtypes.float64,),
    _F.TYPE_FLOAT: (_dtypes.float32, _dtypes.float64),
    _F.TYPE_INT64: (_dtypes.int64,), _F.TYPE_SINT64: (_dtypes.int64,),
    _F.TYPE_SFIXED64: (_dtypes.int64,),
    _F.TYPE_UINT64: (_dtypes.uint64,), _F.TYPE_FIXED64: (_dtypes.uint64,),
    _F.TYPE_INT32: (_dtypes.int32, _dtypes.int64), _F.TYPE_SINT32: (_dtypes.int32, _dtypes.int64),
    _F.TYPE_SFIXED32: (_dtypes.int32, _dtypes.int64), _F.TYPE_ENUM: (_dtypes.int32, _dtypes.int64),
    _F.TYPE_UINT32: (_dtypes.uint32, _dtypes.uint64), _F.TYPE_FIXED32: (_dtypes.uint32,
                                                                        _dtypes.uint64),
    _F.TYPE_BOOL: (_dtypes.bool,),
    _F.TYPE_STRING: (_dtypes.string,), _F.TYPE_BYTES: (_dtypes.string,),
    _F.TYPE_MESSAGE: (_dtypes.string,), _F.TYPE_GROUP: (_dtypes.string,),
}
_KIND = {_F.TYPE_MESSAGE: "message", _F.TYPE_GROUP: "group", _F.TYPE_STRING: "string",
         _F.TYPE_BYTES: "bytes", _F.TYPE_BOOL: "bool", _F.TYPE_DOUBLE: "double",
         _F.TYPE_FLOAT: "float", _F.TYPE_ENUM: "enum"}


def _invalid(ctx: KernelContext, msg: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(ctx.op_name, None, msg)


def _pool(ctx: KernelContext) -> descriptor_pool.DescriptorPool:
    source = ctx.attrs["descriptor_source"]
    raw = source if isinstance(source, bytes) else source.encode("utf-8")
    if raw == b"local://":
        return descriptor_pool.Default()
    cached = ctx.state.get("pool")
    if cached is not None and cached[0] == raw:
        return cached[1]
    if raw.startswith(b"bytes://"):
        data = raw[len(b"bytes://"):]
    else:
        path = raw.decode("utf-8", "replace")
        try:
            if os.path.getsize(path) > MAX_DESCRIPTOR_BYTES:
                raise _invalid(ctx, f"descriptor_source {path!r} is larger than "
                                    f"{MAX_DESCRIPTOR_BYTES} bytes")
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise errors.NotFoundError(ctx.op_name, None, f"descriptor_source {path!r}: "
                                                          f"{e.strerror}") from None
    fds = descriptor_pb2.FileDescriptorSet()
    try:
        fds.ParseFromString(data)
        pool = descriptor_pool.DescriptorPool()
        for f in fds.file:
            pool.Add(f)
    except (DecodeError, TypeError, ValueError) as e:
        raise _invalid(ctx, f"descriptor_source does not hold a valid FileDescriptorSet: "
                            f"{e}") from None
    ctx.state["pool"] = (raw, pool)
    return pool


def _message_and_fields(ctx: KernelContext, types: List[Any]) -> Tuple[Any, List[Any]]:
    pool = _pool(ctx)
    mtype = ctx.attrs["message_type"]
    try:
        desc = pool.FindMessageTypeByName(mtype)
    except KeyError:
        raise _invalid(ctx, f"No descriptor found for message type {mtype}") from None
    fields = []
    for name, dt in zip(ctx.attrs["field_names"], types):
        f = desc.fields_by_name.get(name)
        if f is None:
            raise _invalid(ctx, f"Unknown field: {name} in message type {mtype}")
        if dt not in _ALLOWED.get(f.type, ()):
            kind = _KIND.get(f.type) or _dtype_word(f)
            raise _invalid(ctx, f"Unexpected output type for {f.full_name}: {kind} to "
                                f"{dt.name}")
        fields.append(f)
    return message_factory.GetMessageClass(desc), fields


def _dtype_word(f: Any) -> str:
    return {_F.TYPE_INT32: "int32", _F.TYPE_SINT32: "int32", _F.TYPE_SFIXED32: "int32",
            _F.TYPE_INT64: "int64", _F.TYPE_SINT64: "int64", _F.TYPE_SFIXED64: "int64",
            _F.TYPE_UINT32: "uint32", _F.TYPE_FIXED32: "uint32",
            _F.TYPE_UINT64: "uint64", _F.TYPE_FIXED64: "uint64"}.get(f.type, "field")


def _as_value(f: Any, v: Any) -> Any:
    if f.type in (_F.TYPE_MESSAGE, _F.TYPE_GROUP):
        return v.SerializeToString()
    if isinstance(v, str):
        return v.encode("utf-8")
    return v


def _field_values(msg: Any, f: Any) -> Tuple[int, List[Any]]:
    """The field's values in ``msg`` and its count (a missing singular field counts 0 and
    gives its default value)."""
    if f.is_repeated:
        vals = [_as_value(f, v) for v in getattr(msg, f.name)]
        return len(vals), vals
    if f.has_presence:
        present = msg.HasField(f.name)
    else:  # a proto3 scalar has no presence: its default value is not written
        present = getattr(msg, f.name) != f.default_value
    if f.type in (_F.TYPE_MESSAGE, _F.TYPE_GROUP):
        return int(present), [getattr(msg, f.name).SerializeToString() if present else b""]
    return int(present), [_as_value(f, getattr(msg, f.name))]


@register_kernel("DecodeProtoV2")
def _decode_proto(ctx: KernelContext, data: Any) -> tuple:
    types = [_dtypes.as_dtype(t) for t in ctx.attrs["output_types"]]
    cls, fields = _message_and_fields(ctx, types)
    arr = np.asarray(data, dtype=object)
    flat = arr.reshape(-1)
    text = ctx.attrs["message_format"] == "text"
    counts = np.zeros((flat.size, len(fields)), dtype=np.int32)
    found: List[List[List[Any]]] = []
    for i, raw in enumerate(flat):
        raw = raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)
        msg = cls()
        try:
            if text:
                text_format.Parse(raw.decode("utf-8"), msg)
            else:
                msg.ParseFromString(raw)
        except (DecodeError, text_format.ParseError, UnicodeDecodeError) as e:
            raise errors.DataLossError(ctx.op_name, None, f"Unable to parse message {i} as "
                                                          f"{ctx.attrs['message_type']}: {e}") \
                from None
        row = []
        for j, f in enumerate(fields):
            counts[i, j], vals = _field_values(msg, f)
            row.append(vals)
        found.append(row)
    outs = [counts.reshape(arr.shape + (len(fields),))]
    for j, (f, dt) in enumerate(zip(fields, types)):
        width = max([1] + [len(row[j]) for row in found])
        if dt is _dtypes.string:
            out = np.full((flat.size, width), b"", dtype=object)
        else:
            out = np.zeros((flat.size, width), dtype=dt.np)
        for i, row in enumerate(found):
            out[i, :len(row[j])] = row[j]
        outs.append(out.reshape(arr.shape + (width,)))
    return tuple(outs)


def _set_field(ctx: KernelContext, msg: Any, f: Any, vals: np.ndarray, i: int, j: int) -> None:
    if f.is_repeated:
        target = getattr(msg, f.name)
        for v in vals:
            if f.type in (_F.TYPE_MESSAGE, _F.TYPE_GROUP):
                target.add().ParseFromString(bytes(v))
            else:
                target.append(_python(f, v))
        return
    if len(vals) > 1:
        raise _invalid(ctx, f"Field {f.name} is not repeated, but message {i} gives it "
                            f"{len(vals)} values")
    if len(vals) == 1:
        if f.type in (_F.TYPE_MESSAGE, _F.TYPE_GROUP):
            getattr(msg, f.name).ParseFromString(bytes(vals[0]))
        else:
            setattr(msg, f.name, _python(f, vals[0]))


def _python(f: Any, v: Any) -> Any:
    if f.type == _F.TYPE_STRING:
        return v.decode("utf-8") if isinstance(v, bytes) else str(v)
    if f.type == _F.TYPE_BYTES:
        return v if isinstance(v, bytes) else str(v).encode("utf-8")
    if f.type == _F.TYPE_BOOL:
        return bool(v)
    if f.cpp_type in (_F.CPPTYPE_FLOAT, _F.CPPTYPE_DOUBLE):
        return float(v)
    return int(v)


@register_kernel("EncodeProto")
def _encode_proto(ctx: KernelContext, sizes: Any, *values: Any) -> np.ndarray:
    types = [_dtypes.as_dtype(t) for t in ctx.attrs["Tinput_types"]]
    cls, fields = _message_and_fields(ctx, types)
    s = np.asarray(sizes, dtype=np.int64)
    if s.ndim < 1 or s.shape[-1] != len(fields):
        raise _invalid(ctx, f"sizes must have shape [..., {len(fields)}], got {list(s.shape)}")
    batch = s.shape[:-1]
    n = int(np.prod(batch, dtype=np.int64))
    flat_vals: List[np.ndarray] = []
    for j, v in enumerate(values):
        a = np.asarray(v)
        if a.ndim != len(batch) + 1 or a.shape[:-1] != batch:
            raise _invalid(ctx, f"values[{j}] must have shape {list(batch)} + [n], got "
                                f"{list(a.shape)}")
        flat_vals.append(a.reshape(n, a.shape[-1]))
    flat_sizes = s.reshape(n, len(fields))
    out = np.empty(n, dtype=object)
    for i in range(n):
        msg = cls()
        for j, f in enumerate(fields):
            k = int(flat_sizes[i, j])
            width = flat_vals[j].shape[1]
            if k < 0 or k > width:
                raise _invalid(ctx, f"Size to write must not be larger than value tensor; "
                                    f"but saw: {k} > {width} at message {i} field {j}")
            _set_field(ctx, msg, f, flat_vals[j][i, :k], i, j)
        out[i] = msg.SerializeToString()
    return out.reshape(batch)
