"""numpy kernels of the summary ops: each returns a serialized ``Summary`` protobuf.

The protobuf classes come from tensorboardX, which ships TensorBoard's own
``summary.proto``; it is imported on first use, so ``import tensorfleet`` does
not pay for it in processes that never write a summary.
"""

from __future__ import annotations

import functools
from typing import Any, Set

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel

# TensorBoard's DataType enum value for strings (types.proto), used by text summaries.
_DT_STRING = 7
# How many equal-width buckets a histogram gets; TensorBoard re-bins for display.
HISTOGRAM_BUCKETS = 30


@functools.lru_cache(maxsize=None)
def protos() -> Any:
    """The tensorboardX protobuf modules: ``(summary_pb2, tensor_pb2, tensor_shape_pb2)``."""
    from tensorfleet.ops.tbx_loader import tbx_module
    summary_pb2 = tbx_module("proto.summary_pb2")
    tensor_pb2 = tbx_module("proto.tensor_pb2")
    tensor_shape_pb2 = tbx_module("proto.tensor_shape_pb2")
    return summary_pb2, tensor_pb2, tensor_shape_pb2


def _serialized(summary: Any) -> np.ndarray:
    return np.array(summary.SerializeToString(), dtype=object)


def _numeric(ctx: KernelContext, value: Any) -> np.ndarray:
    arr = np.asarray(value)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"Summary {ctx.attrs['tag']!r} needs a numeric tensor, got "
            f"dtype {arr.dtype}")
    return arr


@register_kernel("ScalarSummary")
def _scalar(ctx: KernelContext, value: Any) -> np.ndarray:
    arr = _numeric(ctx, value)
    if arr.ndim != 0:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"tags and values not the same shape: [] != {list(arr.shape)} "
            f"(tag {ctx.attrs['tag']!r}): a scalar summary needs a scalar")
    summary_pb2 = protos()[0]
    s = summary_pb2.Summary()
    s.value.add(tag=ctx.attrs["tag"], simple_value=float(arr))
    return _serialized(s)


def histogram_proto(values: np.ndarray) -> Any:
    """A ``HistogramProto`` of finite ``values``: count, sum, sum of squares, min, max
    and ``HISTOGRAM_BUCKETS`` equal-width buckets (one bucket when all values agree)."""
    summary_pb2 = protos()[0]
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    h = summary_pb2.HistogramProto()
    if v.size == 0:
        return h
    h.min, h.max = float(v.min()), float(v.max())
    h.num = float(v.size)
    h.sum = float(v.sum())
    h.sum_squares = float(np.dot(v, v))
    if h.min == h.max:
        h.bucket_limit.append(h.max)
        h.bucket.append(float(v.size))
        return h
    counts, edges = np.histogram(v, bins=HISTOGRAM_BUCKETS, range=(h.min, h.max))
    # A bucket is named by its right edge, the convention TensorBoard reads.
    h.bucket_limit.extend(float(e) for e in edges[1:])
    h.bucket.extend(float(c) for c in counts)
    return h


@register_kernel("HistogramSummary")
def _histogram(ctx: KernelContext, values: Any) -> np.ndarray:
    arr = _numeric(ctx, values).astype(np.float64, copy=False)
    if arr.size and not np.isfinite(arr).all():
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"Nan in summary histogram for: {ctx.attrs['tag']}")
    summary_pb2 = protos()[0]
    s = summary_pb2.Summary()
    s.value.add(tag=ctx.attrs["tag"], histo=histogram_proto(arr))
    return _serialized(s)


@register_kernel("TextSummary")
def _text(ctx: KernelContext, values: Any) -> np.ndarray:
    summary_pb2, tensor_pb2, tensor_shape_pb2 = protos()
    arr = np.asarray(values, dtype=object)
    strings = [x if isinstance(x, bytes) else str(x).encode("utf-8") for x in arr.reshape(-1)]
    shape = tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=int(d)) for d in arr.shape])
    tensor = tensor_pb2.TensorProto(dtype=_DT_STRING, tensor_shape=shape, string_val=strings)
    meta = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text"))
    s = summary_pb2.Summary()
    s.value.add(tag=ctx.attrs["tag"], tensor=tensor, metadata=meta)
    return _serialized(s)


@register_kernel("MergeSummary")
def _merge(ctx: KernelContext, *inputs: Any) -> np.ndarray:
    summary_pb2 = protos()[0]
    out = summary_pb2.Summary()
    seen: Set[str] = set()
    for x in inputs:
        for blob in np.asarray(x, dtype=object).reshape(-1):
            part = summary_pb2.Summary()
            try:
                part.ParseFromString(blob if isinstance(blob, bytes) else bytes(blob))
            except Exception:  # noqa: BLE001 - protobuf's DecodeError has no stable home
                raise errors.InvalidArgumentError(
                    ctx.op_name, None, "Could not parse one of the summary inputs") from None
            for v in part.value:
                if v.tag in seen:
                    raise errors.InvalidArgumentError(
                        ctx.op_name, None, f"Duplicate tag {v.tag} found in summary inputs")
                seen.add(v.tag)
                out.value.add().CopyFrom(v)
    return _serialized(out)


__all__ = ["protos", "histogram_proto", "HISTOGRAM_BUCKETS"]
