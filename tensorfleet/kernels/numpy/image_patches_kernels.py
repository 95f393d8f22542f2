"""numpy kernel of ``ExtractImagePatches`` (``ops/image_patches_ops.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.ops.image_patches_ops import patch_index, volume_patch_index


@register_kernel("ExtractImagePatches")
def _extract_image_patches(ctx: KernelContext, images: Any) -> np.ndarray:
    x = np.asarray(images)
    if x.ndim != 4:
        raise invalid(ctx, f"images must have rank 4, got shape {list(x.shape)}")
    b, h, w, d = x.shape
    a = ctx.attrs
    idx = patch_index(h, w, d, a["ksizes"], a["strides"], a["rates"], a["padding"])
    flat = np.concatenate([x.reshape(b, -1), np.zeros((b, 1), x.dtype)], axis=1)
    return flat[:, idx]


@register_kernel("ExtractVolumePatches")
def _extract_volume_patches(ctx: KernelContext, volumes: Any) -> np.ndarray:
    x = np.asarray(volumes)
    if x.ndim != 5:
        raise invalid(ctx, f"input must have rank 5, got shape {list(x.shape)}")
    b, p, h, w, d = x.shape
    a = ctx.attrs
    idx = volume_patch_index(p, h, w, d, a["ksizes"], a["strides"], a["padding"])
    flat = np.concatenate([x.reshape(b, -1), np.zeros((b, 1), x.dtype)], axis=1)
    return flat[:, idx]
