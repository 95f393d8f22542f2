"""Gradients of ``top_k``; the samplers and accidental-hit search have none."""

from __future__ import annotations

from typing import Any, List

from tensorfleet import dtypes as _dtypes
from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M

for _t in ("UniformCandidateSampler", "LogUniformCandidateSampler",
           "LearnedUnigramCandidateSampler", "FixedUnigramCandidateSampler",
           "ComputeAccidentalHits"):
    no_gradient(_t)


@register_gradient("TopKV2")
def _top_k_grad(op: Any, grad_values: Any, grad_indices: Any) -> List[Any]:
    # Each selected value's gradient goes back to the position it was taken from:
    # flatten the rows, offset each row's indices by its start, and sum by position.
    x = op.inputs[0]
    idx = op.outputs[1]
    in_shape = A.shape(x)
    n = in_shape[-1]
    k = A.shape(idx)[-1]
    total = A.size(x)
    rows = A.reshape(idx, A.stack([-1, k]))
    starts = A.expand_dims(A.range(0, total, n), -1)
    flat = A.reshape(M.add(rows, A.cast(starts, _dtypes.int32)), [-1])
    dx = A.unsorted_segment_sum(A.reshape(grad_values, [-1]), flat, total)
    return [A.reshape(dx, in_shape), None]
