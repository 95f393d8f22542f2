"""Gradients of the array ops (and the no-gradient declarations of the random ops).

Gradients are built from public ops only. Where a shape is known at build time
the gradient uses constants, which keeps the gradient graph small and its static
shapes exact; otherwise it computes shapes at run time.
"""

from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from tensorfleet.framework.graph import convert_to_tensor
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops import array_ops as A
from tensorfleet.ops.op_util import const_value, make_tensor
from tensorfleet.ops import math_ops

# Integer-valued or shape-valued outputs carry no gradient; random ops are
# declared here too because they have no gradient file of their own.
for _t in ("Const", "Placeholder", "Shape", "Size", "Rank", "ZerosLike", "OnesLike",
           "StopGradient", "OneHot", "Range", "Where", "InvertPermutation",
           "RandomStandardNormal", "TruncatedNormal", "RandomUniform", "RandomUniformInt",
           "RandomShuffle", "Multinomial"):
    no_gradient(_t)


def _dense(g: Any) -> Any:
    return convert_to_tensor(g) if isinstance(g, IndexedSlices) else g


def _static_shape(t: Any) -> Optional[List[int]]:
    s = t.shape
    return s.as_list() if s.is_fully_defined() else None


def _math() -> Any:
    # math_ops imports array_ops, so it is loaded lazily where a gradient needs it.
    return math_ops


@register_gradient("Identity")
@register_gradient("PlaceholderWithDefault")
def _identity_grad(op: Any, grad: Any) -> Any:
    return grad


# tf.identity_n; under tf.custom_gradient its gradient is overridden.
@register_gradient("IdentityN")
def _identity_n_grad(op: Any, *grads: Any) -> List[Any]:
    return list(grads)


# The output reinterprets the input's bytes, which no derivative relates.
no_gradient("Bitcast")


def _reshape_to_input(op: Any, grad: Any) -> Any:
    x = op.inputs[0]
    s = _static_shape(x)
    return A.reshape(grad, s if s is not None else A.shape(x))


@register_gradient("Reshape")
@register_gradient("ExpandDims")
def _reshape_grad(op: Any, grad: Any) -> list:
    return [_reshape_to_input(op, grad), None]


@register_gradient("Squeeze")
def _squeeze_grad(op: Any, grad: Any) -> Any:
    return _reshape_to_input(op, grad)


@register_gradient("Transpose")
def _transpose_grad(op: Any, grad: Any) -> list:
    perm = const_value(op.inputs[1])
    if perm is not None:
        inv = np.argsort(np.reshape(perm, [-1])).astype(np.int32)
        return [A.transpose(grad, inv), None]
    return [A.transpose(grad, A.invert_permutation(op.inputs[1])), None]


@register_gradient("Cast")
def _cast_grad(op: Any, grad: Any) -> Any:
    src, dst = op.inputs[0].dtype, op.outputs[0].dtype
    if src.is_floating and dst.is_floating:
        return A.cast(grad, src)
    return None


@register_gradient("Fill")
def _fill_grad(op: Any, grad: Any) -> list:
    return [None, _math().reduce_sum(grad)]


# -- joining and splitting -----------------------------------------------------------------

@register_gradient("ConcatV2")
def _concat_grad(op: Any, grad: Any) -> list:
    xs, axis_t = op.inputs[:-1], op.inputs[-1]
    axis = A._scalar_int(axis_t)
    rank = next((x.shape.ndims for x in xs if x.shape.ndims is not None), None)
    if axis is not None and rank is not None:
        axis %= rank
        sizes = [x.shape[axis] for x in xs]
        if None not in sizes:
            return A.split(grad, sizes, axis) + [None]
        sizes_t = A.stack([A.shape(x)[axis] for x in xs])
        return A.split(grad, sizes_t, axis, num=len(xs)) + [None]
    m = _math()
    pos = m.floormod(axis_t, A.rank(xs[0]))
    sizes_t = A.stack([A.gather(A.shape(x), pos) for x in xs])
    return A.split(grad, sizes_t, pos, num=len(xs)) + [None]


@register_gradient("Pack")
def _pack_grad(op: Any, grad: Any) -> list:
    return A.unstack(grad, num=op.attrs["N"], axis=op.attrs["axis"])


