"""numpy kernels of ``DecodeWav``/``EncodeWav`` (``ops/audio_ops.py``). The file bytes are
untrusted: the RIFF chunks are walked with every size checked against the data left, and
only 16-bit PCM is accepted."""

from __future__ import annotations

import struct
from typing import Any, Tuple

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel

_PCM = 1


def _chunks(ctx: KernelContext, data: bytes) -> Tuple[bytes, bytes]:
    """The ``fmt `` and ``data`` chunks of a RIFF/WAVE file."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise invalid(ctx, "not a WAV file (no RIFF/WAVE header)")
    fmt = body = None
    at = 12
    while at + 8 <= len(data):
        cid, size = data[at:at + 4], struct.unpack_from("<I", data, at + 4)[0]
        start = at + 8
        if size > len(data) - start:
            raise invalid(ctx, f"WAV chunk {cid!r} of {size} bytes runs past the end of the "
                               f"file")
        if cid == b"fmt ":
            fmt = data[start:start + size]
        elif cid == b"data":
            body = data[start:start + size]
        at = start + size + (size & 1)
    if fmt is None or body is None:
        raise invalid(ctx, "WAV file without a fmt or data chunk")
    return fmt, body


@register_kernel("DecodeWav")
def _decode_wav(ctx: KernelContext, contents: Any) -> Tuple[np.ndarray, np.ndarray]:
    data = contents.item() if isinstance(contents, np.ndarray) else contents
    data = data.encode("latin-1") if isinstance(data, str) else bytes(data)
    fmt, body = _chunks(ctx, data)
    if len(fmt) < 16:
        raise invalid(ctx, "WAV fmt chunk is too short")
    tag, channels, rate, _, _, bits = struct.unpack_from("<HHIIHH", fmt)
    if tag != _PCM or bits != 16:
        raise invalid(ctx, f"only 16-bit PCM WAV is supported, got format {tag} with {bits} "
                           f"bits per sample")
    if channels < 1:
        raise invalid(ctx, "WAV file with no channels")
    frames = len(body) // (2 * channels)
    samples = np.frombuffer(body[:frames * 2 * channels], dtype="<i2").reshape(frames,
                                                                               channels)
    audio = samples.astype(np.float32) / 32768.0
    want_c, want_s = ctx.attrs["desired_channels"], ctx.attrs["desired_samples"]
    if want_c > 0:
        idx = np.minimum(np.arange(want_c), channels - 1)
        audio = audio[:, idx]
    if want_s > 0:
        out = np.zeros((want_s, audio.shape[1]), np.float32)
        n = min(want_s, audio.shape[0])
        out[:n] = audio[:n]
        audio = out
    return audio, np.int32(rate)


@register_kernel("EncodeWav")
def _encode_wav(ctx: KernelContext, audio: Any, rate: Any) -> np.ndarray:
    a = np.asarray(audio, np.float32)
    if a.ndim != 2:
        raise invalid(ctx, f"audio must be [samples, channels], got shape {list(a.shape)}")
    r = int(np.asarray(rate))
    if r <= 0:
        raise invalid(ctx, f"sample_rate must be positive, got {r}")
    pcm = np.clip(np.round(a * 32768.0), -32768, 32767).astype("<i2").tobytes()
    channels = a.shape[1]
    header = b"RIFF" + struct.pack("<I", 36 + len(pcm)) + b"WAVE" + b"fmt " + struct.pack(
        "<IHHIIHH", 16, _PCM, channels, r, r * channels * 2, channels * 2, 16) + b"data" + \
        struct.pack("<I", len(pcm))
    return np.array(header + pcm, dtype=object)
