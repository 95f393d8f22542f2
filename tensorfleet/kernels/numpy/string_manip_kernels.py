"""numpy kernels of the ``tf.strings`` ops in ``ops/string_manip_ops.py``.

String tensors are object arrays of ``bytes``; every kernel maps a Python function over
the elements (strings have no vectorised numpy form) and keeps the input's shape.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.kernels.numpy.string_kernels import as_bytes, string_array

_MASK64 = (1 << 64) - 1
_MURMUR_M = 0xC6A4A7935BD1E995
_HASH_SEED = 0xDECAFCAFFE
_WHITESPACE = b" \t\n\v\f\r"
_REWRITE_TOKEN = re.compile(rb"\\(.)", re.S)


def _invalid(ctx: KernelContext, msg: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(ctx.op_name, None, f"{ctx.op_type}: {msg}")


def _map(fn: Callable[[bytes], Any], arr: np.ndarray, dtype: Any = object) -> np.ndarray:
    out = np.empty(arr.shape, dtype=dtype)
    flat = out.reshape(-1)
    for i, v in enumerate(arr.reshape(-1)):
        flat[i] = fn(v)
    return out


def legacy_hash64(data: bytes) -> int:
    """TensorFlow's legacy ``Hash64`` (64-bit MurmurHash2 with its fixed seed) of ``data``."""
    n = len(data)
    h = (_HASH_SEED ^ (n * _MURMUR_M)) & _MASK64
    whole = n - n % 8
    if whole:
        for k in np.frombuffer(data[:whole], dtype="<u8").tolist():
            k = (k * _MURMUR_M) & _MASK64
            k ^= k >> 47
            k = (k * _MURMUR_M) & _MASK64
            h = ((h ^ k) * _MURMUR_M) & _MASK64
    tail = data[whole:]
    if tail:
        h ^= int.from_bytes(tail, "little")
        h = (h * _MURMUR_M) & _MASK64
    h ^= h >> 47
    h = (h * _MURMUR_M) & _MASK64
    return h ^ (h >> 47)


@register_kernel("StringToHashBucket")
def _hash_bucket(ctx: KernelContext, x: Any) -> np.ndarray:
    buckets = int(ctx.attrs["num_buckets"])
    arr = string_array(x, ctx.op_name, "StringToHashBucket input")
    return _map(lambda s: legacy_hash64(s) % buckets, arr, np.int64)


def _unit_len(s: bytes, utf8: bool) -> int:
    # Counting UTF-8 characters = counting bytes that do not continue a character.
    return sum(1 for b in s if b & 0xC0 != 0x80) if utf8 else len(s)


@register_kernel("StringLength")
def _length(ctx: KernelContext, x: Any) -> np.ndarray:
    utf8 = ctx.attrs.get("unit", "BYTE") == "UTF8_CHAR"
    arr = string_array(x, ctx.op_name, "StringLength input")
    return _map(lambda s: _unit_len(s, utf8), arr, np.int32)


@register_kernel("Substr")
def _substr(ctx: KernelContext, x: Any, pos: Any, n: Any) -> np.ndarray:
    utf8 = ctx.attrs.get("unit", "BYTE") == "UTF8_CHAR"
    arr = string_array(x, ctx.op_name, "Substr input")
    try:
        s_b, p_b, n_b = np.broadcast_arrays(arr, np.asarray(pos), np.asarray(n))
    except ValueError:
        raise _invalid(ctx, f"input {arr.shape}, pos {np.shape(pos)} and len {np.shape(n)} "
                            f"do not broadcast") from None
    out = np.empty(s_b.shape, dtype=object)
    flat = out.reshape(-1)
    for i, (s, p, m) in enumerate(zip(s_b.reshape(-1), p_b.reshape(-1).tolist(),
                                      n_b.reshape(-1).tolist())):
        seq: Any = s.decode("utf-8", "strict") if utf8 else s
        size = len(seq)
        if p > size or p < -size:
            raise _invalid(ctx, f"pos {p} out of range for string {s!r} at index {i}")
        if m < 0:
            raise _invalid(ctx, f"len must be non-negative, got {m} at index {i}")
        start = p if p >= 0 else size + p
        piece = seq[start:start + m]
        flat[i] = piece.encode("utf-8") if utf8 else piece
    return out