@register_gradient("Unpack")
def _unpack_grad(op: Any, *grads: Any) -> Any:
    # The outputs no gradient reached come filled with one ZerosLike op each (all of one
    # shape); a single one of them serves them all, so a step runs one zeros op instead
    # of one per unused piece (an RNN read at its last step leaves all others unused).
    shared = None
    out = []
    for t, g in zip(op.outputs, grads):
        if getattr(g, "op", None) is not None and g.op.type == "ZerosLike" \
                and g.op.inputs[0] is t:
            shared = g if shared is None else shared
            g = shared
        out.append(g)
    return A.stack(out, axis=op.attrs["axis"])


@register_gradient("Split")
def _split_grad(op: Any, *grads: Any) -> list:
    return [None, A.concat(list(grads), op.inputs[0])]


@register_gradient("SplitV")
def _split_v_grad(op: Any, *grads: Any) -> list:
    return [A.concat(list(grads), op.inputs[2]), None, None]


# -- slicing ---------------------------------------------------------------------------------

@register_gradient("Slice")
def _slice_grad(op: Any, grad: Any) -> list:
    x, begin = op.inputs[0], op.inputs[1]
    xs, bv, out = _static_shape(x), const_value(begin), _static_shape(op.outputs[0])
    if xs is not None and bv is not None and out is not None:
        b = [int(v) for v in np.reshape(bv, [-1])]
        pads = np.array([[bi, d - bi - o] for bi, d, o in zip(b, xs, out)], dtype=np.int32)
        return [A.pad(grad, pads), None, None]
    m = _math()
    before = A.reshape(begin, [-1, 1])
    after = m.subtract(m.subtract(A.shape(x, out_type=begin.dtype), begin),
                       A.shape(op.outputs[0], out_type=begin.dtype))
    return [A.pad(grad, A.concat([before, A.reshape(after, [-1, 1])], 1)), None, None]


_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


@register_gradient("StridedSlice")
def _strided_slice_grad(op: Any, grad: Any) -> list:
    x, b, e, s = op.inputs
    xs = _static_shape(x)
    shp = A.constant(np.array(xs, dtype=b.dtype.np)) if xs is not None else A.shape(
        x, out_type=b.dtype)
    attrs = {k: op.attrs[k] for k in _MASKS}
    g = make_tensor("StridedSliceGrad", [shp, b, e, s, _dense(grad)], grad.dtype, attrs,
                    name="StridedSliceGrad")
    return [g, None, None, None]


@register_gradient("StridedSliceGrad")
def _strided_slice_grad_grad(op: Any, grad: Any) -> list:
    _, b, e, s, _ = op.inputs
    masks = {k: op.attrs[k] for k in _MASKS}
    return [None, None, None, None, A.strided_slice(grad, b, e, s, **masks)]


# -- gathering and segments --------------------------------------------------------------------

@register_gradient("GatherV2")
def _gather_grad(op: Any, grad: Any) -> list:
    params, indices, axis_t = op.inputs
    grad = _dense(grad)
    axis = A._scalar_int(axis_t)
    p_rank, i_rank = params.shape.ndims, indices.shape.ndims
    if axis is not None and p_rank is not None:
        axis %= p_rank
    ps = _static_shape(params)
    params_shape = A.constant(np.array(ps, np.int32)) if ps is not None else A.shape(params)
    if axis == 0:
        if i_rank == 1:
            return [IndexedSlices(grad, indices, params_shape), None, None]
        inner = params.shape.as_list()[1:] if p_rank is not None else None
        if inner is not None and None not in inner:
            values = A.reshape(grad, [-1] + inner)
        else:
            values = A.reshape(grad, A.concat([[-1], params_shape[1:]], 0))
        return [IndexedSlices(values, A.reshape(indices, [-1]), params_shape), None, None]
    if axis is None or p_rank is None or i_rank is None:
        raise ValueError(f"The gradient of {op.name} (gather with axis != 0) needs a constant "
                         f"axis and known ranks of params and indices")
    # Bring the index dims to the front, sum rows by index, then restore the layout.
    outer = list(range(axis))
    perm = list(range(axis, axis + i_rank)) + outer + list(range(axis + i_rank,
                                                                 p_rank + i_rank - 1))
    g_t = A.transpose(grad, perm)
    rest = params.shape.as_list()[:axis] + params.shape.as_list()[axis + 1:]
    if None not in rest:
        flat = A.reshape(g_t, [-1] + rest)
    else:
        flat = A.reshape(g_t, A.concat([[-1], A.shape(g_t)[i_rank:]], 0))
    summed = A.unsorted_segment_sum(flat, A.reshape(indices, [-1]), params_shape[axis])
    back = list(range(1, axis + 1)) + [0] + list(range(axis + 1, p_rank))
    return [A.transpose(summed, back), None, None]


