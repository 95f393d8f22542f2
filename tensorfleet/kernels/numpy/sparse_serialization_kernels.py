"""numpy kernels of ``SerializeSparse``, ``SerializeManySparse`` and
``DeserializeManySparse`` (``ops/sparse_serialization_ops.py``). The strings deserialized
are untrusted: protobuf parses them and ``make_ndarray`` checks sizes before allocating;
the three tensors of a row must agree before they are used."""

from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.tensor_util import make_ndarray, make_tensor_proto
from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.protos import tensor_pb2


def _serialized(indices: np.ndarray, values: np.ndarray, shape: np.ndarray,
                dtype: Any) -> List[bytes]:
    return [make_tensor_proto(np.asarray(indices, np.int64), _dtypes.int64).SerializeToString(),
            make_tensor_proto(values, dtype).SerializeToString(),
            make_tensor_proto(np.asarray(shape, np.int64), _dtypes.int64).SerializeToString()]


@register_kernel("SerializeSparse")
def _serialize_sparse(ctx: KernelContext, indices: Any, values: Any, shape: Any) -> np.ndarray:
    vals = np.asarray(values)
    return np.array(_serialized(indices, vals, shape, ctx.attrs["T"]), dtype=object)


@register_kernel("SerializeManySparse")
def _serialize_many_sparse(ctx: KernelContext, indices: Any, values: Any,
                           shape: Any) -> np.ndarray:
    idx, vals, shp = np.asarray(indices, np.int64), np.asarray(values), np.asarray(shape)
    if shp.size < 2:
        raise invalid(ctx, f"the SparseTensor must have rank 2 or more, got {shp.size}")
    n = int(shp[0])
    out = np.empty((n, 3), dtype=object)
    for i in range(n):
        rows = idx[:, 0] == i
        out[i] = _serialized(idx[rows][:, 1:], vals[rows], shp[1:], ctx.attrs["T"])
    return out


def _parse(ctx: KernelContext, raw: Any, what: str) -> Tuple[np.ndarray, int]:
    raw = raw.encode("latin-1") if isinstance(raw, str) else raw
    try:
        proto = tensor_pb2.TensorProto.FromString(raw)
        return make_ndarray(proto), int(proto.dtype)
    except Exception as e:  # protobuf's DecodeError, or a message make_ndarray refuses
        raise invalid(ctx, f"Could not parse the serialized {what}: {e}") from None


@register_kernel("DeserializeManySparse")
def _deserialize_many_sparse(ctx: KernelContext, serialized: Any) -> Tuple[np.ndarray, ...]:
    rows = np.asarray(serialized, dtype=object)
    if rows.ndim != 2 or rows.shape[1] != 3:
        raise invalid(ctx, f"serialized_sparse must be [N, 3], got shape {list(rows.shape)}")
    want = ctx.attrs["dtype"]
    all_idx, all_vals, shapes = [], [], []
    for i, (s_idx, s_vals, s_shape) in enumerate(rows):
        idx, _ = _parse(ctx, s_idx, "indices")
        vals, enum = _parse(ctx, s_vals, "values")
        shape, _ = _parse(ctx, s_shape, "dense shape")
        if enum != want.enum:
            raise invalid(ctx, f"row {i}: values have dtype enum {enum}, expected "
                               f"{want.name}")
        if idx.ndim != 2 or shape.ndim != 1 or idx.shape[1] != shape.size or \
                vals.ndim != 1 or vals.shape[0] != idx.shape[0]:
            raise invalid(ctx, f"row {i}: indices {list(idx.shape)}, values "
                               f"{list(vals.shape)} and shape {list(shape.shape)} disagree")
        if shapes and shape.size != shapes[0].size:
            raise invalid(ctx, f"row {i} has rank {shape.size}, row 0 has rank "
                               f"{shapes[0].size}")
        all_idx.append(np.concatenate([np.full((idx.shape[0], 1), i, np.int64),
                                       idx.astype(np.int64)], axis=1))
        all_vals.append(vals)
        shapes.append(shape.astype(np.int64))
    if not shapes:
        return (np.zeros((0, 1), np.int64), np.zeros((0,), want.as_numpy_dtype),
                np.array([0], np.int64))
    dense = np.concatenate([[len(shapes)], np.max(np.stack(shapes), axis=0)]).astype(np.int64)
    return (np.concatenate(all_idx).astype(np.int64), np.concatenate(all_vals), dense)
