"""``tf.extract_image_patches`` (``tf.image.extract_patches``): every ``ksizes`` window
of an NHWC image batch, taken every ``strides`` pixels with ``rates`` dilation, laid out
along the depth of the output.

The op is a gather: ``patch_index`` says which input element (or padding) each output
element reads, and the gradient adds the output's gradient back at those positions.
"""

from __future__ import annotations

import math
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, unknown_shape
from tensorfleet.ops.op_util import make_tensor


def _out_size(size: int, k: int, stride: int, rate: int, padding: str) -> Tuple[int, int]:
    """(output size, padding before) of one spatial dimension."""
    eff = k + (k - 1) * (rate - 1)
    if padding == "VALID":
        return max(math.ceil((size - eff + 1) / stride), 0), 0
    out = math.ceil(size / stride)
    pad = max((out - 1) * stride + eff - size, 0)
    return out, pad // 2


def patch_index(height: int, width: int, depth: int, ksizes: Sequence[int],
                strides: Sequence[int], rates: Sequence[int], padding: str) -> np.ndarray:
    """For each output element of one image (``[out_rows, out_cols, kr * kc * depth]``),
    the flat index into the image's ``height * width * depth`` elements, or
    ``height * width * depth`` where the window reads padding."""
    (kr, kc), (sr, sc), (rr, rc) = ksizes[1:3], strides[1:3], rates[1:3]
    oh, ph = _out_size(height, kr, sr, rr, padding)
    ow, pw = _out_size(width, kc, sc, rc, padding)
    rows = (np.arange(oh) * sr - ph)[:, None] + np.arange(kr) * rr          # [oh, kr]
    cols = (np.arange(ow) * sc - pw)[:, None] + np.arange(kc) * rc          # [ow, kc]
    r = rows[:, None, :, None, None]
    c = cols[None, :, None, :, None]
    d = np.arange(depth)[None, None, None, None, :]
    flat = (r * width + c) * depth + d                                       # [oh,ow,kr,kc,D]
    inside = (r >= 0) & (r < height) & (c >= 0) & (c < width) & (d >= 0)
    out = np.where(inside, flat, height * width * depth)
    return out.reshape(oh, ow, kr * kc * depth).astype(np.int64)


def _check(name: str, v: Any, fname: str = "extract_image_patches",
           dims: str = "rows, cols") -> List[int]:
    """``v`` as ``[1, <dims>, 1]`` of positive ints; ValueError naming ``name`` otherwise."""
    n = dims.count(",") + 3
    v = list(v) if isinstance(v, (list, tuple)) else None
    if v is None or len(v) != n or v[0] != 1 or v[-1] != 1 or any(
            not isinstance(x, int) or x < 1 for x in v):
        raise ValueError(f"{fname}: {name} must be [1, {dims}, 1] of positive ints, got {v}")
    return v


def _patches_shape(op: Any) -> List[TensorShape]:
    s = op.inputs[0].shape
    a = op.attrs
    if s.ndims != 4 or None in s.as_list()[1:]:
        return [unknown_shape(4)]
    b, h, w, d = s.as_list()
    oh, _ = _out_size(h, a["ksizes"][1], a["strides"][1], a["rates"][1], a["padding"])
    ow, _ = _out_size(w, a["ksizes"][2], a["strides"][2], a["rates"][2], a["padding"])
    return [TensorShape([b, oh, ow, a["ksizes"][1] * a["ksizes"][2] * d])]


register_op("ExtractImagePatches", _patches_shape)


def extract_image_patches(images: Any, ksizes: Optional[Sequence[int]] = None,
                          strides: Optional[Sequence[int]] = None,
                          rates: Optional[Sequence[int]] = None, padding: Optional[str] = None,
                          name: Optional[str] = None,
                          sizes: Optional[Sequence[int]] = None) -> Tensor:
    """Patches of ``images`` ([batch, rows, cols, depth]): output
    ``[batch, out_rows, out_cols, ksize_rows * ksize_cols * depth]``, each patch's pixels
    in row-major order with their channels innermost.

    Raises:
      ValueError: ``ksizes``/``strides``/``rates`` not ``[1, r, c, 1]``, ``padding`` not
        SAME or VALID, images not of rank 4, or both ``ksizes`` and ``sizes``.
    """
    if sizes is not None:
        if ksizes is not None:
            raise ValueError("extract_image_patches: give ksizes or sizes, not both")
        ksizes = sizes
    k, s, r = _check("ksizes", ksizes), _check("strides", strides), _check("rates", rates)
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"extract_image_patches: padding must be 'SAME' or 'VALID', got "
                         f"{padding!r}")
    x = convert_to_tensor(images, name="images")
    if x.shape.ndims not in (None, 4):
        raise ValueError(f"extract_image_patches: images must have rank 4, got {x.shape}")
    return make_tensor("ExtractImagePatches", [x], x.dtype,
                       {"ksizes": k, "strides": s, "rates": r, "padding": padding},
                       name=name or "ExtractImagePatches")


