"""numpy kernels of the mutable lookup tables (``ops/mutable_lookup_ops.py``): a
dict-backed table resource that the shared find and size kernels also read."""

from __future__ import annotations

import threading
from typing import Any, List, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.kernels.numpy.lookup_kernels import HashTableResource, _as_keys, _table
from tensorfleet.kernels.registry import KernelContext, register_kernel


class MutableHashTableResource(HashTableResource):
    """Entries in a dict; ``reserved`` keys (a dense table's empty and deleted keys) are
    refused."""

    def __init__(self, name: str, key_dtype: _dtypes.DType, value_dtype: _dtypes.DType,
                 reserved: List[Any]):
        super().__init__(name, key_dtype, value_dtype)
        self._lock = threading.Lock()
        self._entries: dict = {}
        self._reserved = set(_as_keys(np.array(reserved, dtype=object if key_dtype is
                                               _dtypes.string else None), key_dtype).tolist()) \
            if reserved else set()

    @property
    def initialized(self) -> bool:
        return True

    def size(self) -> int:
        with self._lock:
            return len(self._entries)

    def _check(self, ctx: KernelContext, keys: List[Any]) -> None:
        bad = [k for k in keys if k in self._reserved]
        if bad:
            raise errors.InvalidArgumentError(ctx.op_name, None, f"Using the empty_key or "
                                              f"deleted_key as a table key is not allowed: "
                                              f"{bad[0]!r}")

    def upsert(self, ctx: KernelContext, keys: Any, values: Any) -> None:
        k = _as_keys(keys, self.key_dtype).reshape(-1).tolist()
        v = np.asarray(values, dtype=self.value_dtype.np).reshape(-1)
        if len(k) != v.size:
            raise errors.InvalidArgumentError(ctx.op_name, None, f"Table {self.name!r}: "
                                              f"{len(k)} keys but {v.size} values")
        self._check(ctx, k)
        with self._lock:
            self._entries.update(zip(k, v.tolist()))

    def remove(self, ctx: KernelContext, keys: Any) -> None:
        k = _as_keys(keys, self.key_dtype).reshape(-1).tolist()
        self._check(ctx, k)
        with self._lock:
            for key in k:
                self._entries.pop(key, None)

    def replace_all(self, ctx: KernelContext, keys: Any, values: Any) -> None:
        with self._lock:
            self._entries = {}
        self.upsert(ctx, keys, values)

    def export(self) -> Tuple[np.ndarray, np.ndarray]:
        with self._lock:
            items = sorted(self._entries.items())
        keys = np.empty(len(items), dtype=self.key_dtype.np)
        keys[:] = [k for k, _ in items]
        return keys, np.array([v for _, v in items], dtype=self.value_dtype.np)

    def find(self, ctx: KernelContext, keys: Any, default: Any,
             num_oov_buckets: int) -> np.ndarray:
        q = _as_keys(keys, self.key_dtype)
        flat = q.reshape(-1).tolist()
        self._check(ctx, flat)
        d = np.asarray(default, dtype=self.value_dtype.np).item()
        with self._lock:
            out = [self._entries.get(k, d) for k in flat]
        return np.array(out, dtype=self.value_dtype.np).reshape(q.shape)


@register_kernel("MutableHashTableV2")
def _mutable_hash_table(ctx: KernelContext) -> MutableHashTableResource:
    a = ctx.attrs
    name = a.get("shared_name") or ctx.op_name
    kt, vt = _dtypes.as_dtype(a["key_dtype"]), _dtypes.as_dtype(a["value_dtype"])
    t = ctx.resources.lookup_or_create(
        a.get("container", ""), name,
        lambda: MutableHashTableResource(name, kt, vt, list(a.get("reserved_keys") or [])))
    if not isinstance(t, MutableHashTableResource) or (t.key_dtype, t.value_dtype) != (kt, vt):
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"Resource {name!r} exists and is not a mutable table of "
            f"({kt.name}, {vt.name})")
    return t


def _mutable(ctx: KernelContext, handle: Any) -> MutableHashTableResource:
    t = _table(ctx, handle)
    if not isinstance(t, MutableHashTableResource):
        raise errors.InvalidArgumentError(ctx.op_name, None, f"{ctx.op_type}: the table "
                                          f"is not mutable")
    return t


@register_kernel("LookupTableInsertV2")
def _insert(ctx: KernelContext, handle: Any, keys: Any, values: Any) -> None:
    _mutable(ctx, handle).upsert(ctx, keys, values)


@register_kernel("LookupTableRemoveV2")
def _remove(ctx: KernelContext, handle: Any, keys: Any) -> None:
    _mutable(ctx, handle).remove(ctx, keys)


@register_kernel("LookupTableImportV2")
def _import(ctx: KernelContext, handle: Any, keys: Any, values: Any) -> None:
    _mutable(ctx, handle).replace_all(ctx, keys, values)


@register_kernel("LookupTableExportV2")
def _export(ctx: KernelContext, handle: Any) -> Tuple[np.ndarray, np.ndarray]:
    return _mutable(ctx, handle).export()
