"""numpy kernels of ``SerializeTensor`` and ``ParseTensor``
(``ops/tensor_serialization_ops.py``). The bytes parsed are untrusted: protobuf parses
them, and ``make_ndarray`` checks sizes before it allocates."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet.framework.tensor_util import make_ndarray, make_tensor_proto
from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.protos import tensor_pb2


@register_kernel("SerializeTensor")
def _serialize_tensor(ctx: KernelContext, tensor: Any) -> np.ndarray:
    proto = make_tensor_proto(np.asarray(tensor), dtype=ctx.attrs["T"])
    return np.array(proto.SerializeToString(), dtype=object)


@register_kernel("ParseTensor")
def _parse_tensor(ctx: KernelContext, serialized: Any) -> np.ndarray:
    data = np.asarray(serialized, dtype=object)
    if data.shape != ():
        raise invalid(ctx, f"serialized must be a scalar, got shape {list(data.shape)}")
    raw = data.item()
    raw = raw.encode() if isinstance(raw, str) else raw
    want = ctx.attrs["out_type"]
    try:
        proto = tensor_pb2.TensorProto.FromString(raw)
        value = make_ndarray(proto)
    except Exception as e:  # protobuf's DecodeError, or a message make_ndarray refuses
        raise invalid(ctx, f"Could not parse `serialized` as TensorProto: {e}") from None
    if int(proto.dtype) != want.enum:
        raise invalid(ctx, f"Type mismatch between parsed tensor (enum {proto.dtype}) and "
                           f"dtype ({want.name})")
    return value
