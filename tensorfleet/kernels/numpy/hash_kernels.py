"""numpy kernels of the hashing ops: ``StringToHashBucketFast`` / ``Strong``, ``SparseCross``.

Bucket ids must equal TensorFlow's so that models, vocabularies and logs move
between the two systems: a string hashes to FarmHash ``Fingerprint64`` of its
bytes (the C implementation of the ``pyfarmhash`` package), and a feature cross
chains the per-feature fingerprints with ``FingerprintCat64`` starting from the
cross's ``hash_key``. The strong hash is keyed SipHash-2-4. ``FingerprintCat64``
and SipHash run vectorised on uint64 arrays.
"""

from __future__ import annotations

from typing import Any, List, Tuple

import farmhash
import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.kernels.numpy.sparse_kernels import check_sparse
from tensorfleet.kernels.numpy.string_kernels import as_bytes

_CAT_MUL = np.uint64(0xC6A4A7935BD1E995)
_SHIFT = np.uint64(47)
_INT64_MAX = np.uint64(2 ** 63 - 1)


def fingerprint64(values: Any) -> np.ndarray:
    """FarmHash Fingerprint64 of every string in ``values`` (any shape), as uint64."""
    arr = np.asarray(values, dtype=object)
    flat = arr.reshape(-1).tolist()
    try:
        # bytes and str (hashed as its UTF-8 bytes) go to FarmHash as they are.
        out = np.fromiter(map(farmhash.fingerprint64, flat), dtype=np.uint64, count=len(flat))
    except TypeError:
        out = np.fromiter((farmhash.fingerprint64(as_bytes(v)) for v in flat),
                          dtype=np.uint64, count=len(flat))
    return out.reshape(arr.shape)


def _shift_mix(v: np.ndarray) -> np.ndarray:
    return v ^ (v >> _SHIFT)


def fingerprint_cat64(fp1: np.ndarray, fp2: np.ndarray) -> np.ndarray:
    """Combines two uint64 fingerprint arrays into one (order matters)."""
    with np.errstate(over="ignore"):
        result = np.asarray(fp1, dtype=np.uint64) ^ _CAT_MUL
        result = result ^ (_shift_mix(np.asarray(fp2, dtype=np.uint64) * _CAT_MUL) * _CAT_MUL)
        result = result * _CAT_MUL
        result = _shift_mix(result) * _CAT_MUL
        return _shift_mix(result)


def _rotl(x: np.ndarray, b: int) -> np.ndarray:
    return (x << np.uint64(b)) | (x >> np.uint64(64 - b))


def _sip_round(v0: np.ndarray, v1: np.ndarray, v2: np.ndarray, v3: np.ndarray) -> tuple:
    v0 = v0 + v1
    v1 = _rotl(v1, 13) ^ v0
    v0 = _rotl(v0, 32)
    v2 = v2 + v3
    v3 = _rotl(v3, 16) ^ v2
    v0 = v0 + v3
    v3 = _rotl(v3, 21) ^ v0
    v2 = v2 + v1
    v1 = _rotl(v1, 17) ^ v2
    v2 = _rotl(v2, 32)
    return v0, v1, v2, v3


