"""numpy kernels of the summary ops: each returns a serialized ``Summary`` protobuf.

The protobuf classes come from tensorboardX, which ships TensorBoard's own
``summary.proto``; it is imported on first use, so ``import tensorfleet`` does
not pay for it in processes that never write a summary.
"""

from __future__ import annotations

import functools
import io
import struct
from typing import Any, List, Set

import numpy as np
from PIL import Image

from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.ops.tbx_loader import tbx_module

# TensorBoard's DataType enum value for strings (types.proto), used by text summaries.
_DT_STRING = 7
# How many equal-width buckets a histogram gets; TensorBoard re-bins for display.
HISTOGRAM_BUCKETS = 30
# What a pixel with a NaN or infinity shows as in an image summary: opaque red.
_BAD_COLOR = np.array([255, 0, 0, 255], dtype=np.uint8)


@functools.lru_cache(maxsize=None)
def protos() -> Any:
    """The tensorboardX protobuf modules: ``(summary_pb2, tensor_pb2, tensor_shape_pb2)``."""
    summary_pb2 = tbx_module("proto.summary_pb2")
    tensor_pb2 = tbx_module("proto.tensor_pb2")
    tensor_shape_pb2 = tbx_module("proto.tensor_shape_pb2")
    return summary_pb2, tensor_pb2, tensor_shape_pb2


def _serialized(summary: Any) -> np.ndarray:
    return np.array(summary.SerializeToString(), dtype=object)


def _numeric(ctx: KernelContext, value: Any) -> np.ndarray:
    arr = np.asarray(value)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"Summary {ctx.attrs['tag']!r} needs a numeric tensor, got "
            f"dtype {arr.dtype}")
    return arr


@register_kernel("ScalarSummary")
def _scalar(ctx: KernelContext, value: Any) -> np.ndarray:
    arr = _numeric(ctx, value)
    if arr.ndim != 0:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"tags and values not the same shape: [] != {list(arr.shape)} "
            f"(tag {ctx.attrs['tag']!r}): a scalar summary needs a scalar")
    summary_pb2 = protos()[0]
    s = summary_pb2.Summary()
    s.value.add(tag=ctx.attrs["tag"], simple_value=float(arr))
    return _serialized(s)


def histogram_proto(values: np.ndarray) -> Any:
    """A ``HistogramProto`` of finite ``values``: count, sum, sum of squares, min, max
    and ``HISTOGRAM_BUCKETS`` equal-width buckets (one bucket when all values agree)."""
    summary_pb2 = protos()[0]
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    h = summary_pb2.HistogramProto()
    if v.size == 0:
        return h
    h.min, h.max = float(v.min()), float(v.max())
    h.num = float(v.size)
    h.sum = float(v.sum())
    h.sum_squares = float(np.dot(v, v))
    if h.min == h.max:
        h.bucket_limit.append(h.max)
        h.bucket.append(float(v.size))
        return h
    counts, edges = np.histogram(v, bins=HISTOGRAM_BUCKETS, range=(h.min, h.max))
    # A bucket is named by its right edge, the convention TensorBoard reads.
    h.bucket_limit.extend(float(e) for e in edges[1:])
    h.bucket.extend(float(c) for c in counts)
    return h


@register_kernel("HistogramSummary")
def _histogram(ctx: KernelContext, values: Any) -> np.ndarray:
    arr = _numeric(ctx, values).astype(np.float64, copy=False)
    if arr.size and not np.isfinite(arr).all():
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"Nan in summary histogram for: {ctx.attrs['tag']}")
    summary_pb2 = protos()[0]
    s = summary_pb2.Summary()
    s.value.add(tag=ctx.attrs["tag"], histo=histogram_proto(arr))
    return _serialized(s)


@register_kernel("TextSummary")
def _text(ctx: KernelContext, values: Any) -> np.ndarray:
    summary_pb2, tensor_pb2, tensor_shape_pb2 = protos()
    arr = np.asarray(values, dtype=object)
    strings = [x if isinstance(x, bytes) else str(x).encode("utf-8") for x in arr.reshape(-1)]
    shape = tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=int(d)) for d in arr.shape])
    tensor = tensor_pb2.TensorProto(dtype=_DT_STRING, tensor_shape=shape, string_val=strings)
    meta = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text"))
    s = summary_pb2.Summary()
    s.value.add(tag=ctx.attrs["tag"], tensor=tensor, metadata=meta)
    return _serialized(s)


def _image_tags(tag: str, n: int, max_outputs: int) -> List[str]:
    kind = tag + "/image"
    return [kind] if max_outputs == 1 else [f"{kind}/{i}" for i in range(n)]


