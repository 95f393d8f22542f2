"""numpy kernels of the image codecs: JPEG, PNG, GIF and BMP through Pillow.

Decoding gives ``[height, width, channels]`` uint8 (or uint16 for 16-bit
greyscale PNG); a GIF decoded with ``expand_animations`` gives every frame,
``[frames, height, width, 3]``. A JPEG decoded to one channel takes the file's
luma plane, as libjpeg's greyscale output does.

A JPEG decoded at full size to RGB, or to the file's own channels, goes straight
from libjpeg-turbo into a numpy array through simplejpeg where it is installed: the
same library and settings as Pillow's decoder (accurate integer DCT, fancy
upsampling), so the same pixels, without Pillow's per-image Python (on 48 x 48
images, 235 microseconds a decode through Pillow, 49 through simplejpeg; an input
pipeline decodes one image per element). Anything else, and any file simplejpeg
refuses, takes Pillow's path, which also names what is wrong with a bad file.
"""

from __future__ import annotations

import io
from typing import Any, Optional

import numpy as np
from PIL import Image, ImageSequence, UnidentifiedImageError

try:
    import simplejpeg
except ImportError:  # platforms without its wheels decode through Pillow alone
    simplejpeg = None

from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.kernels.numpy.string_kernels import as_bytes

_MODES = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}


def _contents(ctx: KernelContext, contents: Any) -> bytes:
    arr = np.asarray(contents, dtype=object)
    if arr.ndim != 0:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"{ctx.op_type}: contents must be a scalar, got shape "
            f"{list(arr.shape)}")
    return as_bytes(arr.item())


