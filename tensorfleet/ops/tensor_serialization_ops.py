"""``tf.io.serialize_tensor`` / ``tf.io.parse_tensor``: a tensor as the bytes of
TensorFlow's ``TensorProto`` message and back, so tensors travel through TFRecords and
string features between tensorfleet and TensorFlow."""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, scalar, unknown_shape
from tensorfleet.ops.op_util import make_tensor


def _parse_shape(op: Any) -> List[TensorShape]:
    return [unknown_shape()]


register_op("SerializeTensor", lambda op: [scalar()])
register_op("ParseTensor", _parse_shape)


def serialize_tensor(tensor: Any, name: Optional[str] = None) -> Tensor:
    """The serialized ``TensorProto`` of ``tensor`` (a string scalar)."""
    t = convert_to_tensor(tensor, name="tensor")
    return make_tensor("SerializeTensor", [t], _dtypes.string, {"T": t.dtype},
                       name=name or "SerializeTensor")


def parse_tensor(serialized: Any, out_type: Any, name: Optional[str] = None) -> Tensor:
    """The tensor a serialized ``TensorProto`` holds; its dtype must be ``out_type``.

    Raises:
      TypeError: ``serialized`` is not a string tensor.
      InvalidArgumentError: (when run) bytes that are not a TensorProto, or of another
        dtype.
    """
    s = convert_to_tensor(serialized, dtype=_dtypes.string, name="serialized")
    if s.dtype is not _dtypes.string:
        raise TypeError(f"parse_tensor: serialized must be a string tensor, got "
                        f"{s.dtype.name}")
    return make_tensor("ParseTensor", [s], _dtypes.as_dtype(out_type),
                       {"out_type": _dtypes.as_dtype(out_type)}, name=name or "ParseTensor")
