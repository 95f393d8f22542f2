"""numpy kernel of ``DecodeCompressed`` (``ops/decode_compressed_ops.py``). The input is
untrusted: output is capped at a string's 2 GiB before it is produced, so a small bomb
cannot exhaust memory."""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel

MAX_OUTPUT_BYTES = (1 << 31) - 1
_WBITS = {"ZLIB": zlib.MAX_WBITS, "GZIP": 16 + zlib.MAX_WBITS}


def _decompress(ctx: KernelContext, data: bytes, kind: str) -> bytes:
    d = zlib.decompressobj(_WBITS[kind])
    try:
        out = d.decompress(data, MAX_OUTPUT_BYTES)
        if d.unconsumed_tail:
            raise invalid(ctx, f"{kind} data decompresses to more than {MAX_OUTPUT_BYTES} "
                               f"bytes")
        out += d.flush()
    except zlib.error as e:
        raise invalid(ctx, f"{kind} data could not be decompressed: {e}") from None
    if not d.eof:
        raise invalid(ctx, f"{kind} data is truncated")
    return out


@register_kernel("DecodeCompressed")
def _decode_compressed(ctx: KernelContext, x: Any) -> np.ndarray:
    arr = np.asarray(x, dtype=object)
    kind = ctx.attrs.get("compression_type", "")
    if kind == "":
        return arr
    if kind not in _WBITS:
        raise invalid(ctx, f"unknown compression_type {kind!r}")
    out = np.empty(arr.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(arr.reshape(-1)):
        flat[i] = _decompress(ctx, v.encode() if isinstance(v, str) else v, kind)
    return out