def _open(ctx: KernelContext, data: bytes, formats: tuple, grey: bool = False,
          ratio: int = 1) -> Image.Image:
    try:
        img = Image.open(io.BytesIO(data), formats=list(formats))
        if img.format == "JPEG" and (grey or ratio > 1):
            # Asked of the decoder before loading: its own greyscale output (the luma
            # plane) and its DCT-domain downscaling, as libjpeg's scale_denom does.
            w, h = img.size
            img.draft("L" if grey else img.mode, (-(-w // ratio), -(-h // ratio)))
        img.load()
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as e:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"{ctx.op_type}: not a valid {'/'.join(formats)} image: "
            f"{e}") from None
    return img


def _to_array(img: Image.Image, channels: int) -> np.ndarray:
    """The image as ``[h, w, c]``: ``channels`` 0 keeps the file's channel count."""
    if channels == 0:
        if img.mode in ("I;16", "I;16B", "I;16L"):
            return np.asarray(img, dtype=np.uint16)[..., None]
        if img.mode not in _MODES.values():
            img = img.convert("RGBA" if "A" in img.mode or "transparency" in img.info
                              else "RGB")
    else:
        if img.mode != _MODES[channels]:
            img = img.convert(_MODES[channels])
    arr = np.asarray(img)
    return arr[..., None] if arr.ndim == 2 else arr


def _turbo_decode(data: bytes, channels: int) -> Optional[np.ndarray]:
    """``[h, w, c]`` uint8 through simplejpeg, or None where Pillow's path must run: no
    simplejpeg, one channel asked, a file it refuses (CMYK, damaged), a colour space
    Pillow would keep in another mode."""
    if simplejpeg is None or channels == 1:
        return None
    try:
        _, _, colorspace, _ = simplejpeg.decode_jpeg_header(data)
        if colorspace == "Gray":
            if channels == 0:
                return simplejpeg.decode_jpeg(data, colorspace="GRAY")
        elif colorspace not in ("YCbCr", "RGB"):
            return None
        return simplejpeg.decode_jpeg(data, colorspace="RGB")
    except ValueError:
        return None


@register_kernel("DecodeJpeg")
def _decode_jpeg(ctx: KernelContext, contents: Any) -> np.ndarray:
    channels = int(ctx.attrs.get("channels", 0))
    data = _contents(ctx, contents)
    ratio = int(ctx.attrs.get("ratio", 1))
    if ratio == 1:
        arr = _turbo_decode(data, channels)
        if arr is not None:
            return arr
    img = _open(ctx, data, ("JPEG",), grey=channels == 1, ratio=ratio)
    return _to_array(img, channels).astype(np.uint8, copy=False)


@register_kernel("DecodePng")
def _decode_png(ctx: KernelContext, contents: Any) -> np.ndarray:
    img = _open(ctx, _contents(ctx, contents), ("PNG",))
    return _decode_still(ctx, img, int(ctx.attrs.get("channels", 0)),
                         np.dtype(ctx.attrs["dtype"].np))


def _decode_still(ctx: KernelContext, img: Image.Image, channels: int,
                  dtype: np.dtype) -> np.ndarray:
    wide = img.mode.startswith("I;16") or img.mode == "I"
    if wide and channels in (0, 1):
        arr = np.asarray(img).astype(np.uint16)[..., None] if img.mode == "I" else \
            np.asarray(img, dtype=np.uint16)[..., None]
        return arr if dtype == np.uint16 else (arr >> 8).astype(np.uint8)
    if wide:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"{ctx.op_type}: a 16-bit greyscale image cannot be decoded "
            f"to {channels} channels")
    arr = _to_array(img, channels)
    if dtype == np.uint16:
        # 8-bit data as 16-bit: each value v becomes v * 257, spanning the full range.
        return arr.astype(np.uint16) * np.uint16(257)
    return arr


@register_kernel("DecodeImage")
def _decode_image(ctx: KernelContext, contents: Any) -> np.ndarray:
    img = _open(ctx, _contents(ctx, contents), ("JPEG", "PNG", "GIF", "BMP"))
    channels = int(ctx.attrs.get("channels", 0))
    dtype = np.dtype(ctx.attrs["dtype"].np)
    if img.format == "GIF":
        if channels not in (0, 3):
            raise errors.InvalidArgumentError(
                ctx.op_name, None, f"{ctx.op_type}: channels must be 0 or 3 for GIF, got "
                f"{channels}")
        frames = [np.asarray(f.convert("RGB")) for f in ImageSequence.Iterator(img)]
        out = np.stack(frames) if ctx.attrs.get("expand_animations", True) else frames[0]
        return out.astype(np.uint16) * np.uint16(257) if dtype == np.uint16 else out
    if img.format == "JPEG":
        return _decode_jpeg(ctx, contents).astype(dtype) * (257 if dtype == np.uint16 else 1)
    return _decode_still(ctx, img, channels, dtype)


@register_kernel("DecodeGif")
def _decode_gif(ctx: KernelContext, contents: Any) -> np.ndarray:
    img = _open(ctx, _contents(ctx, contents), ("GIF",))
    return np.stack([np.asarray(f.convert("RGB")) for f in ImageSequence.Iterator(img)])


def _bmp_bgra(data: bytes) -> Any:
    """The pixels of an uncompressed 32-bit BMP as RGBA (the fourth byte is alpha),
    or None for other BMPs; Pillow reads that byte as padding."""
    if len(data) < 54 or int.from_bytes(data[28:30], "little") != 32 or \
            int.from_bytes(data[30:34], "little") != 0:
        return None
    start = int.from_bytes(data[10:14], "little")
    w = int.from_bytes(data[18:22], "little", signed=True)
    h = int.from_bytes(data[22:26], "little", signed=True)
    if w <= 0 or h == 0 or len(data) < start + 4 * w * abs(h):
        return None
    px = np.frombuffer(data, np.uint8, 4 * w * abs(h), start).reshape(abs(h), w, 4)
    px = px[:, :, [2, 1, 0, 3]]
    return px if h < 0 else px[::-1]  # positive heights store the bottom row first


@register_kernel("DecodeBmp")
def _decode_bmp(ctx: KernelContext, contents: Any) -> np.ndarray:
    data = _contents(ctx, contents)
    img = _open(ctx, data, ("BMP",))
    channels = int(ctx.attrs.get("channels", 0))
    rgba = _bmp_bgra(data)
    if rgba is not None:
        return np.ascontiguousarray(rgba[:, :, :3] if channels == 3 else rgba)
    if channels == 0:
        channels = 1 if img.mode == "L" else (4 if "A" in img.mode else 3)
    return _to_array(img, channels).astype(np.uint8, copy=False)


_JPEG_CHANNELS = {"L": 1, "RGB": 3, "YCbCr": 3, "CMYK": 4}


@register_kernel("ExtractJpegShape")
def _extract_jpeg_shape(ctx: KernelContext, contents: Any) -> np.ndarray:
    try:
        # Opening reads the header only; the pixels stay undecoded.
        img = Image.open(io.BytesIO(_contents(ctx, contents)), formats=["JPEG"])
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as e:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"{ctx.op_type}: not a valid JPEG image: {e}") from None
    w, h = img.size
    return np.array([h, w, _JPEG_CHANNELS.get(img.mode, 3)],
                    dtype=ctx.attrs["output_type"].np)


