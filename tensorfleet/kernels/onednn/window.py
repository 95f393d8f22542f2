"""The geometry of a windowed op (convolution, pooling) in oneDNN's terms.

TensorFlow gives strides, dilations and window sizes in the layout of the data
(``NHWC`` or ``NCHW``) and padding as SAME or VALID; oneDNN wants the spatial
values alone, dilations counted from 0, and explicit padding before and after.
SAME pads as TensorFlow does: the total ``max((out - 1) * stride + span - in, 0)``,
the smaller half before.
"""

from __future__ import annotations

from typing import Any, Dict, NamedTuple, Optional, Sequence, Tuple

from tensorfleet.kernels.onednn import library as dnnl

FORMATS = {"NHWC": dnnl.TAG_NHWC, "NCHW": dnnl.TAG_NCHW}


class Window(NamedTuple):
    """Sizes of one windowed op on one input (all spatial values as (height, width))."""

    n: int
    c: int
    h: int
    w: int
    oh: int
    ow: int
    kernel: Tuple[int, int]
    strides: Tuple[int, int]
    dilations: Tuple[int, int]  # oneDNN's: 0 is a dense window
    pad_l: Tuple[int, int]
    pad_r: Tuple[int, int]


def data_format(attrs: Dict[str, Any]) -> Optional[str]:
    """The op's data format, or None for one this backend does not handle."""
    fmt = attrs.get("data_format") or "NHWC"
    if isinstance(fmt, bytes):
        fmt = fmt.decode()
    return fmt if fmt in FORMATS else None


def spatial(values: Sequence[int], fmt: str) -> Tuple[int, int]:
    """(height, width) entries of a 4-vector given in ``fmt``'s order."""
    return (int(values[1]), int(values[2])) if fmt == "NHWC" else (int(values[2]),
                                                                   int(values[3]))


def nchw(shape: Sequence[int], fmt: str) -> Tuple[int, int, int, int]:
    """(N, C, H, W) of a 4-D shape given in ``fmt``."""
    if fmt == "NHWC":
        return int(shape[0]), int(shape[3]), int(shape[1]), int(shape[2])
    return tuple(int(d) for d in shape)  # type: ignore[return-value]


def to_format(n: int, c: int, h: int, w: int, fmt: str) -> Tuple[int, int, int, int]:
    """The numpy shape of an (N, C, H, W) tensor stored in ``fmt``."""
    return (n, h, w, c) if fmt == "NHWC" else (n, c, h, w)


def _one(size: int, k: int, stride: int, dilation: int, padding: str) -> Tuple[int, int, int]:
    span = (k - 1) * dilation + 1
    if padding == "VALID":
        return ((size - span) // stride + 1 if size >= span else 0), 0, 0
    out = -(-size // stride)
    total = max((out - 1) * stride + span - size, 0)
    return out, total // 2, total - total // 2


def window(shape: Sequence[int], kernel: Tuple[int, int], attrs: Dict[str, Any],
           fmt: str) -> Optional[Window]:
    """The geometry of a window of ``kernel`` over an input of ``shape`` (in ``fmt``),
    or None when the attributes are not ones this backend runs (the reference kernel
    then runs, and reports what is wrong)."""
    padding = attrs.get("padding")
    if isinstance(padding, bytes):
        padding = padding.decode()
    strides = attrs.get("strides")
    dil = attrs.get("dilations") or [1, 1, 1, 1]
    if padding not in ("SAME", "VALID") or strides is None or len(strides) != 4 \
            or len(dil) != 4 or len(shape) != 4:
        return None
    n, c, h, w = nchw(shape, fmt)
    sh, sw = spatial(strides, fmt)
    dh, dw = spatial(dil, fmt)
    kh, kw = kernel
    if min(sh, sw, dh, dw, kh, kw) < 1 or min(n, c, h, w) < 1:
        return None
    oh, pt, pb = _one(h, kh, sh, dh, padding)
    ow, pl, pr = _one(w, kw, sw, dw, padding)
    if oh < 1 or ow < 1:
        return None
    return Window(n, c, h, w, oh, ow, (kh, kw), (sh, sw), (dh - 1, dw - 1), (pt, pl), (pb, pr))


__all__ = ["Window", "window", "data_format", "spatial", "nchw", "to_format", "FORMATS"]