def extract_patches(images: Any, sizes: Sequence[int], strides: Sequence[int],
                    rates: Sequence[int], padding: str, name: Optional[str] = None) -> Tensor:
    """``tf.image.extract_patches``: ``extract_image_patches`` with ``sizes``."""
    return extract_image_patches(images, sizes, strides, rates, padding, name)


def volume_patch_index(planes: int, height: int, width: int, depth: int,
                       ksizes: Sequence[int], strides: Sequence[int],
                       padding: str) -> np.ndarray:
    """``patch_index`` of one volume (``[planes, rows, cols, depth]``): for each output
    element (``[out_planes, out_rows, out_cols, kp * kr * kc * depth]``) the flat index it
    reads, or ``planes * height * width * depth`` for padding."""
    sizes = (planes, height, width)
    axes = []
    for size, k, s in zip(sizes, ksizes[1:4], strides[1:4]):
        n, pad = _out_size(size, k, s, 1, padding)
        axes.append((np.arange(n) * s - pad)[:, None] + np.arange(k))       # [n, k]
    p = axes[0][:, None, None, :, None, None, None]
    r = axes[1][None, :, None, None, :, None, None]
    c = axes[2][None, None, :, None, None, :, None]
    d = np.arange(depth)[None, None, None, None, None, None, :]
    flat = ((p * height + r) * width + c) * depth + d
    inside = (p >= 0) & (p < planes) & (r >= 0) & (r < height) & (c >= 0) & (c < width) & \
        (d >= 0)
    total = planes * height * width * depth
    out = np.where(inside, flat, total)
    shape = [a.shape[0] for a in axes] + [int(np.prod([a.shape[1] for a in axes])) * depth]
    return out.reshape(shape).astype(np.int64)


def _volume_shape(op: Any) -> List[TensorShape]:
    s = op.inputs[0].shape
    a = op.attrs
    if s.ndims != 5 or None in s.as_list()[1:]:
        return [unknown_shape(5)]
    b, p, h, w, d = s.as_list()
    outs = [_out_size(n, k, st, 1, a["padding"])[0]
            for n, k, st in zip((p, h, w), a["ksizes"][1:4], a["strides"][1:4])]
    return [TensorShape([b] + outs + [int(np.prod(a["ksizes"][1:4])) * d])]


register_op("ExtractVolumePatches", _volume_shape)


def extract_volume_patches(input: Any, ksizes: Sequence[int],  # noqa: A002 - TF name
                           strides: Sequence[int], padding: str,
                           name: Optional[str] = None) -> Tensor:
    """Patches of ``input`` ([batch, planes, rows, cols, depth]), the 3-D
    ``extract_image_patches``: output ``[batch, out_planes, out_rows, out_cols,
    kp * kr * kc * depth]``, each patch row-major with channels innermost.

    Raises:
      ValueError: ``ksizes``/``strides`` not ``[1, p, r, c, 1]``, ``padding`` not SAME or
        VALID, or ``input`` not of rank 5.
    """
    k, s = (_check(n, v, "extract_volume_patches", "planes, rows, cols")
            for n, v in (("ksizes", ksizes), ("strides", strides)))
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"extract_volume_patches: padding must be 'SAME' or 'VALID', got "
                         f"{padding!r}")
    x = convert_to_tensor(input, name="input")
    if x.shape.ndims not in (None, 5):
        raise ValueError(f"extract_volume_patches: input must have rank 5, got {x.shape}")
    return make_tensor("ExtractVolumePatches", [x], x.dtype,
                       {"ksizes": k, "strides": s, "padding": padding},
                       name=name or "ExtractVolumePatches")