@register_gradient("UnsortedSegmentSum")
def _unsorted_segment_sum_grad(op: Any, grad: Any) -> list:
    ids = op.inputs[1]
    m = _math()
    grad = _dense(grad)
    flat_ids = ids if ids.shape.ndims == 1 else A.reshape(ids, [-1])
    # Rows with a negative id were dropped by the op, so they get a zero gradient.
    keep = m.greater_equal(flat_ids, A.zeros_like(flat_ids))
    safe = A.where(keep, flat_ids, A.zeros_like(flat_ids))
    gathered = A.gather(grad, safe)
    masked = A.where(keep, gathered, A.zeros_like(gathered))
    if ids.shape.ndims == 1:
        return [masked, None, None]
    return [_reshape_to_input(op, masked), None, None]


@register_gradient("DynamicPartition")
def _dynamic_partition_grad(op: Any, *grads: Any) -> list:
    data, parts = op.inputs
    positions = A.reshape(A.range(A.size(parts)), A.shape(parts))
    split_pos = A.dynamic_partition(positions, parts, op.attrs["num_partitions"])
    stitched = A.dynamic_stitch(split_pos, [_dense(g) for g in grads])
    return [_reshape_to_input(op, stitched), None]


@register_gradient("DynamicStitch")
def _dynamic_stitch_grad(op: Any, grad: Any) -> list:
    n = op.attrs["N"]
    grad = _dense(grad)
    return [None] * n + [A.gather(grad, i) for i in op.inputs[:n]]


@register_gradient("Select")
def _select_grad(op: Any, grad: Any) -> list:
    c = op.inputs[0]
    grad = _dense(grad)
    zeros = A.zeros_like(grad)
    return [None, A.where(c, grad, zeros), A.where(c, zeros, grad)]


# -- tiling and padding ------------------------------------------------------------------------

@register_gradient("Tile")
def _tile_grad(op: Any, grad: Any) -> list:
    x, mult = op.inputs
    m = _math()
    xs, mv = _static_shape(x), const_value(mult)
    if xs is not None and mv is not None:
        pairs = [v for k, d in zip(np.reshape(mv, [-1]).tolist(), xs) for v in (int(k), d)]
        axes = list(range(0, len(pairs), 2))
        out = m.reduce_sum(A.reshape(grad, pairs), axes)
        return [A.reshape(out, xs), None]
    pairs_t = A.reshape(A.transpose(A.stack([mult, A.shape(x, out_type=mult.dtype)])), [-1])
    axes_t = A.range(0, A.size(pairs_t), 2)
    return [m.reduce_sum(A.reshape(grad, pairs_t), axes_t), None]


@register_gradient("Pad")
@register_gradient("PadV2")
def _pad_grad(op: Any, grad: Any) -> list:
    x, p = op.inputs[:2]
    pv, xs = const_value(p), _static_shape(x)
    if pv is not None:
        begin: Any = np.asarray(pv).reshape(-1, 2)[:, 0].astype(np.int32)
    else:
        begin = A.reshape(A.slice(p, [0, 0], [-1, 1]), [-1])
    size = xs if xs is not None else A.shape(x, out_type=p.dtype)
    if pv is None and xs is not None:
        size = A.constant(np.array(xs, dtype=p.dtype.np))
    g = A.slice(_dense(grad), begin, size)
    return [g, None] + ([None] if len(op.inputs) == 3 else [])


@register_gradient("MirrorPad")
def _mirror_pad_grad(op: Any, grad: Any) -> list:
    g = make_tensor("MirrorPadGrad", [_dense(grad), op.inputs[1]], grad.dtype,
                    {"mode": op.attrs["mode"]}, name="MirrorPadGrad")
    return [g, None]


@register_gradient("MirrorPadGrad")
def _mirror_pad_grad_grad(op: Any, grad: Any) -> list:
    return [A.pad(grad, op.inputs[1], mode=op.attrs["mode"]), None]
