"""numpy kernels of ``UnicodeDecode``, ``UnicodeDecodeWithOffsets``, ``UnicodeEncode`` and
``StringBytesSplit`` (``ops/string_unicode_codec_ops.py``): strings to code points and
back, in TensorFlow's layout of a flat value vector and its row splits."""

from __future__ import annotations

import codecs
import threading
from typing import Any, List, Tuple

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.ops.string_unicode_ops import INPUT_ENCODINGS

# Each invalid sequence becomes a lone surrogate (which decoding never yields for valid
# input) and its byte span is remembered, so that the offset of every replacement is the
# start of the bytes it stands for.
_MARKER = "\udfff"
_HANDLER = "tensorfleet.unicode_decode_spans"
# Kernels run on several executor threads at once: each keeps its own span list.
_LOCAL = threading.local()


def _mark(e: UnicodeDecodeError) -> tuple:
    _LOCAL.spans.append((e.start, e.end))
    return _MARKER, e.end


codecs.register_error(_HANDLER, _mark)

# Bytes per code point of the fixed-width encodings (UTF-8 and UTF-16 vary).
_WIDTH = {"utf-32-be": 4, "latin-1": 1, "ascii": 1}


def _decode_one(ctx: KernelContext, data: bytes) -> Tuple[List[int], List[int]]:
    a = ctx.attrs
    encoding = INPUT_ENCODINGS[a["input_encoding"]]
    mode, repl = a["errors"], int(a["replacement_char"])
    if mode == "strict":
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            raise invalid(ctx, "Invalid formatting on input string") from None
        spans: List[Tuple[int, int]] = []
    else:
        _LOCAL.spans = spans = []
        text = data.decode(encoding, _HANDLER)
    points: List[int] = []
    starts: List[int] = []
    pos, k = 0, 0
    width = _WIDTH.get(encoding)
    for ch in text:
        if ch == _MARKER:
            start, end = spans[k]
            k += 1
            pos = end
            if mode == "replace":
                points.append(repl)
                starts.append(start)
            continue
        cp = ord(ch)
        if a["replace_control_characters"] and cp < 0x20:
            if mode == "strict":
                raise invalid(ctx, "Invalid formatting on input string: a control character")
            if mode == "ignore":
                pos += width or len(ch.encode(encoding))
                continue
            cp = repl
        points.append(cp)
        starts.append(pos)
        pos += width or len(ch.encode(encoding, "surrogatepass"))
    return points, starts


def _decode(ctx: KernelContext, x: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    flat = np.asarray(x, dtype=object).reshape(-1)
    splits = np.zeros(len(flat) + 1, dtype=np.int64)
    points: List[int] = []
    starts: List[int] = []
    for i, v in enumerate(flat):
        p, s = _decode_one(ctx, v.encode() if isinstance(v, str) else bytes(v))
        points.extend(p)
        starts.extend(s)
        splits[i + 1] = len(points)
    return splits, np.asarray(points, dtype=np.int32), np.asarray(starts, dtype=np.int64)


@register_kernel("UnicodeDecode")
def _unicode_decode(ctx: KernelContext, x: Any) -> tuple:
    splits, points, _ = _decode(ctx, x)
    return splits, points


@register_kernel("UnicodeDecodeWithOffsets")
def _unicode_decode_with_offsets(ctx: KernelContext, x: Any) -> tuple:
    return _decode(ctx, x)


def _valid_point(cp: int) -> bool:
    return 0 <= cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF


def check_splits(ctx: KernelContext, splits: np.ndarray, n: int) -> None:
    """InvalidArgumentError unless ``splits`` partitions ``n`` values."""
    if splits.ndim != 1 or splits.size < 1 or splits[0] != 0 or splits[-1] != n or \
            np.any(np.diff(splits) < 0):
        raise invalid(ctx, f"row splits must be a non-decreasing vector from 0 to the number "
                           f"of values ({n}), got {splits.tolist()[:8]}")


@register_kernel("UnicodeEncode")
def _unicode_encode(ctx: KernelContext, values: Any, splits: Any) -> np.ndarray:
    a = ctx.attrs
    vals = np.asarray(values).reshape(-1)
    sp = np.asarray(splits, dtype=np.int64)
    check_splits(ctx, sp, vals.size)
    mode, repl = a["errors"], chr(int(a["replacement_char"]))
    encoding = a["output_encoding"].lower()
    out = np.empty(sp.size - 1, dtype=object)
    for i in range(sp.size - 1):
        chars = []
        for cp in vals[sp[i]:sp[i + 1]].tolist():
            if _valid_point(cp):
                chars.append(chr(cp))
            elif mode == "strict":
                raise invalid(ctx, "Code point is out of range for Unicode, or is a "
                                   "surrogate.")
            elif mode == "replace":
                chars.append(repl)
        out[i] = "".join(chars).encode(encoding)
    return out


@register_kernel("StringBytesSplit")
def _string_bytes_split(ctx: KernelContext, x: Any) -> tuple:
    flat = np.asarray(x, dtype=object).reshape(-1)
    splits = np.zeros(len(flat) + 1, dtype=np.int64)
    parts: List[bytes] = []
    for i, v in enumerate(flat):
        b = v.encode() if isinstance(v, str) else bytes(v)
        parts.extend(b[j:j + 1] for j in range(len(b)))
        splits[i + 1] = len(parts)
    out = np.empty(len(parts), dtype=object)
    out[:] = parts
    return splits, out