def _image_3d(ctx: KernelContext, image: Any) -> np.ndarray:
    arr = np.asarray(image)
    if arr.ndim != 3:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"{ctx.op_type}: image must be 3-dimensional, got shape "
            f"{list(arr.shape)}")
    return arr


@register_kernel("EncodeJpeg")
def _encode_jpeg(ctx: KernelContext, image: Any) -> np.ndarray:
    a = ctx.attrs
    arr = _image_3d(ctx, image)
    want = {"grayscale": 1, "rgb": 3}.get(a.get("format", ""), arr.shape[2])
    if arr.shape[2] != want or want not in (1, 3):
        need = want if a.get("format") else "1 or 3"
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"EncodeJpeg: image must have {need} channels, got "
            f"{arr.shape[2]}")
    img = Image.fromarray(np.ascontiguousarray(arr[..., 0] if want == 1 else arr))
    dens = (int(a.get("x_density", 300)), int(a.get("y_density", 300)))
    if a.get("density_unit", "in") == "cm":
        dens = (round(dens[0] * 2.54), round(dens[1] * 2.54))
    opts = {"quality": int(a.get("quality", 95)), "progressive": bool(a.get("progressive")),
            "optimize": bool(a.get("optimize_size")), "dpi": dens,
            "subsampling": 2 if a.get("chroma_downsampling", True) else 0}
    if a.get("xmp_metadata"):
        opts["xmp"] = str(a["xmp_metadata"]).encode("utf-8")
    buf = io.BytesIO()
    img.save(buf, format="JPEG", **opts)
    return np.array(buf.getvalue(), dtype=object)


@register_kernel("EncodePng")
def _encode_png(ctx: KernelContext, image: Any) -> np.ndarray:
    arr = _image_3d(ctx, image)
    c = arr.shape[2]
    if c not in _MODES:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"EncodePng: image must have 1 to 4 channels, got {c}")
    level = int(ctx.attrs.get("compression", -1))
    if arr.dtype == np.uint16:
        if c != 1:
            raise errors.InvalidArgumentError(
                ctx.op_name, None, "EncodePng: 16-bit images must have one channel here")
        img = Image.fromarray(np.ascontiguousarray(arr[..., 0]))
    else:
        img = Image.fromarray(np.ascontiguousarray(arr[..., 0] if c == 1 else arr))
    buf = io.BytesIO()
    img.save(buf, format="PNG", compress_level=6 if level < 0 else level)
    return np.array(buf.getvalue(), dtype=object)


__all__: list = []


@register_kernel("EncodeJpegVariableQuality")
def _encode_jpeg_variable_quality(ctx: KernelContext, image: Any, quality: Any) -> np.ndarray:
    q = int(np.asarray(quality))
    if not 0 <= q <= 100:
        raise errors.InvalidArgumentError(ctx.op_name, None,
                                          f"quality must be in [0, 100], got {q}")
    arr = _image_3d(ctx, image)
    if arr.shape[2] not in (1, 3):
        raise errors.InvalidArgumentError(ctx.op_name, None, f"image must have 1 or 3 "
                                          f"channels, got {arr.shape[2]}")
    img = Image.fromarray(np.ascontiguousarray(arr[..., 0] if arr.shape[2] == 1 else arr))
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=q)
    return np.array(buf.getvalue(), dtype=object)


@register_kernel("DecodeWebP")
def _decode_webp(ctx: KernelContext, contents: Any) -> np.ndarray:
    data = as_bytes(np.asarray(contents).item())
    try:
        img = Image.open(io.BytesIO(data))
        if img.format != "WEBP":
            raise UnidentifiedImageError("not WebP")
        frames = []
        for frame in ImageSequence.Iterator(img):
            want = ctx.attrs["channels"] or (4 if "A" in frame.mode else 3)
            frames.append(np.asarray(frame.convert("RGBA" if want == 4 else "RGB")))
    except (UnidentifiedImageError, OSError) as e:
        raise errors.InvalidArgumentError(ctx.op_name, None,
                                          f"Unable to decode the WebP image: {e}") from None
    return np.stack(frames)
