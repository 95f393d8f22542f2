"""Gradients of the fused categorical ops (``ops/sparse_lookup_ops.py``).

Only ``SparseLookupCombine`` and ``SparseLookupCombineMany`` (many columns' combines
in one op) are differentiable, with respect to the looked-up rows: each entry's row
receives its example's gradient times the combiner's factor for that example (zero
for an empty row that was zeroed). The result is dense over the distinct ids; the
gather that produced the rows turns it into an ``IndexedSlices``
of the embedding, so an optimizer updates only the rows used.
"""

from __future__ import annotations

from typing import Any, List

from tensorfleet.framework.graph import convert_to_tensor
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops.sparse_lookup_ops import (sparse_lookup_combine_grad,
                                               sparse_lookup_combine_many_grad)

for _t in ("StringToHashBucketSparse", "SparseLookupPrepare", "SparseLookupPrepareMany",
           "SparseLookupCombineGrad", "SparseLookupCombineManyGrad"):
    no_gradient(_t)


@register_gradient("SparseLookupCombine")
def _combine_grad(op: Any, grad: Any) -> List[Any]:
    if isinstance(grad, IndexedSlices):
        grad = convert_to_tensor(grad)
    rows, idx, seg, empty = op.inputs
    g_rows = sparse_lookup_combine_grad(grad, rows, idx, seg, empty, op.attrs["combiner"],
                                        op.attrs["zero_empty"])
    return [g_rows, None, None, None]


@register_gradient("SparseLookupCombineMany")
def _combine_many_grad(op: Any, grad: Any) -> List[Any]:
    if isinstance(grad, IndexedSlices):
        grad = convert_to_tensor(grad)
    n = int(op.attrs["N"])
    ins = list(op.inputs)
    g_rows = sparse_lookup_combine_many_grad(grad, ins[:n], ins[n:2 * n], ins[2 * n:3 * n],
                                             ins[3 * n:], op.attrs["combiners"],
                                             op.attrs["zero_empty"], op.attrs["reduce"])
    return g_rows + [None] * (3 * n)


__all__: list = []
