"""Gradients of the fused categorical ops (``ops/sparse_lookup_ops.py``).

Only ``SparseLookupCombine`` is differentiable, with respect to the looked-up rows:
each entry's row receives its example's gradient times the combiner's factor for
that example (zero for an empty row that was zeroed). The result is dense over the
distinct ids; the gather that produced the rows turns it into an ``IndexedSlices``
of the embedding, so an optimizer updates only the rows used.
"""

from __future__ import annotations

from typing import Any, List

from tensorfleet.framework.graph import convert_to_tensor
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops.sparse_lookup_ops import sparse_lookup_combine_grad

for _t in ("StringToHashBucketSparse", "SparseLookupPrepare", "SparseLookupCombineGrad"):
    no_gradient(_t)


@register_gradient("SparseLookupCombine")
def _combine_grad(op: Any, grad: Any) -> List[Any]:
    if isinstance(grad, IndexedSlices):
        grad = convert_to_tensor(grad)
    rows, idx, seg, empty = op.inputs
    g_rows = sparse_lookup_combine_grad(grad, rows, idx, seg, empty, op.attrs["combiner"],
                                        op.attrs["zero_empty"])
    return [g_rows, None, None, None]


__all__: list = []
