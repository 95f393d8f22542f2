"""numpy kernel of ``TensorSummaryV2`` (``ops/tensor_summary_ops.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet.framework.tensor_util import make_tensor_proto
from tensorfleet.kernels.numpy.summary_kernels import _serialized, protos
from tensorfleet.kernels.registry import KernelContext, register_kernel


@register_kernel("TensorSummaryV2")
def _tensor_summary(ctx: KernelContext, value: Any) -> np.ndarray:
    summary_pb2, tensor_pb2, _ = protos()
    tensor = tensor_pb2.TensorProto.FromString(
        make_tensor_proto(np.asarray(value)).SerializeToString())
    meta = summary_pb2.SummaryMetadata.FromString(ctx.attrs.get("metadata") or b"")
    if ctx.attrs.get("display_name"):
        meta.display_name = ctx.attrs["display_name"]
    if ctx.attrs.get("description"):
        meta.summary_description = ctx.attrs["description"]
    s = summary_pb2.Summary()
    s.value.add(tag=ctx.attrs["tag"], tensor=tensor, metadata=meta)
    return _serialized(s)
