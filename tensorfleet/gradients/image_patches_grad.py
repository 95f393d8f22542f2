"""Gradient of ``ExtractImagePatches``: each output element's gradient is added to the
input element it read (padding reads drop theirs)."""

from __future__ import annotations

from typing import Any, List

import numpy as np

from tensorfleet.gradients.registry import register_gradient
from tensorfleet.ops import array_ops as A
from tensorfleet.ops.array_indexing_ops import unsorted_segment_sum
from tensorfleet.ops.image_patches_ops import patch_index, volume_patch_index


@register_gradient("ExtractImagePatches")
def _extract_image_patches_grad(op: Any, grad: Any) -> List[Any]:
    shape = op.inputs[0].shape
    if shape.ndims != 4 or None in shape.as_list()[1:]:
        raise ValueError("The gradient of extract_image_patches needs the rows, cols and "
                         f"depth of its images known when the graph is built, got {shape}")
    _, h, w, d = shape.as_list()
    a = op.attrs
    idx = patch_index(h, w, d, a["ksizes"], a["strides"], a["rates"], a["padding"])
    n = h * w * d
    per_image = A.transpose(A.reshape(grad, [-1, int(np.prod(idx.shape))]))   # [out, B]
    summed = unsorted_segment_sum(per_image, A.constant(idx.reshape(-1)), n + 1)
    back = A.transpose(summed[:n])                                              # [B, n]
    return [A.reshape(back, A.shape(op.inputs[0]))]


@register_gradient("ExtractVolumePatches")
def _extract_volume_patches_grad(op: Any, grad: Any) -> List[Any]:
    shape = op.inputs[0].shape
    if shape.ndims != 5 or None in shape.as_list()[1:]:
        raise ValueError("The gradient of extract_volume_patches needs the planes, rows, "
                         f"cols and depth of its input known when the graph is built, got "
                         f"{shape}")
    _, p, h, w, d = shape.as_list()
    a = op.attrs
    idx = volume_patch_index(p, h, w, d, a["ksizes"], a["strides"], a["padding"])
    n = p * h * w * d
    per_volume = A.transpose(A.reshape(grad, [-1, int(np.prod(idx.shape))]))
    summed = unsorted_segment_sum(per_volume, A.constant(idx.reshape(-1)), n + 1)
    return [A.reshape(A.transpose(summed[:n]), A.shape(op.inputs[0]))]