def siphash24(values: Any, key0: int, key1: int) -> np.ndarray:
    """SipHash-2-4 of every string in ``values`` with the 128-bit key ``(key0, key1)``.

    All strings advance together one 8-byte word at a time; a string whose words
    are used up keeps its state (masked) until the longest one is done.
    """
    arr = np.asarray(values, dtype=object)
    data = [as_bytes(v) for v in arr.reshape(-1)]
    n = len(data)
    lengths = np.fromiter((len(d) for d in data), dtype=np.int64, count=n)
    words = lengths // 8
    width = int(words.max()) + 1 if n else 1
    buf = np.zeros((n, width * 8), dtype=np.uint8)
    for i, d in enumerate(data):
        buf[i, :len(d)] = np.frombuffer(d, dtype=np.uint8)
    blocks = buf.view("<u8").astype(np.uint64)
    last = blocks[np.arange(n), words] | ((lengths.astype(np.uint64) & np.uint64(0xFF))
                                          << np.uint64(56))
    k0, k1 = np.uint64(key0), np.uint64(key1)
    with np.errstate(over="ignore"):
        v0 = np.full(n, k0 ^ np.uint64(0x736F6D6570736575), dtype=np.uint64)
        v1 = np.full(n, k1 ^ np.uint64(0x646F72616E646F6D), dtype=np.uint64)
        v2 = np.full(n, k0 ^ np.uint64(0x6C7967656E657261), dtype=np.uint64)
        v3 = np.full(n, k1 ^ np.uint64(0x7465646279746573), dtype=np.uint64)
        for j in range(width):
            # Word j is a full word, the string's final (length-tagged) word, or past its end.
            active = j < words
            live = active | (j == words)
            m = np.where(active, blocks[:, j], last)
            s = (v0, v1, v2, v3 ^ m)
            for _ in range(2):
                s = _sip_round(*s)
            w0, w1, w2, w3 = s[0] ^ m, s[1], s[2], s[3]
            v0, v1, v2, v3 = (np.where(live, a, b) for a, b in
                              ((w0, v0), (w1, v1), (w2, v2), (w3, v3)))
        v2 = v2 ^ np.uint64(0xFF)
        s = (v0, v1, v2, v3)
        for _ in range(4):
            s = _sip_round(*s)
        out = s[0] ^ s[1] ^ s[2] ^ s[3]
    return out.reshape(arr.shape)


@register_kernel("StringToHashBucketStrong")
def _string_to_hash_bucket_strong(ctx: KernelContext, x: Any) -> np.ndarray:
    n = int(ctx.attrs["num_buckets"])
    key = ctx.attrs["key"]
    try:
        h = siphash24(x, int(key[0]), int(key[1]))
    except TypeError as e:
        raise invalid(ctx, f"input must hold strings: {e}") from None
    return (h % np.uint64(n)).astype(np.int64)


@register_kernel("Fingerprint")
def _fingerprint(ctx: KernelContext, data: Any) -> np.ndarray:
    arr = np.asarray(data)
    if arr.ndim == 0:
        raise invalid(ctx, "`data` should have at least one dimension")
    rows = arr.reshape(arr.shape[0], -1)
    if arr.dtype == object:
        fps = fingerprint64(rows)
        if arr.ndim == 1:
            out = fps[:, 0]
        else:
            # A row of strings hashes as the bytes of its strings' fingerprints.
            le = fps.astype("<u8")
            out = np.array([farmhash.fingerprint64(r.tobytes()) for r in le], dtype=np.uint64)
    else:
        native = np.ascontiguousarray(rows.astype(rows.dtype.newbyteorder("<")))
        out = np.array([farmhash.fingerprint64(r.tobytes()) for r in native], dtype=np.uint64)
    return out.astype("<u8").view(np.uint8).reshape(arr.shape[0], 8)


@register_kernel("StringToHashBucketFast")
def _string_to_hash_bucket_fast(ctx: KernelContext, x: Any) -> np.ndarray:
    n = int(ctx.attrs["num_buckets"])
    try:
        fps = fingerprint64(x)
    except TypeError as e:
        raise invalid(ctx, f"input must hold strings: {e}") from None
    return (fps % np.uint64(n)).astype(np.int64)


class _CrossColumn:
    """One input of a cross, its values grouped by batch row."""

    __slots__ = ("counts", "starts", "values")

    def __init__(self, counts: np.ndarray, values: np.ndarray):
        self.counts = counts.astype(np.int64)
        self.starts = np.cumsum(self.counts) - self.counts
        self.values = values