@register_kernel("StringJoin")
def _join(ctx: KernelContext, *inputs: Any) -> np.ndarray:
    sep = as_bytes(ctx.attrs.get("separator", ""))
    arrs = [string_array(t, ctx.op_name, "StringJoin input") for t in inputs]
    shapes = {a.shape for a in arrs if a.ndim}
    if len(shapes) > 1:
        raise _invalid(ctx, f"inputs must be scalars or all of one shape, got "
                            f"{[a.shape for a in arrs]}")
    shape = shapes.pop() if shapes else ()
    cols = [np.broadcast_to(a, shape).reshape(-1) for a in arrs]
    out = np.empty(int(np.prod(shape, dtype=np.int64)), dtype=object)
    out[:] = [sep.join(row) for row in zip(*cols)]
    return out.reshape(shape)


@register_kernel("ReduceJoin")
def _reduce_join(ctx: KernelContext, x: Any) -> np.ndarray:
    arr = string_array(x, ctx.op_name, "ReduceJoin input")
    sep = as_bytes(ctx.attrs.get("separator", ""))
    axes = ctx.attrs.get("axes")
    nd = arr.ndim
    if axes is None:
        axes = list(range(nd))
    norm = []
    for a in axes:
        if not -nd <= a < max(nd, 1):
            raise _invalid(ctx, f"axis {a} is out of range for a tensor of rank {nd}")
        norm.append(a % nd if nd else 0)
    red = sorted(set(norm)) if nd else []
    kept = [d for d in range(nd) if d not in red]
    moved = np.transpose(arr, kept + red) if nd else arr
    kept_shape = [arr.shape[d] for d in kept]
    rows = moved.reshape(int(np.prod(kept_shape, dtype=np.int64)), -1)
    out = np.empty(rows.shape[0], dtype=object)
    out[:] = [sep.join(r) for r in rows]
    if ctx.attrs.get("keep_dims"):
        return out.reshape([1 if d in red else arr.shape[d] for d in range(nd)])
    return out.reshape(kept_shape)


def _compiled(ctx: KernelContext, pattern: Any) -> "re.Pattern[bytes]":
    cache: Dict[bytes, Any] = ctx.state.setdefault("regex", {})
    if np.ndim(pattern) != 0:
        raise _invalid(ctx, f"pattern must be a scalar, got shape {np.shape(pattern)}")
    pat = as_bytes(np.asarray(pattern, dtype=object)[()])
    if pat not in cache:
        try:
            cache[pat] = re.compile(pat)
        except re.error as e:
            raise _invalid(ctx, f"invalid pattern {pat!r}: {e}") from None
    return cache[pat]


@register_kernel("RegexFullMatch")
def _full_match(ctx: KernelContext, x: Any, pattern: Any) -> np.ndarray:
    rx = _compiled(ctx, pattern)
    arr = string_array(x, ctx.op_name, "RegexFullMatch input")
    return _map(lambda s: rx.fullmatch(s) is not None, arr, bool)


def _rewriter(ctx: KernelContext, rewrite: bytes, groups: int) -> Callable[[Any], bytes]:
    """A replacement function for ``rewrite``: ``\\N`` is group N, ``\\\\`` a backslash."""
    parts: List[Any] = []
    last = 0
    for m in _REWRITE_TOKEN.finditer(rewrite):
        parts.append(rewrite[last:m.start()])
        c = m.group(1)
        if c == b"\\":
            parts.append(b"\\")
        elif c.isdigit() and int(c) <= groups:
            parts.append(int(c))
        else:
            raise _invalid(ctx, f"invalid rewrite {rewrite!r}: \\{c.decode('latin-1')} names "
                                f"no group of the pattern ({groups} groups)")
        last = m.end()
    if rewrite[last:].endswith(b"\\"):
        raise _invalid(ctx, f"invalid rewrite {rewrite!r}: trailing backslash")
    parts.append(rewrite[last:])
    return lambda m: b"".join(p if isinstance(p, bytes) else (m.group(p) or b"")
                              for p in parts)


@register_kernel("RegexReplace")
def _regex_replace(ctx: KernelContext, x: Any, pattern: Any, rewrite: Any) -> np.ndarray:
    rx = _compiled(ctx, pattern)
    if np.ndim(rewrite) != 0:
        raise _invalid(ctx, f"rewrite must be a scalar, got shape {np.shape(rewrite)}")
    repl = _rewriter(ctx, as_bytes(np.asarray(rewrite, dtype=object)[()]), rx.groups)
    count = 0 if ctx.attrs.get("replace_global", True) else 1
    arr = string_array(x, ctx.op_name, "RegexReplace input")
    return _map(lambda s: rx.sub(repl, s, count=count), arr)


@register_kernel("StringStrip")
def _strip(ctx: KernelContext, x: Any) -> np.ndarray:
    return _map(lambda s: s.strip(_WHITESPACE), string_array(x, ctx.op_name, "input"))


