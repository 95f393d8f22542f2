"""numpy kernels of ``UnicodeTranscode`` and ``UnsortedSegmentJoin``
(``ops/string_unicode_ops.py``)."""

from __future__ import annotations

import codecs
from typing import Any

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.ops.string_unicode_ops import INPUT_ENCODINGS

# Invalid input sequences are first marked with a lone surrogate, which decoding valid
# text never produces (so a U+FFFD in the input survives), then replaced or dropped.
_MARKER = "\udfff"
_HANDLER = "tensorfleet.unicode_transcode_mark"
codecs.register_error(_HANDLER, lambda e: (_MARKER, e.end))


def _transcode(ctx: KernelContext, data: bytes) -> bytes:
    a = ctx.attrs
    mode = a["errors"]
    repl = "" if mode == "ignore" else chr(a["replacement_char"])
    encoding = INPUT_ENCODINGS[a["input_encoding"]]
    if mode == "strict":
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError as e:
            raise invalid(ctx, f"Invalid formatting on input string: {e}") from None
    else:
        text = data.decode(encoding, _HANDLER).replace(_MARKER, repl)
    if a["replace_control_characters"]:
        if mode == "strict" and any(ord(ch) < 0x20 for ch in text):
            raise invalid(ctx, "Invalid formatting on input string: a control character")
        text = text.translate({c: repl for c in range(0x20)})
    return text.encode(a["output_encoding"].lower())


@register_kernel("UnicodeTranscode")
def _unicode_transcode(ctx: KernelContext, x: Any) -> np.ndarray:
    arr = np.asarray(x, dtype=object)
    out = np.empty(arr.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(arr.reshape(-1)):
        flat[i] = _transcode(ctx, v.encode() if isinstance(v, str) else bytes(v))
    return out


@register_kernel("UnsortedSegmentJoin")
def _unsorted_segment_join(ctx: KernelContext, data: Any, ids: Any, n: Any) -> np.ndarray:
    arr, seg = np.asarray(data, dtype=object), np.asarray(ids)
    num = int(np.asarray(n))
    if arr.shape[:seg.ndim] != seg.shape:
        raise invalid(ctx, f"segment_ids shape {list(seg.shape)} must be a prefix of the "
                           f"inputs shape {list(arr.shape)}")
    if num < 0 or (seg.size and (seg.min() < 0 or seg.max() >= num)):
        raise invalid(ctx, "segment_ids are not allowed to exceed num_segments or to have "
                           "negative values.")
    inner = arr.shape[seg.ndim:]
    rows = arr.reshape((-1,) + inner)
    parts: list = [[] for _ in range(num)]
    for s, row in zip(seg.reshape(-1), rows):
        parts[int(s)].append(row)
    sep = ctx.attrs["separator"].encode()
    out = np.empty((num,) + inner, dtype=object)
    for k in range(num):
        for idx in np.ndindex(*inner) if inner else [()]:
            vals = [p[idx] if inner else p for p in parts[k]]
            out[(k,) + idx] = sep.join(v.encode() if isinstance(v, str) else v for v in vals)
    return out