def normalize_image(img: np.ndarray) -> np.ndarray:
    """One float ``[h, w, c]`` image as uint8: scaled to ``[0, 255]`` when no finite value
    is negative, else centred on 128 with the largest magnitude at 127 off it; pixels
    with a non-finite channel become the bad colour (red, opaque)."""
    img = img.astype(np.float32, copy=False)
    good = np.isfinite(img).all(axis=-1)
    vals = img[good]
    lo = float(vals.min()) if vals.size else 0.0
    hi = float(vals.max()) if vals.size else 0.0
    if lo < 0:
        top = max(abs(lo), abs(hi))
        scale = np.float32(0.0) if top < 1e-6 else np.float32(127.0) / np.float32(top)
        offset = np.float32(128.0)
    else:
        scale = np.float32(0.0) if hi < 1e-6 else np.float32(255.0) / np.float32(hi)
        offset = np.float32(0.0)
    with np.errstate(invalid="ignore"):
        out = np.where(good[..., None], img * scale + offset, 0).astype(np.uint8)
    out[~good] = _BAD_COLOR[:img.shape[-1]]
    return out


def encode_png(img: np.ndarray) -> bytes:
    """A uint8 ``[h, w, c]`` image (c in 1, 2, 3, 4) as PNG bytes."""
    pixels = img[..., 0] if img.shape[-1] == 1 else img
    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(pixels)).save(buf, format="PNG")
    return buf.getvalue()


@register_kernel("ImageSummary")
def _image(ctx: KernelContext, images: Any) -> np.ndarray:
    arr = np.asarray(images)
    if arr.ndim != 4 or arr.shape[3] not in (1, 3, 4):
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"Tensor must be 4-D with last dim 1, 3, or 4, not "
            f"{list(arr.shape)} (image summary {ctx.attrs['tag']!r})")
    if arr.dtype != np.uint8 and arr.dtype.kind != "f":
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"Image summary {ctx.attrs['tag']!r} needs uint8 or float "
            f"images, got {arr.dtype}")
    max_images = int(ctx.attrs["max_images"])
    n = min(arr.shape[0], max_images)
    summary_pb2 = protos()[0]
    s = summary_pb2.Summary()
    for tag, img in zip(_image_tags(ctx.attrs["tag"], n, max_images), arr[:n]):
        pixels = img if img.dtype == np.uint8 else normalize_image(img)
        s.value.add(tag=tag, image=summary_pb2.Summary.Image(
            height=int(img.shape[0]), width=int(img.shape[1]), colorspace=int(img.shape[2]),
            encoded_image_string=encode_png(pixels)))
    return _serialized(s)


def encode_wav(samples: np.ndarray, sample_rate: int) -> bytes:
    """``[frames, channels]`` floats as a 16-bit PCM WAV file (clipped to [-1, 1])."""
    frames, channels = samples.shape
    pcm = np.round(np.clip(samples, -1.0, 1.0) * 32767.0).astype("<i2").tobytes()
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(pcm), b"WAVE", b"fmt ", 16, 1,
                         channels, sample_rate, sample_rate * channels * 2, channels * 2, 16,
                         b"data", len(pcm))
    return header + pcm


@register_kernel("AudioSummaryV2")
def _audio(ctx: KernelContext, clips: Any, sample_rate: Any) -> np.ndarray:
    arr = np.asarray(clips, dtype=np.float32)
    tag = ctx.attrs["tag"]
    if arr.ndim == 2:
        arr = arr[:, :, None]
    if arr.ndim != 3:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"Tensor must be 3-D or 2-D, not {list(np.shape(clips))} "
            f"(audio summary {tag!r})")
    rate = np.asarray(sample_rate)
    if rate.ndim != 0 or not float(rate) > 0:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"sample_rate must be a positive scalar, got {rate.tolist()!r}")
    max_outputs = int(ctx.attrs["max_outputs"])
    n = min(arr.shape[0], max_outputs)
    kind = tag + "/audio"
    tags = [kind] if max_outputs == 1 else [f"{kind}/{i}" for i in range(n)]
    summary_pb2 = protos()[0]
    s = summary_pb2.Summary()
    for t, clip in zip(tags, arr[:n]):
        s.value.add(tag=t, audio=summary_pb2.Summary.Audio(
            sample_rate=float(rate), num_channels=int(clip.shape[1]),
            length_frames=int(clip.shape[0]), content_type="audio/wav",
            encoded_audio_string=encode_wav(clip, int(float(rate)))))
    return _serialized(s)


@register_kernel("MergeSummary")
def _merge(ctx: KernelContext, *inputs: Any) -> np.ndarray:
    summary_pb2 = protos()[0]
    out = summary_pb2.Summary()
    seen: Set[str] = set()
    for x in inputs:
        for blob in np.asarray(x, dtype=object).reshape(-1):
            part = summary_pb2.Summary()
            try:
                part.ParseFromString(blob if isinstance(blob, bytes) else bytes(blob))
            except Exception:  # noqa: BLE001 - protobuf's DecodeError has no stable home
                raise errors.InvalidArgumentError(
                    ctx.op_name, None, "Could not parse one of the summary inputs") from None
            for v in part.value:
                if v.tag in seen:
                    raise errors.InvalidArgumentError(
                        ctx.op_name, None, f"Duplicate tag {v.tag} found in summary inputs")
                seen.add(v.tag)
                out.value.add().CopyFrom(v)
    return _serialized(out)


__all__ = ["protos", "histogram_proto", "HISTOGRAM_BUCKETS", "normalize_image", "encode_png",
           "encode_wav"]
