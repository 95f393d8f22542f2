"""numpy kernels of the lookup-table ops (``ops/lookup_ops.py``).

A table lives in the task's resource manager under its shared name (or op
name). It keeps its keys sorted, so a lookup of any number of keys is one
vectorised ``searchsorted`` plus an equality check. Initializing an already
initialized table does nothing, as in TensorFlow, so ``tables_initializer``
may run more than once.
"""

from __future__ import annotations

import threading
from typing import Any, Optional

import farmhash
import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.kernels.numpy.io_kernels import os_error
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.kernels.numpy.string_kernels import as_bytes


class HashTableResource:
    """An immutable key -> value map, filled once."""

    def __init__(self, name: str, key_dtype: _dtypes.DType, value_dtype: _dtypes.DType):
        self.name = name
        self.key_dtype = key_dtype
        self.value_dtype = value_dtype
        self._lock = threading.Lock()
        self._keys: Optional[np.ndarray] = None
        self._values: Optional[np.ndarray] = None

    @property
    def initialized(self) -> bool:
        return self._keys is not None

    def size(self) -> int:
        return 0 if self._keys is None else int(self._keys.size)

    def insert(self, ctx: KernelContext, keys: np.ndarray, values: np.ndarray) -> None:
        """Fills the table (once); FailedPreconditionError for a key given two values."""
        with self._lock:
            if self._keys is not None:
                return
            keys = _as_keys(keys, self.key_dtype).reshape(-1)
            values = np.asarray(values).reshape(-1)
            if keys.size != values.size:
                raise errors.InvalidArgumentError(
                    ctx.op_name, None, f"Table {self.name!r}: {keys.size} keys but "
                    f"{values.size} values")
            order = np.argsort(keys, kind="stable")
            keys, values = keys[order], values[order]
            if keys.size > 1:
                dup = keys[1:] == keys[:-1]
                if dup.any():
                    same = values[1:][dup] == values[:-1][dup]
                    if not np.all(same):
                        k = keys[1:][dup][~np.asarray(same, dtype=bool)][0]
                        raise errors.FailedPreconditionError(
                            ctx.op_name, None, f"HashTable {self.name!r} has different "
                            f"values for the same key {k!r}")
                    keep = np.concatenate([[True], ~dup])
                    keys, values = keys[keep], values[keep]
            self._values = values
            self._keys = keys

    def find(self, ctx: KernelContext, keys: Any, default: Any,
             num_oov_buckets: int) -> np.ndarray:
        """The value of each key; missing ones get ``default`` or a hash bucket."""
        table_keys, table_values = self._keys, self._values
        if table_keys is None:
            raise errors.FailedPreconditionError(
                ctx.op_name, None, f"Table {self.name!r} not initialized.")
        q = _as_keys(keys, self.key_dtype)
        flat = q.reshape(-1)
        if table_keys.size:
            pos = np.minimum(np.searchsorted(table_keys, flat), table_keys.size - 1)
            found = table_keys[pos] == flat
        else:
            pos = np.zeros(flat.size, dtype=np.int64)
            found = np.zeros(flat.size, dtype=bool)
        out = np.empty(flat.size, dtype=self.value_dtype.np)
        if table_keys.size:
            out[found] = table_values[pos[found]]
        missing = ~np.asarray(found, dtype=bool)
        if num_oov_buckets and missing.any():
            out[missing] = table_keys.size + _hash_buckets(flat[missing], num_oov_buckets)
        else:
            out[missing] = np.asarray(default, dtype=self.value_dtype.np)
        return out.reshape(q.shape)


def _as_keys(keys: Any, dtype: _dtypes.DType) -> np.ndarray:
    arr = np.asarray(keys)
    if dtype is _dtypes.string:
        flat = np.empty(arr.size, dtype=object)
        flat[:] = [as_bytes(v) for v in arr.reshape(-1)]
        return flat.reshape(arr.shape)
    return arr.astype(dtype.np, copy=False)


def _hash_buckets(keys: np.ndarray, n: int) -> np.ndarray:
    # FastHashSpec: Fingerprint64 of the string (an integer's decimal digits).
    fps = np.fromiter((farmhash.fingerprint64(k if isinstance(k, bytes) else str(int(k)).encode())
                       for k in keys), dtype=np.uint64, count=keys.size)
    return (fps % np.uint64(n)).astype(np.int64)


