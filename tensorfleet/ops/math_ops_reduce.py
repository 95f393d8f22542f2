"""Reductions, arg-max/min, cumulative sums and products, clipping and norms.

Reduction ops take the reduced axes as an optional second input: a constant
when the axes are known while building (the usual case, so shapes are inferred
statically), a computed tensor inside gradients. Without that input the op
reduces over every axis.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, unknown_shape
from tensorfleet.ops.array_ops_core import cast, stop_gradient, zeros_like
from tensorfleet.ops.array_indexing_ops import where
from tensorfleet.ops.math_ops_core import (add, add_n, exp, is_finite, log, maximum, minimum,
                                           multiply, not_equal, rsqrt, sqrt, square, subtract,
                                           truediv)
from tensorfleet.ops.op_util import (const_value, make_op, make_tensor, normalize_axis,
                                     same_shape)

_REDUCTIONS = ["Sum", "Mean", "Max", "Min", "Prod", "All", "Any"]


def _reduce_shape(op: Any) -> List[TensorShape]:
    x = op.inputs[0].shape
    keep = op.attrs["keep_dims"]
    if len(op.inputs) == 1:
        axes = None if x.ndims is None else list(range(x.ndims))
    else:
        v = const_value(op.inputs[1])
        if v is None:
            return [unknown_shape(x.ndims) if keep else unknown_shape()]
        axes = normalize_axis(np.asarray(v).reshape(-1).tolist(), x.ndims)
    if x.ndims is None:
        return [unknown_shape() if axes else x]
    dims = x.as_list()
    if keep:
        return [TensorShape([1 if i in axes else d for i, d in enumerate(dims)])]
    return [TensorShape([d for i, d in enumerate(dims) if i not in axes])]


def _arg_shape(op: Any) -> List[TensorShape]:
    x = op.inputs[0].shape
    if x.ndims is None:
        return [unknown_shape()]
    ax = normalize_axis(op.attrs["axis"], x.ndims)[0]
    return [TensorShape([d for i, d in enumerate(x.as_list()) if i != ax])]


def _vector_shape(op: Any) -> List[TensorShape]:
    s = op.inputs[0].shape
    n = s[0] if s.ndims == 1 else None
    return [TensorShape([n]) for _ in op.outputs]


for _t in _REDUCTIONS:
    register_op(_t, _reduce_shape)
register_op("ArgMax", _arg_shape)
register_op("L2Loss", lambda op: [TensorShape([])])
register_op("ArgMin", _arg_shape)
register_op("Cumsum", same_shape)
register_op("Cumprod", same_shape)
register_op("BroadcastGradientArgs", lambda op: [TensorShape([None]), TensorShape([None])])
register_op("ReducedShape", _vector_shape)


def _pick_keepdims(keepdims: Optional[bool], keep_dims: Optional[bool]) -> bool:
    if keepdims is not None and keep_dims is not None and bool(keepdims) != bool(keep_dims):
        raise ValueError("keepdims and keep_dims (deprecated) were both given and differ")
    return bool(keepdims if keepdims is not None else keep_dims)


def _reduce(op_type: str, x: Any, axis: Any, keepdims: Optional[bool], name: Optional[str],
            default: str, reduction_indices: Any = None, keep_dims: Optional[bool] = None,
            kinds: str = "iuf") -> Tensor:
    if axis is not None and reduction_indices is not None:
        raise ValueError("Can not specify both 'axis' and 'reduction_indices'.")
    axis = reduction_indices if axis is None else axis
    keep = _pick_keepdims(keepdims, keep_dims)
    x = convert_to_tensor(x)
    if x.dtype.kind not in kinds:
        raise TypeError(f"{op_type} does not support tensors of dtype {x.dtype.name} "
                        f"({x.name})")
    inputs: List[Any] = [x]
    if isinstance(axis, Tensor):
        inputs.append(axis)
    elif axis is not None:
        axes = normalize_axis(list(np.asarray(axis).reshape(-1).tolist()), x.shape.ndims)
        inputs.append(convert_to_tensor(np.asarray(axes, dtype=np.int32)))
    return make_tensor(op_type, inputs, x.dtype, {"keep_dims": keep}, name=name or default)


def reduce_sum(input_tensor: Any, axis: Any = None, keepdims: Optional[bool] = None,
               name: Optional[str] = None, reduction_indices: Any = None,
               keep_dims: Optional[bool] = None) -> Tensor:
    """Sum over ``axis`` (an int, a list, a tensor, or None for every axis)."""
    return _reduce("Sum", input_tensor, axis, keepdims, name, "Sum", reduction_indices,
                   keep_dims, kinds="iufc")


def reduce_mean(input_tensor: Any, axis: Any = None, keepdims: Optional[bool] = None,
                name: Optional[str] = None, reduction_indices: Any = None,
                keep_dims: Optional[bool] = None) -> Tensor:
    """Mean over ``axis``; integer tensors get an integer (truncated) mean."""
    return _reduce("Mean", input_tensor, axis, keepdims, name, "Mean", reduction_indices,
                   keep_dims, kinds="iufc")


def reduce_max(input_tensor: Any, axis: Any = None, keepdims: Optional[bool] = None,
               name: Optional[str] = None, reduction_indices: Any = None,
               keep_dims: Optional[bool] = None) -> Tensor:
    """Maximum over ``axis``."""
    return _reduce("Max", input_tensor, axis, keepdims, name, "Max", reduction_indices,
                   keep_dims)


def reduce_min(input_tensor: Any, axis: Any = None, keepdims: Optional[bool] = None,
               name: Optional[str] = None, reduction_indices: Any = None,
               keep_dims: Optional[bool] = None) -> Tensor:
    """Minimum over ``axis``."""
    return _reduce("Min", input_tensor, axis, keepdims, name, "Min", reduction_indices,
                   keep_dims)


def reduce_prod(input_tensor: Any, axis: Any = None, keepdims: Optional[bool] = None,
                name: Optional[str] = None, reduction_indices: Any = None,
                keep_dims: Optional[bool] = None) -> Tensor:
    """Product over ``axis``."""
    return _reduce("Prod", input_tensor, axis, keepdims, name, "Prod", reduction_indices,
                   keep_dims, kinds="iufc")


def reduce_all(input_tensor: Any, axis: Any = None, keepdims: Optional[bool] = None,
               name: Optional[str] = None, reduction_indices: Any = None,
               keep_dims: Optional[bool] = None) -> Tensor:
    """Logical AND over ``axis`` of a bool tensor."""
    return _reduce("All", input_tensor, axis, keepdims, name, "All", reduction_indices,
                   keep_dims, kinds="b")


def reduce_any(input_tensor: Any, axis: Any = None, keepdims: Optional[bool] = None,
               name: Optional[str] = None, reduction_indices: Any = None,
               keep_dims: Optional[bool] = None) -> Tensor:
    """Logical OR over ``axis`` of a bool tensor."""
    return _reduce("Any", input_tensor, axis, keepdims, name, "Any", reduction_indices,
                   keep_dims, kinds="b")


def reduce_logsumexp(input_tensor: Any, axis: Any = None, keepdims: Optional[bool] = None,
                     name: Optional[str] = None, reduction_indices: Any = None,
                     keep_dims: Optional[bool] = None) -> Tensor:
    """``log(sum(exp(x), axis))``, computed without overflow by shifting by the maximum."""
    keep = _pick_keepdims(keepdims, keep_dims)
    axis = reduction_indices if axis is None else axis
    x = convert_to_tensor(input_tensor)
    # The shift cancels out of the value and the gradient, so no gradient flows into
    # it; an infinite maximum (all -inf) is replaced by 0 to avoid inf - inf.
    m = stop_gradient(reduce_max(x, axis, keepdims=True))
    m = where(is_finite(m), m, zeros_like(m))
    lse = log(reduce_sum(exp(subtract(x, m)), axis, keepdims=keep))
    return add(lse, m if keep else reduce_sum(m, axis), name=name or "ReduceLogSumExp")


def _arg(op_type: str, x: Any, axis: Any, name: Optional[str], dimension: Any,
         output_type: Any) -> Tensor:
    if axis is not None and dimension is not None:
        raise ValueError("Cannot specify both 'axis' and 'dimension'")
    axis = dimension if axis is None else axis
    axis = 0 if axis is None else axis
    if isinstance(axis, Tensor):
        v = const_value(axis)
        if v is None:
            raise ValueError(f"{op_type} needs an axis known while building the graph")
        axis = v
    axis = int(np.asarray(axis).reshape(-1)[0])
    x = convert_to_tensor(x)
    if x.dtype.np.kind not in "iuf":
        raise TypeError(f"{op_type} does not support tensors of dtype {x.dtype.name}")
    normalize_axis(axis, x.shape.ndims)
    out = _dtypes.as_dtype(output_type)
    if out not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"output_type of {op_type} must be int32 or int64, got {out.name}")
    return make_tensor(op_type, [x], out, {"axis": axis, "output_type": out},
                       name=name or op_type)


def argmax(input: Any, axis: Any = None, name: Optional[str] = None,  # noqa: A002
           dimension: Any = None, output_type: Any = _dtypes.int64) -> Tensor:
    """Index of the largest value along ``axis`` (default 0); the first on ties."""
    return _arg("ArgMax", input, axis, name, dimension, output_type)


def argmin(input: Any, axis: Any = None, name: Optional[str] = None,  # noqa: A002
           dimension: Any = None, output_type: Any = _dtypes.int64) -> Tensor:
    """Index of the smallest value along ``axis`` (default 0); the first on ties."""
    return _arg("ArgMin", input, axis, name, dimension, output_type)


def _cumulative(op_type: str, x: Any, axis: Any, exclusive: bool, reverse: bool,
                name: Optional[str]) -> Tensor:
    x = convert_to_tensor(x)
    if isinstance(axis, Tensor):
        v = const_value(axis)
        if v is None:
            raise ValueError(f"{op_type} needs an axis known while building the graph")
        axis = v
    axis = int(np.asarray(axis).reshape(-1)[0])
    if x.shape.ndims is not None:
        axis = normalize_axis(axis, x.shape.ndims)[0]
    return make_tensor(op_type, [x], x.dtype,
                       {"axis": axis, "exclusive": bool(exclusive), "reverse": bool(reverse)},
                       name=name or op_type)


def cumsum(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False,
           name: Optional[str] = None) -> Tensor:
    """Running sum along ``axis``; ``exclusive`` leaves out the current element."""
    return _cumulative("Cumsum", x, axis, exclusive, reverse, name)


def cumprod(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False,
            name: Optional[str] = None) -> Tensor:
    """Running product along ``axis``; ``exclusive`` leaves out the current element."""
    return _cumulative("Cumprod", x, axis, exclusive, reverse, name)


def count_nonzero(input_tensor: Any = None, axis: Any = None, keepdims: Optional[bool] = None,
                  dtype: Any = _dtypes.int64, name: Optional[str] = None,
                  reduction_indices: Any = None, keep_dims: Optional[bool] = None,
                  input: Any = None) -> Tensor:  # noqa: A002
    """Number of non-zero (or True) elements over ``axis``."""
    x = convert_to_tensor(input_tensor if input_tensor is not None else input)
    zero = np.zeros((), dtype=x.dtype.np) if x.dtype is not _dtypes.string else b""
    nz = cast(not_equal(x, zero), dtype)
    return reduce_sum(nz, axis, keepdims, name=name or "count_nonzero",
                      reduction_indices=reduction_indices, keep_dims=keep_dims)


# -- clipping and norms -------------------------------------------------------------------

def clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any,
                  name: Optional[str] = None) -> Tensor:
    """Clamps ``t`` to ``[clip_value_min, clip_value_max]`` elementwise.

    Built from ``minimum`` and ``maximum`` so the gradient is theirs: it flows
    where ``t`` is inside the range.
    """
    t = convert_to_tensor(t)
    lo, hi = _static_value(clip_value_min), _static_value(clip_value_max)
    if lo is not None and hi is not None and np.any(np.asarray(lo) > np.asarray(hi)):
        raise ValueError(f"clip_value_min {lo} is larger than clip_value_max {hi}")
    out = maximum(minimum(t, clip_value_max), clip_value_min, name=name or "clip_by_value")
    if t.shape.ndims is not None and out.shape.ndims is not None:
        if not out.shape.is_compatible_with(t.shape):
            raise ValueError(f"clip_by_value: clip bounds would broadcast {t.shape} to "
                             f"{out.shape}")
    return out


def _static_value(v: Any) -> Any:
    """The build-time value of a literal or constant tensor, else None."""
    if isinstance(v, Tensor):
        return const_value(v)
    if isinstance(v, (int, float, list, tuple, np.ndarray, np.generic)):
        return v
    return None


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: Optional[str] = None) -> Tensor:
    """Rescales ``t`` so that its L2 norm over ``axes`` is at most ``clip_norm``."""
    t = convert_to_tensor(t)
    clip = convert_to_tensor(clip_norm, dtype=t.dtype)
    l2sum = reduce_sum(square(t), axes, keepdims=True)
    # t * clip / max(norm, clip) without a sqrt of zero: the max keeps the rsqrt
    # argument at least clip**2, so an all-zero t gets a finite gradient.
    inv = rsqrt(maximum(l2sum, clip * clip))
    return multiply(t, clip * inv, name=name or "clip_by_norm")


def _flat_values(t_list: Sequence[Any]) -> List[Optional[Tensor]]:
    out: List[Optional[Tensor]] = []
    for t in t_list:
        if t is None:
            out.append(None)
        elif isinstance(t, IndexedSlices):
            out.append(t.values)
        else:
            out.append(convert_to_tensor(t))
    return out


def global_norm(t_list: Sequence[Any], name: Optional[str] = None) -> Tensor:
    """``sqrt(sum of squares)`` over every element of every tensor in ``t_list``."""
    if isinstance(t_list, (Tensor, IndexedSlices)) or not isinstance(t_list, (list, tuple)):
        raise TypeError("t_list should be a sequence of tensors")
    vals = [v for v in _flat_values(t_list) if v is not None]
    if not vals:
        raise ValueError("global_norm needs at least one tensor")
    bad = [v.name for v in vals if not v.dtype.is_floating]
    if bad:
        raise TypeError(f"global_norm needs floating-point tensors, got {bad}")
    # Half the sum of squares of each as one dot product (L2Loss), without a squared copy.
    halves = [make_tensor("L2Loss", [v], v.dtype) for v in vals]
    return sqrt(add_n(halves) * 2.0, name=name or "global_norm")


def clip_by_global_norm(t_list: Sequence[Any], clip_norm: Any, use_norm: Any = None,
                        name: Optional[str] = None) -> Tuple[List[Any], Tensor]:
    """Scales every tensor by ``clip_norm / max(global_norm, clip_norm)``.

    Returns ``(clipped list, global_norm)``; None entries stay None and
    ``IndexedSlices`` stay sparse.
    """
    if isinstance(t_list, (Tensor, IndexedSlices)) or not isinstance(t_list, (list, tuple)):
        raise TypeError("t_list should be a sequence of tensors")
    norm = global_norm(t_list) if use_norm is None else convert_to_tensor(use_norm)
    clip = convert_to_tensor(clip_norm, dtype=norm.dtype)
    scale = truediv(clip, maximum(norm, clip))
    out: List[Any] = []
    for t in t_list:
        if t is None:
            out.append(None)
        elif isinstance(t, IndexedSlices):
            out.append(IndexedSlices(multiply(t.values, scale), t.indices, t.dense_shape))
        else:
            out.append(multiply(t, scale, name=name))
    return out, norm


# -- helpers for gradients (not exported as tf.* names) -----------------------------------

def broadcast_gradient_args(s0: Any, s1: Any) -> Tuple[Tensor, Tensor]:
    """The axes to sum a broadcast result over to get back shapes ``s0`` and ``s1``."""
    op = make_op("BroadcastGradientArgs", [s0, s1], [_dtypes.int32, _dtypes.int32],
                 name="BroadcastGradientArgs")
    return op.outputs[0], op.outputs[1]


def reduced_shape(input_shape: Any, axes: Any = None) -> Tensor:
    """``input_shape`` with the dims in ``axes`` (every dim if None) set to 1."""
    ins = [input_shape] if axes is None else [input_shape, axes]
    return make_tensor("ReducedShape", ins, _dtypes.int32, name="ReducedShape")


__all__ = [
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_all",
    "reduce_any", "reduce_logsumexp", "argmax", "argmin", "cumsum", "cumprod", "count_nonzero",
    "clip_by_value", "clip_by_norm", "global_norm", "clip_by_global_norm",
]
