"""numpy kernels of the categorical ops that feature columns build on.

``Bucketize`` (boundaries to bucket ids), ``VocabularyLookup`` (a fixed vocabulary
to ids, out-of-vocabulary values hashed into extra buckets as TensorFlow's
``index_table_from_tensor`` does), ``DenseToSparseDrop`` (a dense tensor as a
``SparseTensor`` without its "missing" entries) and ``AsString``.
"""

from __future__ import annotations

from typing import Any, Dict, Tuple

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.numpy.hash_kernels import fingerprint64
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.kernels.numpy.string_kernels import as_bytes


@register_kernel("Bucketize")
def _bucketize(ctx: KernelContext, x: Any) -> np.ndarray:
    arr = np.asarray(x)
    boundaries = np.asarray(ctx.attrs["boundaries"], dtype=np.float64)
    # A value equal to a boundary belongs to the bucket that starts there.
    return np.searchsorted(boundaries, arr.astype(np.float64), side="right").astype(np.int32)


def _is_string(arr: np.ndarray) -> bool:
    return arr.dtype == object or arr.dtype.kind in "SU"


def _table(ctx: KernelContext) -> Dict[Any, int]:
    """The vocabulary as a dict, built once per session of this op."""
    table = ctx.state.get("table")
    if table is None:
        keys = np.asarray(ctx.attrs["keys"])
        if _is_string(keys):
            table = {as_bytes(k): i for i, k in enumerate(keys.reshape(-1).tolist())}
        else:
            table = {int(k): i for i, k in enumerate(keys.reshape(-1).tolist())}
        ctx.state["table"] = table
    return table


@register_kernel("VocabularyLookup")
def _vocabulary_lookup(ctx: KernelContext, x: Any) -> np.ndarray:
    arr = np.asarray(x)
    table = _table(ctx)
    default = int(ctx.attrs["default_value"])
    oov = int(ctx.attrs["num_oov_buckets"])
    string = _is_string(arr)
    flat = arr.reshape(-1)
    if string:
        flat = np.array([as_bytes(v) for v in flat], dtype=object)
    # Look each distinct value up once: batches repeat their categories a lot.
    uniq, inverse = np.unique(flat, return_inverse=True) if flat.size else (flat, flat)
    found = np.fromiter((table.get(u if string else int(u), -1) for u in uniq.tolist()),
                        dtype=np.int64, count=len(uniq))
    missing = found < 0
    if missing.any():
        if oov > 0:
            keys = uniq[missing]
            if not string:
                keys = np.array([str(int(k)).encode() for k in keys], dtype=object)
            found[missing] = len(table) + (fingerprint64(keys) % np.uint64(oov)).astype(np.int64)
        else:
            found[missing] = default
    return found[np.asarray(inverse).reshape(-1)].reshape(arr.shape) if flat.size else \
        np.zeros(arr.shape, dtype=np.int64)


@register_kernel("DenseToSparseDrop")
def _dense_to_sparse_drop(ctx: KernelContext, x: Any) -> Tuple[np.ndarray, np.ndarray,
                                                                np.ndarray]:
    arr = np.asarray(x)
    ignore = ctx.attrs["ignore_value"]
    if _is_string(arr):
        ignore_b = as_bytes(ignore)
        keep = np.array([as_bytes(v) != ignore_b for v in arr.reshape(-1)], dtype=bool)
        keep = keep.reshape(arr.shape)
    else:
        keep = arr != np.asarray(ignore, dtype=arr.dtype)
    indices = np.argwhere(keep).astype(np.int64)
    return indices, arr[keep], np.array(arr.shape, dtype=np.int64)


def _printf_format(ctx: KernelContext, kind: str) -> str:
    """The printf format of the op's attrs for numpy kind ``kind`` (``i``/``u``/``f``)."""
    a = ctx.attrs
    spec = "%" + str(a.get("fill", ""))
    if int(a.get("width", -1)) > -1:
        spec += str(int(a["width"]))
    if kind == "f":
        if int(a.get("precision", -1)) > -1:
            spec += "." + str(int(a["precision"]))
        return spec + ("g" if a.get("shortest") else "e" if a.get("scientific") else "f")
    return spec + "d"


@register_kernel("AsString")
def _as_string(ctx: KernelContext, x: Any) -> np.ndarray:
    arr = np.asarray(x)
    kind = arr.dtype.kind
    if kind not in "iubf":
        raise invalid(ctx, f"only numbers and bools are supported, got {arr.dtype}")
    if kind == "b":
        flat = [b"true" if v else b"false" for v in arr.reshape(-1).tolist()]
    else:
        fmt = _printf_format(ctx, "f" if kind == "f" else "i")
        # One vectorised pass of the format over every element, then split.
        flat = [s.encode() for s in np.char.mod(fmt, arr.reshape(-1)).tolist()] \
            if arr.size else []
    out = np.empty(arr.size, dtype=object)
    out[:] = flat
    return out.reshape(arr.shape)


__all__: list = []