def _case_fn(ctx: KernelContext, upper: bool) -> Callable[[bytes], bytes]:
    if ctx.attrs.get("encoding", "") == "utf-8":
        if upper:
            return lambda s: s.decode("utf-8").upper().encode("utf-8")
        return lambda s: s.decode("utf-8").lower().encode("utf-8")
    return (lambda s: s.upper()) if upper else (lambda s: s.lower())  # ASCII only on bytes


@register_kernel("StringUpper")
def _upper(ctx: KernelContext, x: Any) -> np.ndarray:
    try:
        return _map(_case_fn(ctx, True), string_array(x, ctx.op_name, "input"))
    except UnicodeDecodeError as e:
        raise _invalid(ctx, f"input is not UTF-8: {e}") from None


@register_kernel("StringLower")
def _lower(ctx: KernelContext, x: Any) -> np.ndarray:
    try:
        return _map(_case_fn(ctx, False), string_array(x, ctx.op_name, "input"))
    except UnicodeDecodeError as e:
        raise _invalid(ctx, f"input is not UTF-8: {e}") from None


@register_kernel("EncodeBase64")
def _encode_base64(ctx: KernelContext, x: Any) -> np.ndarray:
    pad = bool(ctx.attrs.get("pad", False))
    arr = string_array(x, ctx.op_name, "EncodeBase64 input")
    return _map(lambda s: base64.urlsafe_b64encode(s) if pad
                else base64.urlsafe_b64encode(s).rstrip(b"="), arr)


def _decode_one(ctx: KernelContext, s: bytes) -> bytes:
    body = s.rstrip(b"=")
    padded = len(body) != len(s)
    if len(s) - len(body) > 2 or len(body) % 4 == 1 or (padded and len(s) % 4):
        raise _invalid(ctx, f"invalid base64 data of length {len(s)}: {s[:32]!r}")
    if b"+" in body or b"/" in body:
        # The standard alphabet's two characters are not web-safe base64.
        raise _invalid(ctx, f"invalid character in web-safe base64 data {s[:32]!r}")
    try:
        return base64.b64decode(body + b"=" * (-len(body) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        raise _invalid(ctx, f"invalid character in web-safe base64 data {s[:32]!r}") from None


@register_kernel("DecodeBase64")
def _decode_base64(ctx: KernelContext, x: Any) -> np.ndarray:
    return _map(lambda s: _decode_one(ctx, s), string_array(x, ctx.op_name, "input"))


def _split_v2(s: bytes, sep: bytes, maxsplit: int) -> List[bytes]:
    if sep:
        return s.split(sep, maxsplit)
    return s.split(None, maxsplit)


@register_kernel("StringSplitV2")
def _string_split_v2(ctx: KernelContext, source: Any, sep: Any) -> Tuple[Any, Any, Any]:
    src = string_array(source, ctx.op_name, "StringSplitV2 input")
    if src.ndim != 1:
        raise _invalid(ctx, f"input must be a vector, got shape {src.shape}")
    if np.ndim(sep) != 0:
        raise _invalid(ctx, f"sep must be a scalar, got shape {np.shape(sep)}")
    delim = as_bytes(np.asarray(sep, dtype=object)[()])
    maxsplit = int(ctx.attrs.get("maxsplit", -1))
    tokens = [_split_v2(s, delim, maxsplit) for s in src]
    counts = np.array([len(t) for t in tokens], dtype=np.int64)
    rows = np.repeat(np.arange(len(src), dtype=np.int64), counts)
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    cols = np.arange(int(counts.sum()), dtype=np.int64) - starts
    vals = np.empty(int(counts.sum()), dtype=object)
    vals[:] = [t for row in tokens for t in row]
    width = int(counts.max()) if len(counts) else 0
    return (np.stack([rows, cols], axis=1), vals,
            np.array([len(src), width], dtype=np.int64))


@register_kernel("WriteFile")
def _write_file(ctx: KernelContext, filename: Any, contents: Any) -> None:
    if np.ndim(filename) != 0 or np.ndim(contents) != 0:
        raise _invalid(ctx, f"filename and contents must be scalars, got shapes "
                            f"{np.shape(filename)} and {np.shape(contents)}")
    path = os.fsdecode(as_bytes(np.asarray(filename, dtype=object)[()]))
    data = as_bytes(np.asarray(contents, dtype=object)[()])
    try:
        parent = os.path.dirname(path)
        if parent:
            os.makedirs(parent, exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    except PermissionError as e:
        raise errors.PermissionDeniedError(ctx.op_name, None, f"{path}: {e.strerror}") \
            from None
    except OSError as e:
        raise _invalid(ctx, f"cannot write {path}: {e}") from None
    return None


__all__ = ["legacy_hash64"]
