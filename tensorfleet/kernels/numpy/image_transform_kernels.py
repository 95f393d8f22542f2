"""numpy kernels of the projective image transform (``ops/image_ops_transform.py``) and
of its gradient.

Every output pixel of every image maps to one input point; nearest sampling reads
the rounded point, bilinear sampling its four neighbours, each neighbour outside the
input reading 0. Both kernels share one description of which input pixels each
output pixel reads and with what weight; the forward pass gathers with it and the
gradient scatters with it (summing per input pixel), so the gradient is the exact
adjoint.
"""

from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.numpy.image_boxes_kernels import sum_rows
from tensorfleet.kernels.registry import KernelContext, register_kernel

Taps = List[Tuple[np.ndarray, np.ndarray]]


def _round_half_away(v: np.ndarray) -> np.ndarray:
    return np.sign(v) * np.floor(np.abs(v) + np.float32(0.5))


def _taps(ctx: KernelContext, transforms: Any, batch: int, in_hw: Tuple[int, int],
          out_hw: Tuple[int, int], bilinear: bool) -> Taps:
    """Per tap, the flat input pixel index (-1 for none) and the weight, both
    ``[batch, out_h, out_w]``."""
    t = np.asarray(transforms, dtype=np.float32)
    if t.ndim != 2 or t.shape[1] != 8 or t.shape[0] not in (1, batch):
        raise invalid(ctx, f"transforms must be [1 or batch = {batch}, 8], got "
                           f"{list(t.shape)}")
    t = np.broadcast_to(t, (batch, 8))[:, :, None, None]
    h, w = in_hw
    y, x = np.meshgrid(np.arange(out_hw[0], dtype=np.float32),
                       np.arange(out_hw[1], dtype=np.float32), indexing="ij")
    k = t[:, 6] * x + t[:, 7] * y + np.float32(1)
    ok = k != 0
    with np.errstate(divide="ignore", invalid="ignore"):
        in_x = np.where(ok, (t[:, 0] * x + t[:, 1] * y + t[:, 2]) / np.where(ok, k, 1), -2)
        in_y = np.where(ok, (t[:, 3] * x + t[:, 4] * y + t[:, 5]) / np.where(ok, k, 1), -2)
    base = (np.arange(batch) * (h * w))[:, None, None]

    def tap(yy: np.ndarray, xx: np.ndarray, weight: Any) -> Tuple[np.ndarray, np.ndarray]:
        inside = ok & (yy >= 0) & (yy <= h - 1) & (xx >= 0) & (xx <= w - 1)
        idx = base + np.clip(yy, 0, h - 1).astype(np.int64) * w + np.clip(
            xx, 0, w - 1).astype(np.int64)
        return np.where(inside, idx, -1), np.where(inside, weight, 0).astype(np.float32)

    if not bilinear:
        return [tap(_round_half_away(in_y), _round_half_away(in_x), np.float32(1))]
    y0, x0 = np.floor(in_y), np.floor(in_x)
    dy, dx = in_y - y0, in_x - x0
    return [tap(y0, x0, (1 - dy) * (1 - dx)), tap(y0, x0 + 1, (1 - dy) * dx),
            tap(y0 + 1, x0, dy * (1 - dx)), tap(y0 + 1, x0 + 1, dy * dx)]


def _out_hw(ctx: KernelContext, output_shape: Any) -> Tuple[int, int]:
    size = np.asarray(output_shape).reshape(-1)
    if size.shape != (2,) or size.min() <= 0:
        raise invalid(ctx, f"output_shape must be two positive ints, got {size.tolist()}")
    return int(size[0]), int(size[1])


@register_kernel("ImageProjectiveTransformV2")
def _transform(ctx: KernelContext, images: Any, transforms: Any,
               output_shape: Any) -> np.ndarray:
    img = np.asarray(images)
    if img.ndim != 4:
        raise invalid(ctx, f"images must be 4-D [batch, height, width, channels], got "
                           f"{list(img.shape)}")
    b, h, w, c = img.shape
    taps = _taps(ctx, transforms, b, (h, w), _out_hw(ctx, output_shape),
                 ctx.attrs["interpolation"] == "BILINEAR")
    flat = img.reshape(-1, c).astype(np.float32 if img.dtype.kind != "f" else img.dtype)
    out = 0
    for idx, weight in taps:
        read = flat[np.maximum(idx, 0)] if flat.size else np.zeros(idx.shape + (c,))
        out = out + read * weight[..., None]
    if img.dtype.kind in "iu":
        return np.round(out).astype(img.dtype)
    return np.asarray(out, dtype=img.dtype)


@register_kernel("ImageProjectiveTransformV2Grad")
def _transform_grad(ctx: KernelContext, grads: Any, transforms: Any,
                    image_shape: Any) -> np.ndarray:
    g = np.asarray(grads)
    shape = [int(v) for v in np.asarray(image_shape).reshape(-1)]
    if len(shape) != 4 or g.ndim != 4 or g.shape[0] != shape[0] or g.shape[3] != shape[3]:
        raise invalid(ctx, f"grads {list(g.shape)} do not fit images of shape {shape}")
    b, h, w, c = shape
    taps = _taps(ctx, transforms, b, (h, w), g.shape[1:3],
                 ctx.attrs["interpolation"] == "BILINEAR")
    index = np.concatenate([idx.reshape(-1) for idx, _ in taps])
    rows = np.concatenate([(g * weight[..., None]).reshape(-1, c) for _, weight in taps])
    keep = index >= 0
    out = sum_rows(index[keep], rows[keep], b * h * w)
    return out.reshape(shape).astype(g.dtype)
