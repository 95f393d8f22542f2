"""``tf.io.decode_proto`` and ``tf.io.encode_proto``: fields of serialized protocol buffer
messages to tensors and back, for any message type a descriptor pool knows.

``descriptor_source`` names the pool: ``"local://"`` is the process's default pool (every
message type whose ``_pb2`` module is imported), ``b"bytes://<data>"`` a serialized
``FileDescriptorSet`` given inline (a ``str`` is taken as its UTF-8 bytes, as TensorFlow
does), and anything else a file holding one. The kernels
(``kernels/numpy/proto_kernels.py``) use the protobuf library to parse and serialize.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops.op_util import make_op

# The dtypes an output of each kind of field may have (protobuf FieldDescriptor types).
_NUMERIC_OUTPUTS = (_dtypes.int32, _dtypes.int64, _dtypes.uint32, _dtypes.uint64,
                    _dtypes.float32, _dtypes.float64, _dtypes.bool, _dtypes.string)


def _decode_shapes(op: Operation) -> List[TensorShape]:
    batch = op.inputs[0].shape
    n = len(op.attrs["field_names"])
    if batch.ndims is None:
        return [TensorShape(None)] * (n + 1)
    dims = batch.as_list()
    return [TensorShape(dims + [n])] + [TensorShape(dims + [None])] * n


def _encode_shape(op: Operation) -> List[TensorShape]:
    sizes = op.inputs[0].shape
    return [TensorShape(None) if sizes.ndims is None else TensorShape(sizes.as_list()[:-1])]


register_op("DecodeProtoV2", _decode_shapes)
register_op("EncodeProto", _encode_shape)


def _names(field_names: Any, what: str) -> List[str]:
    if isinstance(field_names, (str, bytes)) or not all(
            isinstance(n, str) for n in field_names):
        raise TypeError(f"{what}: field_names must be a list of strings, got {field_names!r}")
    return list(field_names)


def _check_source(descriptor_source: Any, what: str) -> Any:
    if not isinstance(descriptor_source, (str, type(b""))) or not descriptor_source:
        raise TypeError(f"{what}: descriptor_source must be 'local://', 'bytes://...' or a "
                        f"file name, got {descriptor_source!r}")
    return descriptor_source


def decode_proto(bytes: Any, message_type: str, field_names: Sequence[str],  # noqa: A002
                 output_types: Sequence[Any], descriptor_source: str = "local://",
                 message_format: str = "binary", sanitize: bool = False,
                 name: Optional[str] = None) -> Tuple[Tensor, List[Tensor]]:
    """The fields ``field_names`` of the ``message_type`` messages serialized in ``bytes``
    (a string tensor of any shape).

    Returns ``(sizes, values)``: ``sizes`` (int32, ``bytes.shape + [len(field_names)]``)
    counts each field's values in each message; ``values[i]`` (``output_types[i]``,
    ``bytes.shape + [max(1, most values of field i)]``) holds them, padded with zeros (a
    missing singular field gives its default value). Sub-messages come out serialized.

    Raises:
      ValueError: ``message_format`` other than "binary" or "text", ``sanitize=True``, or
        ``output_types`` not one per field name.
      InvalidArgumentError: (when run) an unknown message type or field, or an output type
        the field cannot hold; DataLossError: a message that does not parse.
    """
    names = _names(field_names, "decode_proto")
    types = [_dtypes.as_dtype(t) for t in output_types]
    if len(types) != len(names):
        raise ValueError(f"decode_proto: {len(names)} field_names but {len(types)} "
                         f"output_types")
    bad = [t.name for t in types if t not in _NUMERIC_OUTPUTS]
    if bad:
        raise TypeError(f"decode_proto: output_types must be among "
                        f"{[t.name for t in _NUMERIC_OUTPUTS]}, got {bad}")
    if message_format not in ("binary", "text"):
        raise ValueError(f"decode_proto: message_format must be 'binary' or 'text', got "
                         f"{message_format!r}")
    if sanitize:
        raise ValueError("decode_proto: sanitize=True is not supported; messages are "
                         "decoded as they are")
    with name_scope(name, "DecodeProtoV2"):
        data = convert_to_tensor(bytes, dtype=_dtypes.string, name="bytes")
        op = make_op("DecodeProtoV2", [data], [_dtypes.int32] + types,
                     {"message_type": str(message_type), "field_names": names,
                      "output_types": types,
                      "descriptor_source": _check_source(descriptor_source, "decode_proto"),
                      "message_format": message_format, "sanitize": False},
                     name="DecodeProtoV2")
    return op.outputs[0], list(op.outputs[1:])


def encode_proto(sizes: Any, values: Sequence[Any], field_names: Sequence[str],
                 message_type: str, descriptor_source: str = "local://",
                 name: Optional[str] = None) -> Tensor:
    """The ``message_type`` messages (serialized, shape ``sizes.shape[:-1]``) whose field
    ``field_names[i]`` holds the first ``sizes[..., i]`` entries of ``values[i]``'s last
    dimension (the layout ``decode_proto`` gives).

    Raises:
      ValueError: not one values tensor per field name.
      InvalidArgumentError: (when run) an unknown type or field, a size larger than its
        values, or more than one value for a singular field.
    """
    names = _names(field_names, "encode_proto")
    vals = [convert_to_tensor(v) for v in values]
    if len(vals) != len(names):
        raise ValueError(f"encode_proto: {len(names)} field_names but {len(vals)} values")
    with name_scope(name, "EncodeProto"):
        s = convert_to_tensor(sizes, dtype=_dtypes.int32, name="sizes")
        return make_op("EncodeProto", [s] + vals, [_dtypes.string],
                       {"message_type": str(message_type), "field_names": names,
                        "descriptor_source": _check_source(descriptor_source, "encode_proto"),
                        "Tinput_types": [v.dtype for v in vals]},
                       name="EncodeProto").outputs[0]


__all__ = ["decode_proto", "encode_proto"]