def _table(ctx: KernelContext, handle: Any) -> HashTableResource:
    if not isinstance(handle, HashTableResource):
        raise errors.InvalidArgumentError(ctx.op_name, None,
                                          f"{ctx.op_type}: input 0 is not a lookup table")
    return handle


@register_kernel("HashTableV2")
def _hash_table(ctx: KernelContext) -> HashTableResource:
    a = ctx.attrs
    name = a.get("shared_name") or ctx.op_name
    kt, vt = _dtypes.as_dtype(a["key_dtype"]), _dtypes.as_dtype(a["value_dtype"])
    t = ctx.resources.lookup_or_create(a.get("container", ""), name,
                                       lambda: HashTableResource(name, kt, vt))
    if not isinstance(t, HashTableResource) or (t.key_dtype, t.value_dtype) != (kt, vt):
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"Resource {name!r} exists and is not a lookup table of "
            f"({kt.name}, {vt.name})")
    return t


@register_kernel("InitializeTableV2")
def _initialize_table(ctx: KernelContext, handle: Any, keys: Any, values: Any) -> None:
    _table(ctx, handle).insert(ctx, np.asarray(keys), np.asarray(values))


def _parse_column(ctx: KernelContext, col: np.ndarray, dtype: _dtypes.DType,
                  filename: str) -> np.ndarray:
    if dtype is _dtypes.string:
        return col
    try:
        return np.array([int(c) if dtype.is_integer else float(c) for c in col], dtype=dtype.np)
    except ValueError as e:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"File {filename}: a column is not a valid {dtype.name}: "
            f"{e}") from None


def _text_columns(ctx: KernelContext, lines: list, index: int, dtype: _dtypes.DType,
                  delimiter: bytes, filename: str) -> np.ndarray:
    if index == -1:
        return np.arange(len(lines), dtype=dtype.np)
    if index == -2:
        col = np.empty(len(lines), dtype=object)
        col[:] = lines
        return _parse_column(ctx, col, dtype, filename)
    col = np.empty(len(lines), dtype=object)
    for i, line in enumerate(lines):
        parts = line.split(delimiter)
        if index >= len(parts):
            raise errors.InvalidArgumentError(
                ctx.op_name, None, f"Invalid number of columns in {filename} line {i} "
                f"({line!r}): expected more than {index}, got {len(parts)}")
        col[i] = parts[index]
    return _parse_column(ctx, col, dtype, filename)


@register_kernel("InitializeTableFromTextFileV2")
def _initialize_from_file(ctx: KernelContext, handle: Any, filename: Any) -> None:
    table = _table(ctx, handle)
    if table.initialized:
        return
    a = ctx.attrs
    fname = as_bytes(np.asarray(filename).reshape(-1)[0]).decode("utf-8")
    try:
        with open(fname, "rb") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise os_error(e, f"{ctx.op_name}: cannot read vocabulary file") from None
    vocab_size = int(a.get("vocab_size", -1))
    if vocab_size > 0:
        if len(lines) < vocab_size:
            raise errors.InvalidArgumentError(
                ctx.op_name, None, f"Invalid vocab_size in {fname}: expected {vocab_size} "
                f"lines, the file has {len(lines)}")
        lines = lines[:vocab_size]
    delim = str(a.get("delimiter", "\t")).encode("utf-8")
    keys = _text_columns(ctx, lines, int(a["key_index"]), table.key_dtype, delim, fname)
    values = _text_columns(ctx, lines, int(a["value_index"]), table.value_dtype, delim, fname)
    table.insert(ctx, keys, values)


@register_kernel("LookupTableFindV2")
def _find(ctx: KernelContext, handle: Any, keys: Any, default: Any) -> np.ndarray:
    if np.ndim(default) != 0:
        raise errors.InvalidArgumentError(ctx.op_name, None, "default_value must be a scalar")
    try:
        return _table(ctx, handle).find(ctx, keys, default,
                                        int(ctx.attrs.get("num_oov_buckets", 0)))
    except TypeError as e:
        raise errors.InvalidArgumentError(ctx.op_name, None, f"bad keys: {e}") from None


@register_kernel("LookupTableSizeV2")
def _size(ctx: KernelContext, handle: Any) -> np.ndarray:
    return np.array(_table(ctx, handle).size(), dtype=np.int64)


__all__ = ["HashTableResource"]