def _sparse_column(ctx: KernelContext, ind: Any, val: Any, shp: Any, i: int) -> _CrossColumn:
    ind, val, shp = check_sparse(ctx, ind, val, shp, f"input {i}")
    if shp.shape[0] != 2:
        raise invalid(ctx, f"sparse input {i} must be a matrix [batch, n], got dense_shape "
                      f"{shp.tolist()}")
    rows = ind[:, 0]
    # Values keep their order within a row, rows are grouped: the order TensorFlow uses.
    order = np.argsort(rows, kind="stable")
    return _CrossColumn(np.bincount(rows, minlength=int(shp[0])), val[order])


def _dense_column(ctx: KernelContext, x: Any, i: int) -> _CrossColumn:
    arr = np.asarray(x)
    if arr.ndim != 2:
        raise invalid(ctx, f"dense input {i} must be a matrix [batch, n], got shape "
                      f"{list(arr.shape)}")
    return _CrossColumn(np.full(arr.shape[0], arr.shape[1]), arr.reshape(-1))


def _feature_hashes(ctx: KernelContext, col: _CrossColumn) -> np.ndarray:
    vals = col.values
    if vals.dtype == object or vals.dtype.kind in "SU":
        return fingerprint64(vals)
    if vals.dtype.kind not in "iu":
        raise invalid(ctx, f"cross inputs must be strings or integers, got {vals.dtype}")
    # An integer feature hashes to its own value, as a 64-bit pattern.
    return vals.astype(np.int64).view(np.uint64)


def _feature_strings(col: _CrossColumn) -> np.ndarray:
    vals = col.values
    if vals.dtype == object or vals.dtype.kind in "SU":
        return np.array([as_bytes(v) for v in vals], dtype=object)
    return np.array([str(int(v)).encode() for v in vals], dtype=object)


@register_kernel("SparseCross")
def _sparse_cross(ctx: KernelContext, *args: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    n_sparse = int(ctx.attrs["N"])
    cols: List[_CrossColumn] = [
        _sparse_column(ctx, args[i], args[n_sparse + i], args[2 * n_sparse + i], i)
        for i in range(n_sparse)]
    cols += [_dense_column(ctx, x, n_sparse + j) for j, x in enumerate(args[3 * n_sparse:])]
    if not cols:
        raise invalid(ctx, "needs at least one input")
    batch = {c.counts.shape[0] for c in cols}
    if len(batch) != 1:
        raise invalid(ctx, f"inputs have different batch sizes {sorted(batch)}")
    n_rows = batch.pop()
    total = np.ones(n_rows, dtype=np.int64)
    for c in cols:
        total *= c.counts
    out_rows = np.repeat(np.arange(n_rows, dtype=np.int64), total)
    pos = np.arange(out_rows.size, dtype=np.int64) - np.repeat(np.cumsum(total) - total, total)
    # Mixed-radix digits of the position in the row, the last input varying fastest.
    picks = [np.empty(0, dtype=np.int64)] * len(cols)
    rest = pos.copy()
    for i in range(len(cols) - 1, -1, -1):
        counts = cols[i].counts[out_rows]
        picks[i] = cols[i].starts[out_rows] + rest % counts
        rest //= counts
    if ctx.attrs["hashed_output"]:
        h = np.full(out_rows.size, np.uint64(int(ctx.attrs["hash_key"])), dtype=np.uint64)
        for c, pick in zip(cols, picks):
            h = fingerprint_cat64(h, _feature_hashes(ctx, c)[pick])
        buckets = int(ctx.attrs["num_buckets"])
        values = (h % (np.uint64(buckets) if buckets > 0 else _INT64_MAX)).astype(np.int64)
    else:
        parts = [_feature_strings(c)[pick] for c, pick in zip(cols, picks)]
        values = np.array([b"_X_".join(p) for p in zip(*parts)], dtype=object) \
            if parts and out_rows.size else np.empty(0, dtype=object)
    indices = np.stack([out_rows, pos], axis=1) if out_rows.size else \
        np.zeros((0, 2), dtype=np.int64)
    width = int(total.max()) if n_rows else 0
    return indices, values, np.array([n_rows, width], dtype=np.int64)


__all__ = ["fingerprint64", "fingerprint_cat64", "siphash24"]
